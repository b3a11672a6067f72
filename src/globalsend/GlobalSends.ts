import type { SqlError } from "@effect/sql"
import { BigDecimal, Context, Duration, Effect, Either, Layer, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { Outbox } from "../events/Events.js"
import { BadRequest, type CustomerForbidden, type InvalidCursor } from "../api/ApiError.js"
import type { Page } from "../api/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { isUuid } from "../ids/Ids.js"
import { Enrolments } from "../international/Enrolments.js"
import { KycDocumentNotFound } from "../kyc/Api.js"
import { checkDocumentUrl, notThisCustomersDocument } from "../kyc/DocumentFields.js"
import { Documents } from "../kyc/Documents.js"
import { nameWords } from "../kyc/KycRules.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { CustomerBusy, InsufficientBalance, ReferenceInUse } from "../ledger/Errors.js"
import { Idempotency } from "../ledger/Idempotency.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, describeAmountProblem, parseAmount, toNumber } from "../money/Money.js"
import { Bank, nameEnquiryTimeoutMs } from "../rails/Bank.js"
import { BankRailUnavailable, ExchangeRailUnavailable, type PayoutRailUnavailable } from "../rails/Errors.js"
import { Exchange } from "../rails/Exchange.js"
import { type PayoutOutcome, PayoutPartners, PayoutSubmissions } from "../rails/PayoutPartners.js"
import type { Corridor } from "../reference/Corridors.js"
import { usdtToFiat } from "../trading/Pricing.js"
import type { PayoutOutcome as BankOutcome } from "../rails/Bank.js"
import { type OneOffAccount, Withdrawals } from "../withdrawals/Withdrawals.js"
import type { WithdrawalRow } from "../withdrawals/WithdrawalsRepo.js"
import {
  type GlobalSend,
  GlobalSendBelowMinimum,
  type GlobalSendBody,
  GlobalSendNotEnabled,
  GlobalSendNotFound,
  GlobalSendStateConflict,
  InvalidBeneficiary
} from "./Api.js"
import * as GlobalSendsRepo from "./GlobalSendsRepo.js"
import { checkBeneficiary, checkPurpose, defaultFees, minimumAmountFor, minimumAssetOf, splitCrossBorder } from "./Rules.js"

/**
 * Global send (SPEC.md "Global send"; docs/global-send.md). Cross-border: the customer's USDT (or its local-currency
 * equivalent at the live buy rate) is reserved and handed, less our transfer fee and the payout partner's fee, to
 * the corridor's payout partner (`PayoutSubmissions`); its outcome comes back through `settle`, which posts the
 * reservation (COMPLETED) or voids it (FAILED). Domestic (the NG corridor of an NG customer): a bank payout through
 * `Withdrawals.payoutTo` under the same reference, whose settlement this module follows (`onSettled`).
 */
export const idempotencyEndpoint = "global_send"

/** The corridor paid out by the bank rail as a withdrawal (SPEC.md: "the domestic (NG) corridor"). */
export const domesticCorridor = "NG-NGN-bank"

export const toGlobalSend = (row: Omit<GlobalSendsRepo.GlobalSendRow, "seq">): GlobalSend => ({
  id: row.id,
  customerId: row.customerId,
  reference: row.reference,
  corridor: row.corridor,
  status: row.status,
  destinationCountry: row.destinationCountry,
  destinationCurrency: row.destinationCurrency,
  asset: row.asset,
  amount: toNumber(row.asset as Asset, row.amount),
  transferFee: toNumber(row.asset as Asset, row.transferFee),
  partnerFee: toNumber(row.asset as Asset, row.partnerFee),
  assetAmount: toNumber(row.asset as Asset, row.assetAmount),
  settledBy: row.settledBy,
  fundingCurrency: row.fundingCurrency,
  fundingAmount: toNumber(row.fundingCurrency as Asset, row.fundingAmount),
  rate: row.rate === null ? null : Number(row.rate),
  purpose: row.purpose,
  purposeNote: row.purposeNote,
  beneficiary: row.beneficiary,
  failureReason: row.failureReason,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

/** Every `global_send.*` event's `data`, exactly SPEC.md's fields. */
export const eventData = (send: GlobalSend) => ({
  customerId: send.customerId,
  reference: send.reference,
  corridor: send.corridor,
  status: send.status,
  destinationCurrency: send.destinationCurrency,
  asset: send.asset,
  assetAmount: send.assetAmount,
  partnerFee: send.partnerFee,
  transferFee: send.transferFee,
  settledBy: send.settledBy,
  purpose: send.purpose,
  purposeNote: send.purposeNote
})

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

export class GlobalSends extends Context.Tag("GlobalSends")<GlobalSends, {
  readonly initiate: (partnerId: string, customerId: string, body: GlobalSendBody) => Effect.Effect<GlobalSend, InitiateError>
  readonly list: (customer: CustomerRow, page: PageRequest) => Effect.Effect<Page<GlobalSend>, InvalidCursor>
  readonly get: (customer: CustomerRow, reference: string) => Effect.Effect<GlobalSend, GlobalSendNotFound>
  /** The payout partner's outcome of one of the partner's cross-border sends, by our id: the settlement entry point. */
  readonly settle: (
    partnerId: string,
    sendId: string,
    outcome: PayoutOutcome
  ) => Effect.Effect<GlobalSend, GlobalSendNotFound | GlobalSendStateConflict | CustomerBusy>
  /** The same for a sandbox control naming the send by its (owned) customer and reference. */
  readonly settleByReference: (
    customer: CustomerRow,
    reference: string,
    outcome: PayoutOutcome
  ) => Effect.Effect<GlobalSend, GlobalSendNotFound | GlobalSendStateConflict | CustomerBusy>
  /** The partner's cross-border sends awaiting the payout partner, newest first. */
  readonly processing: (query: CreatedPageQuery) => Effect.Effect<ReadonlyArray<GlobalSendsRepo.GlobalSendRow>>
}>() {}

const invalid = (violation: { readonly field: string; readonly message: string }) =>
  new InvalidBeneficiary({ message: `${violation.field}: ${violation.message}` })

export const layer = Layer.effect(
  GlobalSends,
  Effect.gen(function*() {
    const repo = yield* GlobalSendsRepo.make
    const clock = yield* ServiceClock
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    const idempotency = yield* Idempotency
    const actors = yield* CustomerActors
    const customers = yield* Customers
    const cursors = yield* Cursors
    const payoutPartners = yield* PayoutPartners
    const submissions = yield* PayoutSubmissions
    const exchange = yield* Exchange
    const bank = yield* Bank
    const enrolments = yield* Enrolments
    const documents = yield* Documents
    const withdrawals = yield* Withdrawals
    const fees = defaultFees

    const load = (customerId: string) => (id: string) =>
      Effect.flatMap(repo.byId(customerId, id), Option.match({
        onNone: () => Effect.dieMessage(`global sends: idempotency key points at a missing send ${id}`),
        onSome: (row) => Effect.succeed(toGlobalSend(row))
      }))

    /** What needs no lock: the corridor, the beneficiary's shape, the purpose (refused before anything else). */
    const checkRequest = (customer: CustomerRow, corridor: Corridor, body: GlobalSendBody) =>
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

    /** The fields every new global send starts with, whatever its corridor. */
    const common = (customer: CustomerRow, corridor: Corridor, body: GlobalSendBody, reference: string, id: string) =>
      Effect.map(clock.now, (now) => ({
        id,
        partnerId: customer.partnerId,
        customerId: customer.id,
        reference,
        corridor: corridor.corridor,
        destinationCountry: corridor.country,
        destinationCurrency: corridor.currency,
        status: "PROCESSING" as const,
        purpose: body.purpose,
        purposeNote: body.purposeNote ?? null,
        failureReason: null,
        createdAt: now,
        updatedAt: now
      }))

    const record = (row: GlobalSendsRepo.NewGlobalSendRow, type: "global_send.initiated" | "global_send.completed" | "global_send.failed") =>
      outbox.record({ partnerId: row.partnerId, customerId: row.customerId, type, data: eventData(toGlobalSend(row)) })

    // ---------------------------------------------------------------------------------------------------------------
    // Cross-border

    const crossBorder = (
      customer: CustomerRow,
      corridor: Corridor,
      body: GlobalSendBody,
      reference: string,
      beneficiary: Readonly<Record<string, unknown>>,
      prices: Option.Option<BigDecimal.BigDecimal>
    ) => (id: string) =>
      Effect.gen(function*() {
        const parsed = parseAmount("USDT", body.amount)
        if (!parsed.ok) return yield* new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, "USDT")}` })
        if (corridor.group !== null) {
          const status = yield* enrolments.groupStatus(customer.id, corridor.group)
          if (status !== "APPROVED") {
            return yield* new GlobalSendNotEnabled({
              message: `The customer is not approved for the ${corridor.group} destination group (status ${status}); ` +
                "complete international verification (POST .../kyc/tier3) and wait for global_send.enabled",
              details: { group: corridor.group, status }
            })
          }
        }
        const sameCountry = corridor.country === customer.country
        const split = splitCrossBorder(fees, corridor, parsed.minor, sameCountry)
        const minimum = minimumAssetOf(fees, corridor)
        if (split.assetAmount < minimum) {
          const minimumAmount = toNumber("USDT", minimumAmountFor(fees, corridor, minimum, sameCountry))
          return yield* new GlobalSendBelowMinimum({
            message: `amount: ${toNumber("USDT", parsed.minor)} USDT leaves ${toNumber("USDT", split.assetAmount)} USDT after the fees ` +
              `(transfer ${toNumber("USDT", split.transferFee)}, payout partner ${toNumber("USDT", split.partnerFee)}); the ` +
              `${corridor.corridor} corridor needs at least ${toNumber("USDT", minimum)} USDT after fees. The smallest amount that works is ` +
              `${minimumAmount} USDT`,
            details: { minimumAmount, asset: "USDT" }
          })
        }
        const fiat = customer.currency as Asset
        const local = Option.isSome(prices)
        const fundingCurrency: Asset = local ? fiat : "USDT"
        const fundingAmount = Option.match(prices, { onNone: () => split.amount, onSome: (rate) => usdtToFiat(split.amount, fiat, rate, "up") })
        const draft: GlobalSendsRepo.NewGlobalSendRow = {
          ...(yield* common(customer, corridor, body, reference, id)),
          asset: "USDT",
          amount: split.amount,
          transferFee: split.transferFee,
          partnerFee: split.partnerFee,
          assetAmount: split.assetAmount,
          settledBy: local ? "LOCAL_CONVERSION" : "USDT_BALANCE",
          fundingCurrency,
          fundingAmount,
          rate: Option.match(prices, { onNone: () => null, onSome: (rate) => BigDecimal.format(BigDecimal.normalize(rate)) }),
          beneficiary,
          reservationId: null,
          withdrawalId: null
        }
        const event = yield* record(draft, "global_send.initiated")
        const reservation = yield* ledger.reserve({
          partnerId: customer.partnerId,
          customerId: customer.id,
          reason: "global_send",
          resourceType: "global_send",
          resourceId: id,
          reference,
          eventId: event.envelope.id,
          currency: fundingCurrency,
          amount: fundingAmount
        })
        const row = yield* repo.insert({ ...draft, reservationId: reservation.id })
        yield* submissions.submitPayout({
          partnerId: row.partnerId,
          customerId: row.customerId,
          payoutId: row.id,
          reference,
          corridor: row.corridor,
          purpose: row.purpose,
          beneficiary: row.beneficiary,
          asset: row.asset,
          assetAmount: row.assetAmount,
          destinationCurrency: row.destinationCurrency
        })
        return toGlobalSend(row)
      })

    // ---------------------------------------------------------------------------------------------------------------
    // Domestic: a withdrawal under the same reference

    /** The beneficiary's account resolved by the bank's name enquiry (outside any transaction). */
    const resolveAccount = (customer: CustomerRow, beneficiary: Readonly<Record<string, unknown>>) =>
      Effect.gen(function*() {
        const bankCode = String(beneficiary.bankCode)
        const accountNumber = String(beneficiary.accountNumber)
        const result = yield* bank.nameEnquiry(customer.country, bankCode, accountNumber).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(nameEnquiryTimeoutMs),
            onTimeout: () => new BankRailUnavailable({ message: "The bank's name enquiry timed out; retry with the same reference" })
          }),
          Effect.catchTag("BankUnavailable", (error) => new BankRailUnavailable({ message: `The bank's name enquiry failed (${error.reason}); retry with the same reference` }))
        )
        switch (result._tag) {
          case "Resolved": {
            // A name the partner gives is checked against the bank's record (the corridor's form says so): the same
            // words in any order, case, accents and spacing aside. Without one, the bank's name is used.
            const given = beneficiary.accountName
            if (typeof given === "string" && nameWords(given) !== nameWords(result.accountName)) {
              return yield* new InvalidBeneficiary({
                message: `beneficiary.accountName: does not match the account holder's name at the bank (${result.accountName}); ` +
                  "send the bank's name or leave accountName out"
              })
            }
            return { bankCode, accountNumber, bankName: result.bankName, accountName: result.accountName }
          }
          case "UnknownBank":
            return yield* new InvalidBeneficiary({ message: `beneficiary.bankCode: no bank with code ${bankCode} in ${customer.country}` })
          case "InvalidAccountNumber":
            return yield* new InvalidBeneficiary({ message: `beneficiary.accountNumber: must be ${result.expected}` })
          case "NotFound":
            return yield* new InvalidBeneficiary({ message: `beneficiary.accountNumber: no account ${accountNumber} at bank ${bankCode}` })
        }
      })

    const domestic = (
      customer: CustomerRow,
      corridor: Corridor,
      body: GlobalSendBody,
      reference: string,
      beneficiary: Readonly<Record<string, unknown>>,
      account: OneOffAccount
    ) => (id: string) =>
      Effect.gen(function*() {
        const withdrawal = yield* withdrawals.payoutTo(customer, { reference, amount: body.amount, account }).pipe(
          Effect.catchTag("WithdrawalBelowMinimum", (error) =>
            new GlobalSendBelowMinimum({
              message: error.message,
              details: { minimumAmount: error.details.minimumAmount, asset: error.details.currency }
            }))
        )
        const draft: GlobalSendsRepo.NewGlobalSendRow = {
          ...(yield* common(customer, corridor, body, reference, id)),
          asset: withdrawal.currency,
          amount: withdrawal.totalDebited,
          transferFee: 0n,
          partnerFee: withdrawal.fee,
          assetAmount: withdrawal.amount,
          settledBy: "LOCAL_BALANCE",
          fundingCurrency: withdrawal.currency,
          fundingAmount: withdrawal.totalDebited,
          rate: null,
          beneficiary: { ...beneficiary, accountName: account.accountName },
          reservationId: null,
          withdrawalId: withdrawal.id
        }
        yield* record(draft, "global_send.initiated")
        return toGlobalSend(yield* repo.insert(draft))
      })

    // ---------------------------------------------------------------------------------------------------------------

    const initiate = (partnerId: string, customerId: string, body: GlobalSendBody) =>
      Effect.gen(function*() {
        const owned = yield* customers.getOwned(partnerId, customerId)
        if (body.reference === "." || body.reference === "..") {
          return yield* new BadRequest({ message: "reference: \".\" and \"..\" cannot name a global send (they are dot segments in its URL)" })
        }
        // A repeated reference answers the original whatever it carries: look it up before any check or rail call.
        if (body.reference !== undefined) {
          const existing = yield* repo.byReference(owned.id, body.reference).pipe(Effect.orDie)
          if (Option.isSome(existing)) return toGlobalSend(existing.value)
        }
        // Outside the customer's transaction: the corridor list, the live rate, the bank's name enquiry.
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
        const account = isDomestic ? Option.some(yield* resolveAccount(owned, beneficiary)) : Option.none()
        return yield* actors.run(partnerId, owned.id, (customer) =>
          Effect.gen(function*() {
            const reference = body.reference ?? (yield* idempotency.generate)
            return yield* idempotency.once(
              { partnerId, endpoint: idempotencyEndpoint, reference, customerId: customer.id },
              (id): Effect.Effect<GlobalSend, InitiateError | SqlError.SqlError> =>
                Option.isSome(account)
                  ? domestic(customer, corridor, body, reference, beneficiary, account.value)(id)
                  : crossBorder(customer, corridor, body, reference, beneficiary, prices)(id),
              load(customer.id)
            )
          }).pipe(Effect.catchTag("SqlError", Effect.die)))
      }).pipe(Effect.withSpan("GlobalSends.initiate"))

    // ---------------------------------------------------------------------------------------------------------------
    // Outcomes

    /** A cross-border send's outcome, its customer locked. */
    const apply = (row: GlobalSendsRepo.GlobalSendRow, outcome: PayoutOutcome) =>
      Effect.gen(function*() {
        if (row.status !== "PROCESSING" || row.reservationId === null) {
          return yield* new GlobalSendStateConflict({
            message: row.reservationId === null
              ? "A domestic global send is settled by its withdrawal's bank payout (/sandbox/withdrawals/{id}/complete or /fail)"
              : `A ${row.status} global send cannot be ${outcome._tag === "Completed" ? "completed" : "failed"}`
          })
        }
        const now = yield* clock.now
        const updated = yield* repo.setStatus(
          row.id,
          outcome._tag === "Completed" ? "COMPLETED" : "FAILED",
          outcome._tag === "Failed" ? outcome.reason : null,
          now
        )
        const event = yield* record(updated, outcome._tag === "Completed" ? "global_send.completed" : "global_send.failed")
        const eventId = event.envelope.id
        const reference = row.reference
        if (outcome._tag === "Failed") {
          yield* ledger.voidReservation({ reservationId: row.reservationId, reason: "global_send_refund", eventId, reference })
          return toGlobalSend(updated)
        }
        const toPartner = row.amount - row.transferFee
        if (row.fundingCurrency === "USDT") {
          const destinations: Array<Ledger.Posting> = [{ account: Ledger.house("payout_settlement", "USDT"), amount: toPartner }]
          if (row.transferFee > 0n) destinations.push({ account: Ledger.house("fee_revenue", "USDT"), amount: row.transferFee })
          yield* ledger.postReservation({ reservationId: row.reservationId, reason: "global_send", eventId, reference, destinations })
        } else {
          // The local currency buys the USDT at the locked rate: the fiat goes to the conversion account, which gives
          // the USDT (our fee to revenue, the rest to the payout partner).
          const fiat = row.fundingCurrency as Asset
          yield* ledger.postReservation({
            reservationId: row.reservationId,
            reason: "global_send",
            eventId,
            reference,
            destinations: [{ account: Ledger.house("fx_conversion", fiat), amount: row.fundingAmount }]
          })
          const postings: Array<Ledger.Posting> = [
            { account: Ledger.house("fx_conversion", "USDT"), amount: -row.amount },
            { account: Ledger.house("payout_settlement", "USDT"), amount: toPartner }
          ]
          if (row.transferFee > 0n) postings.push({ account: Ledger.house("fee_revenue", "USDT"), amount: row.transferFee })
          yield* ledger.post({
            partnerId: row.partnerId,
            customerId: row.customerId,
            reason: "global_send_conversion",
            resourceType: "global_send",
            resourceId: row.id,
            reference,
            eventId,
            postings
          }).pipe(Effect.orDie)
        }
        return toGlobalSend(updated)
      })

    const settleLocked = (partnerId: string, customerId: string, id: string, outcome: PayoutOutcome) =>
      actors.run(partnerId, customerId, () =>
        Effect.gen(function*() {
          const row = yield* repo.lock(id)
          if (Option.isNone(row)) return yield* Effect.dieMessage(`global sends: send ${id} vanished`)
          return yield* apply(row.value, outcome)
        }).pipe(Effect.catchTag("SqlError", Effect.die))).pipe(
          Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("global sends: a send's customer vanished"))
        )

    const settle = (partnerId: string, sendId: string, outcome: PayoutOutcome) =>
      Effect.gen(function*() {
        if (!isUuid(sendId) || !isUuid(partnerId)) return yield* GlobalSendNotFound.standard()
        const found = yield* repo.forPartner(partnerId, sendId.toLowerCase()).pipe(Effect.orDie)
        if (Option.isNone(found)) return yield* GlobalSendNotFound.standard()
        return yield* settleLocked(partnerId, found.value.customerId, found.value.id, outcome)
      })

    const settleByReference = (customer: CustomerRow, reference: string, outcome: PayoutOutcome) =>
      Effect.gen(function*() {
        const found = yield* repo.byReference(customer.id, reference).pipe(Effect.orDie)
        if (Option.isNone(found)) return yield* GlobalSendNotFound.standard()
        return yield* settleLocked(customer.partnerId, customer.id, found.value.id, outcome)
      })

    /** A domestic send follows its withdrawal: completed, failed, or returned by the bank (after completion too). */
    yield* withdrawals.onSettled((withdrawal: WithdrawalRow, move: BankOutcome) =>
      Effect.gen(function*() {
        // Only a one-off account's payout (no saved account) can be a domestic send's: no query for the others.
        if (withdrawal.bankAccountId !== null) return
        const found = yield* repo.byWithdrawal(withdrawal.id).pipe(Effect.orDie)
        if (Option.isNone(found)) return
        const row = found.value
        const status = move._tag === "Completed" ? "COMPLETED" as const : "FAILED" as const
        if (row.status === status) return
        const now = yield* clock.now
        const updated = yield* repo.setStatus(row.id, status, move._tag === "Completed" ? null : move.reason, now).pipe(Effect.orDie)
        yield* record(updated, status === "COMPLETED" ? "global_send.completed" : "global_send.failed").pipe(Effect.orDie)
      }))

    const list = (customer: CustomerRow, page: PageRequest) =>
      paginate(
        { list: "global-sends", partnerId: customer.partnerId, customerId: customer.id },
        page,
        ({ beforeSeq, limit }) => repo.page(customer.id, beforeSeq, limit),
        (row) => String(row.seq)
      ).pipe(
        Effect.map((result) => ({ items: result.items.map(toGlobalSend), nextCursor: result.nextCursor })),
        Effect.provideService(Cursors, cursors),
        Effect.catchTag("SqlError", Effect.die)
      )

    const get = (customer: CustomerRow, reference: string) =>
      Effect.gen(function*() {
        const row = yield* repo.byReference(customer.id, reference).pipe(Effect.orDie)
        if (Option.isNone(row)) return yield* GlobalSendNotFound.standard()
        return toGlobalSend(row.value)
      })

    const processing = (query: CreatedPageQuery) => repo.processing(query).pipe(Effect.orDie)

    return GlobalSends.of({ initiate, list, get, settle, settleByReference, processing })
  })
)
