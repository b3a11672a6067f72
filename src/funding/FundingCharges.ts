import * as Command from "../observability/Command.js"
import { Effect, Option, Schema } from "effect"
import { CustomerId, parseId, PartnerId, storedId } from "../api/Ids.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { Outbox } from "../events/Events.js"
import { BadRequest, CustomerForbidden } from "../api/ApiError.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { Ids, isUuid } from "../ids/Ids.js"
import { Jobs } from "../jobs/Jobs.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import { Idempotency } from "../ledger/Idempotency.js"
import { Ledger } from "../ledger/Ledger.js"
import { describeAmountProblem, parseAmount, toNumber } from "../money/Money.js"
import { Partners } from "../partners/Partners.js"
import { Bank } from "../rails/Bank.js"
import { type FundingCharge, FundingChargeNotFound, FundingChargeNotPending, type FundingChargeStatus } from "./Api.js"
import { creditFiat } from "./FundingReceipts.js"
import * as FundingRepo from "./FundingRepo.js"
import { fullName } from "./VirtualAccounts.js"

/** How long a charge can be paid: 30 minutes on the service clock. */
export const chargeLifetimeSeconds = 30 * 60
/** Idempotency scope of `POST .../funding/charge` (and its `.../wallet/funding/charge` alias). */
export const chargeEndpoint = "funding.charge"
export const expireJob = "funding.charge_expire"

const accountAttemptsMax = 5
const tokenPattern = /^[A-Za-z0-9_-]{43}$/
const narrationAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

/** ZAR is collected by instant EFT through a redirect; every other currency by a bank transfer to a one-off account. */
export const chargeTypeOf = (currency: string): "bank_transfer" | "eft" => (currency === "ZAR" ? "eft" : "bank_transfer")

/** A charge past `expiresAt` reads EXPIRED even in the instant before its expiry job has run. */
const effectiveStatus = (row: FundingRepo.ChargeRow, now: Date): FundingChargeStatus =>
  row.status === "PENDING" && now.getTime() >= row.expiresAt.getTime() ? "EXPIRED" : row.status

export const toCharge = (row: FundingRepo.ChargeRow, now: Date): FundingCharge => ({
  id: row.id,
  customerId: row.customerId,
  reference: row.reference,
  type: row.type,
  currency: row.currency,
  amount: toNumber(row.currency, row.amount),
  amountPaid: row.amountPaid === null ? null : toNumber(row.currency, row.amountPaid),
  status: effectiveStatus(row, now),
  accountNumber: row.accountNumber,
  accountName: row.accountName,
  bankName: row.bankName,
  bankCode: row.bankCode,
  narration: row.narration,
  expiresAt: row.expiresAt,
  redirectUrl: row.redirectUrl,
  paidAt: row.paidAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

/** The charge as event data (timestamps as ISO strings). */
export const chargeEventData = (charge: FundingCharge): Record<string, unknown> =>
  JSON.parse(JSON.stringify(charge))

export interface EftOutcome {
  readonly charge: FundingCharge
  readonly partnerName: string
  readonly notice: string | null
}

/**
 * The steps FundingCharges' commands share: opening a charge (its one-off account or EFT redirect, expiry job and
 * the bank's notice), and paying, cancelling or expiring a charge in its customer's command.
 */
const makeSteps = (repo: FundingRepo.FundingRepo) =>
  Effect.gen(function*() {
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const ledger = yield* Ledger
    const jobs = yield* Jobs
    const bank = yield* Bank
    const partners = yield* Partners

    const narration = Effect.map(ids.bytes(10), (bytes) =>
      "FC" + Array.from(bytes, (b) => narrationAlphabet[b % narrationAlphabet.length]).join(""))

    const load = (id: string) =>
      Effect.gen(function*() {
        const row = yield* repo.charge(id)
        if (Option.isNone(row)) return yield* Effect.dieMessage(`funding: charge ${id} vanished`)
        return toCharge(row.value, yield* clock.now)
      })

    const insertNew = (customer: Customer, id: string, reference: string, amount: bigint, eftBaseUrl: string | null) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const type = chargeTypeOf(customer.currency)
        const partnerName = yield* partners.name(customer.partnerId)
        const common = {
          id,
          partnerId: customer.partnerId,
          customerId: customer.id,
          reference,
          type,
          currency: customer.currency,
          amount,
          amountPaid: null,
          status: "PENDING" as const,
          narration: yield* narration,
          expiresAt: new Date(now.getTime() + chargeLifetimeSeconds * 1000),
          paidAt: null,
          createdAt: now,
          updatedAt: now
        }
        if (type === "eft") {
          const token = (yield* ids.bytes(32)).toString("base64url")
          yield* repo.insertCharge({
            ...common,
            accountNumber: null,
            accountName: null,
            bankName: null,
            bankCode: null,
            redirectToken: token,
            redirectUrl: eftBaseUrl === null ? null : `${eftBaseUrl}/${token}`
          })
          return common
        }
        for (let attempt = 0; attempt < accountAttemptsMax; attempt++) {
          const account = yield* bank.issueCollectionAccount({
            partnerId: customer.partnerId,
            customerId: customer.id,
            country: customer.country,
            purpose: "charge"
          })
          const inserted = yield* repo.insertCharge({
            ...common,
            accountNumber: account.accountNumber,
            accountName: `${partnerName} - ${fullName(customer)}`,
            bankName: account.bankName,
            bankCode: account.bankCode,
            redirectToken: null,
            redirectUrl: null
          })
          if (inserted) return common
        }
        return yield* Effect.dieMessage(`funding: no free one-off account number after ${accountAttemptsMax} draws`)
      })

    const createNew = (customer: Customer, id: string, reference: string, amount: bigint, eftBaseUrl: string | null) =>
      Effect.gen(function*() {
        const charge = yield* insertNew(customer, id, reference, amount, eftBaseUrl)
        yield* jobs.schedule({
          kind: expireJob,
          partnerId: customer.partnerId,
          customerId: customer.id,
          runAt: charge.expiresAt,
          payload: { chargeId: id }
        })
        yield* bank.collectionOpened({ partnerId: customer.partnerId, customerId: customer.id, chargeId: id, expiresAt: charge.expiresAt })
        return yield* load(id)
      })

    /** Why a charge cannot take money now, or undefined when it can. */
    const refusal = (row: FundingRepo.ChargeRow, now: Date): FundingChargeNotPending | undefined => {
      const status = effectiveStatus(row, now)
      if (status === "PENDING") return undefined
      const why = status === "EXPIRED"
        ? `it expired at ${row.expiresAt.toISOString()}; the bank returns a late transfer to the sender`
        : status === "CANCELLED"
        ? "the customer cancelled it"
        : "it is already paid"
      return new FundingChargeNotPending({ message: `The funding charge is ${status}: ${why}. Nothing was credited` })
    }

    /** The money arrived: charge PAID and the customer credited, in the caller's transaction (customer locked). */
    const markPaid = (row: FundingRepo.ChargeRow, amount: bigint) =>
      Effect.gen(function*() {
        const at = yield* clock.now
        const paid = yield* repo.markPaid(row.id, amount, at)
        if (Option.isNone(paid)) return yield* Effect.dieMessage(`funding: charge ${row.id} was not PENDING when paid`)
        yield* creditFiat({ repo, outbox, ledger, ids }, {
          partnerId: row.partnerId,
          customerId: row.customerId,
          method: "charge",
          chargeId: row.id,
          currency: row.currency,
          amount,
          reference: row.reference,
          narration: row.narration,
          at
        })
        return toCharge(paid.value, at)
      })

    const close = (row: FundingRepo.ChargeRow, status: "EXPIRED" | "CANCELLED") =>
      Effect.gen(function*() {
        const at = yield* clock.now
        const closed = yield* repo.markClosed(row.id, status, at)
        if (Option.isNone(closed)) return yield* Effect.dieMessage(`funding: charge ${row.id} was not PENDING when closed`)
        const charge = toCharge(closed.value, at)
        yield* outbox.record({
          partnerId: row.partnerId,
          customerId: row.customerId,
          type: status === "EXPIRED" ? "funding.charge_expired" : "funding.charge_cancelled",
          data: chargeEventData(charge)
        })
        return charge
      })

    /** A charge found before its customer was locked, read again inside the command; it cannot vanish meanwhile. */
    const locked = (id: string) =>
      Effect.flatMap(repo.charge(id), Option.match({
        onNone: () => Effect.dieMessage(`funding: charge ${id} vanished`),
        onSome: Effect.succeed
      }))

    const ownedByPartner = (partnerId: string, chargeId: string) =>
      Effect.gen(function*() {
        if (!isUuid(chargeId)) return yield* FundingChargeNotFound.standard()
        const row = yield* repo.chargeOfPartner(partnerId, chargeId.toLowerCase())
        if (Option.isNone(row)) return yield* FundingChargeNotFound.standard()
        return row.value
      })

    /** The paid amount checked against the locked charge: the whole amount unless `amount` says otherwise. */
    const payLocked = (chargeId: string, amount: number | undefined) =>
      Effect.gen(function*() {
        const row = yield* locked(chargeId)
        const refused = refusal(row, yield* clock.now)
        if (refused !== undefined) return yield* refused
        const currency = row.currency
        let minor = row.amount
        if (amount !== undefined) {
          const parsed = parseAmount(currency, amount)
          if (!parsed.ok) return yield* new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, currency)}` })
          if (row.type === "eft" && parsed.minor !== minor) {
            return yield* new BadRequest({ message: "amount: an EFT payment is always exactly the charge amount" })
          }
          minor = parsed.minor
        }
        return yield* markPaid(row, minor)
      })

    const byToken = (token: string) =>
      Effect.gen(function*() {
        if (!tokenPattern.test(token)) return yield* FundingChargeNotFound.standard()
        const row = yield* repo.chargeByToken(token)
        if (Option.isNone(row)) return yield* FundingChargeNotFound.standard()
        return row.value
      })

    /** The customer's choice on the EFT page, applied to the locked charge (a closed one only gets a notice). */
    const decideLocked = (chargeId: string, partnerName: string, action: "authorize" | "cancel") =>
      Effect.gen(function*() {
        const row = yield* locked(chargeId)
        const now = yield* clock.now
        const refused = refusal(row, now)
        if (refused !== undefined) return { charge: toCharge(row, now), partnerName, notice: refused.message }
        const charge = action === "authorize" ? yield* markPaid(row, row.amount) : yield* close(row, "CANCELLED")
        return {
          charge,
          partnerName,
          notice: action === "authorize" ? "Payment authorised. You can close this page." : "Payment cancelled."
        }
      })

    return { load, createNew, close, ownedByPartner, payLocked, byToken, decideLocked } as const
  })

/**
 * One-off funding charges: a bank transfer to a one-off account (or, for ZAR, an instant EFT through a redirect)
 * that credits the customer once paid. A charge expires after `chargeLifetimeSeconds` (its expiry job); the bank
 * rail reports the payment through `settle`, the EFT page through `eftPage` and `eftDecide`.
 */
export class FundingCharges extends Effect.Service<FundingCharges>()("FundingCharges", {
  effect: Effect.gen(function*() {
    const repo = yield* FundingRepo.FundingRepo
    const clock = yield* ServiceClock
    const actors = yield* CustomerActors
    const idempotency = yield* Idempotency
    const jobs = yield* Jobs
    const cursors = yield* Cursors
    const partners = yield* Partners
    const { byToken, close, createNew, decideLocked, load, ownedByPartner, payLocked } = yield* makeSteps(repo)

    /**
     * Opens a charge for the customer (idempotent by `reference`). `eftBaseUrl` is where the EFT page is
     * (`<PUBLIC_BASE_URL>/api/v1/sandbox/eft`); null when there is none (production).
     */
    const create = Command.fn("FundingCharges.create")((
      partnerId: PartnerId,
      customerId: CustomerId,
      input: { readonly amount: number; readonly reference?: string | undefined },
      eftBaseUrl: string | null
    ) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const currency = customer.currency
          const parsed = parseAmount(currency, input.amount)
          if (!parsed.ok) return yield* new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, currency)}` })
          const reference = input.reference ?? (yield* idempotency.generate)
          return yield* idempotency.answer(
            { partnerId, endpoint: chargeEndpoint, reference, customerId: customer.id },
            (id) => createNew(customer, id, reference, parsed.minor, eftBaseUrl),
            load
          )
        }))
    )

    const list = Command.fn("FundingCharges.list")(
      function*(customer: Customer, page: PageRequest) {
        const now = yield* clock.now
        const result = yield* paginate(
          cursors,
          { list: "funding_charges", partnerId: customer.partnerId, customerId: customer.id },
          page,
          ({ beforeSeq, limit }) => repo.chargesPage(customer.id, beforeSeq, limit),
          (row) => String(row.seq)
        )
        return { items: result.items.map((row) => toCharge(row, now)), nextCursor: result.nextCursor }
      }
    )

    const get = Command.fn("FundingCharges.get")(
      function*(customer: Customer, chargeId: string) {
        if (!isUuid(chargeId)) return yield* FundingChargeNotFound.standard()
        const row = yield* repo.charge(chargeId.toLowerCase())
        if (Option.isNone(row) || row.value.customerId !== customer.id) return yield* FundingChargeNotFound.standard()
        return toCharge(row.value, yield* clock.now)
      }
    )

    /**
     * The bank rail's entry point for a charge's payment: the payer's money arrived (the whole amount unless
     * `amount` says otherwise), from a simulator job, the sandbox control or a live bank's callback.
     */
    const settle = Command.fn("FundingCharges.settle")(
      function*(partnerId: string, chargeId: string, amount: number | undefined) {
        const found = yield* ownedByPartner(partnerId, chargeId)
        const result = yield* actors.run(storedId(PartnerId, found.partnerId), storedId(CustomerId, found.customerId), () => payLocked(found.id, amount))
        return result
      },
      Effect.catchTag("CustomerForbidden", Effect.die)
    )

    /** The EFT page: the charge behind a redirect token. */
    const eftPage = Command.fn("FundingCharges.eftPage")(function*(token: string) {
      const row = yield* byToken(token)
      return {
        charge: toCharge(row, yield* clock.now),
        partnerName: yield* partners.name(row.partnerId),
        notice: null
      }
    })

    /** The customer's choice on the EFT page. */
    const eftDecide = Command.fn("FundingCharges.eftDecide")(
      function*(token: string, action: "authorize" | "cancel") {
        const found = yield* byToken(token)
        const partnerName = yield* partners.name(found.partnerId)
        return yield* actors.run(storedId(PartnerId, found.partnerId), storedId(CustomerId, found.customerId), () => decideLocked(found.id, partnerName, action)).pipe(
          // The credit would take the customer over the maximum balance: the command wrote nothing, the charge
          // stays PENDING and the page says why (without the customer's balance).
          Effect.catchTag("BalanceLimitExceeded", () =>
            Effect.map(load(found.id), (charge): EftOutcome => ({
              charge,
              partnerName,
              notice: "This payment cannot be accepted: it would take the account above its maximum balance. Nothing was paid."
            })))
        )
      },
      Effect.catchTag("CustomerForbidden", Effect.die)
    )

    const ChargeJob = Schema.Struct({ chargeId: Schema.UUID })

    /** Runs in the job's transaction; the command joins it after locking the customer (CustomerActors). */
    yield* jobs.register(expireJob, ChargeJob, ({ chargeId }, job) =>
      Option.match(parseId(CustomerId, job.customerId ?? ""), {
        // A job without a (well-formed) customer: refused like a customer the partner does not own.
        onNone: () => Effect.fail(CustomerForbidden.standard()),
        onSome: (customerId) =>
          actors.run(storedId(PartnerId, job.partnerId), customerId, () =>
            Effect.gen(function*() {
              const row = yield* repo.charge(chargeId)
              if (Option.isNone(row) || row.value.status !== "PENDING") return
              yield* close(row.value, "EXPIRED")
            }))
      }), {
      describe: ({ chargeId }) => ({ description: `funding charge ${chargeId} expires unless paid`, resourceId: chargeId })
    })

    /** The partner's charges waiting for the payer (PENDING, not expired), newest first by (createdAt, id). */
    const pending = Command.fn("FundingCharges.pending")(
      function*(query: CreatedPageQuery) {
        const now = yield* clock.now
        return (yield* repo.pendingCharges(query, now)).map((row) => toCharge(row, now))
      }
    )

    return { create, list, get, settle, pending, eftPage, eftDecide } as const
  }),
  dependencies: [FundingRepo.FundingRepo.Default, Outbox.Default, Ledger.Default, CustomerActors.Default, Idempotency.Default, Jobs.Default, Cursors.Default, Partners.Default]
}) {}

export const layer = FundingCharges.Default
