import * as Command from "../observability/Command.js"
import { type BigDecimal, Effect, Either, Option } from "effect"
import { CustomerId, PartnerId, storedId } from "../api/Ids.js"
import { Customers } from "../customers/Customers.js"
import type { Customer } from "../customers/Customer.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { BadRequest, type CustomerForbidden } from "../api/ApiError.js"
import type { Page } from "../api/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { isUuid } from "../ids/Ids.js"
import { KycDocumentNotFound } from "../kyc/Api.js"
import { checkDocumentUrl, notThisCustomersDocument } from "../kyc/DocumentFields.js"
import { Documents } from "../kyc/Documents.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { CustomerBusy, InsufficientBalance, ReferenceInUse } from "../ledger/Errors.js"
import { type Answered, Idempotency } from "../ledger/Idempotency.js"
import { Jobs } from "../jobs/Jobs.js"
import * as Ledger from "../ledger/Ledger.js"
import { Enrolments } from "../international/Enrolments.js"
import type { BankRailUnavailable, ExchangeRailUnavailable, PayoutRailUnavailable } from "../rails/Errors.js"
import { Exchange } from "../rails/Exchange.js"
import { type PayoutOutcome, PayoutPartners } from "../rails/PayoutPartners.js"
import type { Corridor } from "../reference/Corridors.js"
import { type OneOffAccount, Withdrawals } from "../withdrawals/Withdrawals.js"
import {
  type GlobalSend,
  type GlobalSendBelowMinimum,
  type GlobalSendBody,
  type GlobalSendNotEnabled,
  GlobalSendNotFound,
  InvalidBeneficiary
} from "./Api.js"
import * as CrossBorder from "./CrossBorder.js"
import * as Domestic from "./Domestic.js"
import * as GlobalSendsRepo from "./GlobalSendsRepo.js"
import * as Outcomes from "./Outcomes.js"
import { checkBeneficiary, checkPurpose } from "./Rules.js"
import { toGlobalSend } from "./View.js"

export { eventData, toGlobalSend } from "./View.js"

export const idempotencyEndpoint = "global_send"

/** The corridor paid out by the bank rail as a withdrawal (docs/contract.md "Initiating": the domestic corridor). */
export const domesticCorridor = "NG-NGN-bank"

type InitiateError =
  | BadRequest
  | InvalidBeneficiary
  | KycDocumentNotFound
  | GlobalSendNotEnabled
  | GlobalSendBelowMinimum
  | InsufficientBalance
  | ReferenceInUse
  | CustomerForbidden
  | CustomerBusy
  | PayoutRailUnavailable
  | BankRailUnavailable
  | ExchangeRailUnavailable

const invalid = (violation: { readonly field: string; readonly message: string }) =>
  new InvalidBeneficiary({ message: `${violation.field}: ${violation.message}` })

/** What `initiate` settles outside the customer's transaction: one of the two kinds of send, ready to create. */
interface Prepared {
  readonly corridor: Corridor
  readonly beneficiary: Readonly<Record<string, unknown>>
  /** The live buy rate, when a cross-border send is funded in the customer's currency. */
  readonly prices: Option.Option<BigDecimal.BigDecimal>
  /** The beneficiary's bank account, for a domestic send. */
  readonly account: Option.Option<OneOffAccount>
}

/**
 * Global send (docs/contract.md "Global send"; docs/global-send.md). Cross-border (src/globalsend/CrossBorder.ts): the
 * customer's USDT (or its local-currency equivalent at the live buy rate) is reserved and handed, less our transfer
 * fee and the payout partner's fee, to the corridor's payout partner (`PayoutSubmissions`); its outcome comes back
 * through `settle`, which posts the reservation (COMPLETED) or voids it (FAILED) (src/globalsend/Outcomes.ts).
 * Domestic (the NG corridor of an NG customer; src/globalsend/Domestic.ts): a bank payout through
 * `Withdrawals.payoutTo` under the same reference, whose settlement the send follows (src/globalsend/
 * FollowWithdrawals.ts, Withdrawals' `SettledWithdrawals` port).
 */
export class GlobalSends extends Effect.Service<GlobalSends>()("GlobalSends", {
  effect: Effect.gen(function*() {
    const repo = yield* GlobalSendsRepo.GlobalSendsRepo
    const idempotency = yield* Idempotency
    const actors = yield* CustomerActors
    const customers = yield* Customers
    const cursors = yield* Cursors
    const payoutPartners = yield* PayoutPartners
    const exchange = yield* Exchange
    const documents = yield* Documents
    const crossBorder = yield* CrossBorder.make
    const domestic = yield* Domestic.make
    const apply = yield* Outcomes.make

    const load = (customerId: string) => (id: string) =>
      Effect.flatMap(repo.byId(customerId, id), Option.match({
        onNone: () => Effect.dieMessage(`global sends: idempotency key points at a missing send ${id}`),
        onSome: (row) => Effect.succeed(toGlobalSend(row))
      }))

    /** What needs no lock: the corridor, the beneficiary's shape, the purpose (refused before anything else). */
    const checkRequest = (customer: Customer, corridor: Corridor, body: GlobalSendBody) =>
      Effect.gen(function*() {
        const purpose = checkPurpose(corridor, body.purpose, body.purposeNote)
        if (Either.isLeft(purpose)) return yield* new BadRequest({ message: `${purpose.left.field}: ${purpose.left.message}` })
        const checked = checkBeneficiary(corridor, body.beneficiary)
        if (Either.isLeft(checked)) return yield* invalid(checked.left)
        for (const document of checked.right.documents) {
          const notFound = new KycDocumentNotFound({ message: `${document.field}: ${notThisCustomersDocument}` })
          const documentId = checkDocumentUrl(document.url, customer.id)
          if (documentId === undefined) return yield* notFound
          if ((yield* documents.find(customer.id, documentId)) === undefined) return yield* notFound
        }
        return checked.right.beneficiary
      })

    /** Outside the customer's transaction: the corridor list, the request's checks, the live rate, the name enquiry. */
    const prepare = (partnerId: string, owned: Customer, body: GlobalSendBody) =>
      Effect.gen(function*() {
        const corridor = (yield* payoutPartners.corridors(partnerId)).find((candidate) => candidate.corridor === body.corridor)
        if (corridor === undefined) {
          return yield* new BadRequest({ message: `corridor: no corridor ${JSON.stringify(body.corridor)}; GET .../global-send/corridors lists them` })
        }
        const isDomestic = corridor.corridor === domesticCorridor && owned.country === "NG"
        const fundingCurrency = body.fundingCurrency ?? "USDT"
        if (!isDomestic && fundingCurrency !== "USDT" && fundingCurrency !== owned.currency) {
          return yield* new BadRequest({ message: `fundingCurrency: must be USDT or ${owned.currency} (got ${JSON.stringify(fundingCurrency)})` })
        }
        const beneficiary = yield* checkRequest(owned, corridor, body)
        const prices = !isDomestic && fundingCurrency !== "USDT"
          ? Option.some((yield* exchange.prices(partnerId, owned.currency).pipe(
            Effect.catchTag("ExchangeCurrencyUnsupported", () =>
              new BadRequest({ message: `fundingCurrency: the exchange does not quote ${owned.currency}; fund with USDT` }))
          )).buyRate)
          : Option.none()
        const account = isDomestic ? Option.some(yield* domestic.resolveAccount(owned, beneficiary)) : Option.none()
        return { corridor, beneficiary, prices, account } satisfies Prepared
      })

    /** The send created in the customer's command, once per reference. */
    const createOnce = (partnerId: PartnerId, customerId: CustomerId, body: GlobalSendBody, prepared: Prepared) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const { account, beneficiary, corridor, prices } = prepared
          const reference = body.reference ?? (yield* idempotency.generate)
          return yield* idempotency.answer(
            { partnerId, endpoint: idempotencyEndpoint, reference, customerId: customer.id },
            (id): Effect.Effect<GlobalSend, InitiateError> =>
              Option.isSome(account)
                ? domestic.initiate(customer, corridor, body, reference, beneficiary, account.value)(id)
                : crossBorder(customer, corridor, body, reference, beneficiary, prices)(id),
            load(customer.id)
          )
        }))

    const initiate = Command.fn("GlobalSends.initiate")(function*(partnerId: PartnerId, customerId: CustomerId, body: GlobalSendBody) {
      const owned = yield* customers.getOwned(partnerId, customerId)
      if (body.reference === "." || body.reference === "..") {
        return yield* new BadRequest({ message: "reference: \".\" and \"..\" cannot name a global send (they are dot segments in its URL)" })
      }
      // A repeated reference answers the original whatever it carries: look it up before any check or rail call.
      if (body.reference !== undefined) {
        const existing = yield* repo.byReference(owned.id, body.reference)
        if (Option.isSome(existing)) return { value: toGlobalSend(existing.value), replayed: true } as Answered<GlobalSend>
      }
      return yield* createOnce(partnerId, owned.id, body, yield* prepare(partnerId, owned, body))
    })

    const settleLocked = (partnerId: PartnerId, customerId: CustomerId, id: string, outcome: PayoutOutcome) =>
      actors.run(partnerId, customerId, () =>
        Effect.gen(function*() {
          const row = yield* repo.lock(id)
          if (Option.isNone(row)) return yield* Effect.dieMessage(`global sends: send ${id} vanished`)
          return yield* apply(row.value, outcome)
        })).pipe(
          Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("global sends: a send's customer vanished"))
        )

    /** The payout partner's outcome of one of the partner's cross-border sends, by our id: the settlement entry point. */
    const settle = Command.fn("GlobalSends.settle")(function*(partnerId: string, sendId: string, outcome: PayoutOutcome) {
      if (!isUuid(sendId) || !isUuid(partnerId)) return yield* GlobalSendNotFound.standard()
      const found = yield* repo.forPartner(partnerId, sendId.toLowerCase())
      if (Option.isNone(found)) return yield* GlobalSendNotFound.standard()
      return yield* settleLocked(storedId(PartnerId, partnerId), storedId(CustomerId, found.value.customerId), found.value.id, outcome)
    })

    /** The same for a sandbox control naming the send by its (owned) customer and reference. */
    const settleByReference = Command.fn("GlobalSends.settleByReference")(
      function*(customer: Customer, reference: string, outcome: PayoutOutcome) {
        const found = yield* repo.byReference(customer.id, reference)
        if (Option.isNone(found)) return yield* GlobalSendNotFound.standard()
        return yield* settleLocked(customer.partnerId, customer.id, found.value.id, outcome)
      }
    )

    const list = Command.fn("GlobalSends.list")(
      (customer: Customer, page: PageRequest) =>
        paginate(
          cursors,
          { list: "global-sends", partnerId: customer.partnerId, customerId: customer.id },
          page,
          ({ beforeSeq, limit }) => repo.page(customer.id, beforeSeq, limit),
          (row) => String(row.seq)
        ),
      Effect.map((result): Page<GlobalSend> => ({ items: result.items.map(toGlobalSend), nextCursor: result.nextCursor }))
    )

    const get = Command.fn("GlobalSends.get")(function*(customer: Customer, reference: string) {
      const row = yield* repo.byReference(customer.id, reference)
      if (Option.isNone(row)) return yield* GlobalSendNotFound.standard()
      return toGlobalSend(row.value)
    })

    /** The partner's cross-border sends awaiting the payout partner, newest first. */
    const processing = Command.fn("GlobalSends.processing")((query: CreatedPageQuery) =>
      repo.processing(query))

    return { initiate, list, get, settle, settleByReference, processing } as const
  }),
  dependencies: [
    GlobalSendsRepo.GlobalSendsRepo.Default,
    Customers.Default,
    Withdrawals.Default,
    CustomerActors.Default,
    Ledger.Ledger.Default,
    Idempotency.Default,
    Enrolments.Default,
    Documents.Default,
    Jobs.Default
  ]
}) {}

export const layer = GlobalSends.Default
