import { Context, Effect, Layer, Option, Ref } from "effect"
import { BankAccounts, last4, layer as BankAccountsLayer } from "../bankaccounts/BankAccounts.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import { Outbox } from "../events/Events.js"
import { BadRequest, type CustomerForbidden, type InvalidCursor, NotFound } from "../api/ApiError.js"
import type { Page } from "../api/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import { type BalanceLimitExceeded, type CustomerBusy, type InsufficientBalance, ReferenceInUse } from "../ledger/Errors.js"
import { Idempotency } from "../ledger/Idempotency.js"
import * as Ledger from "../ledger/Ledger.js"
import { describeAmountProblem, parseAmount, toDecimalString, toNumber } from "../money/Money.js"
import { Bank, type PayoutOutcome } from "../rails/Bank.js"
import type { BankRailUnavailable } from "../rails/Errors.js"
import type { FiatCurrency } from "../reference/Countries.js"
import {
  NoDefaultBankAccount,
  type Withdrawal,
  WithdrawalBelowMinimum,
  type WithdrawalQuote,
  WithdrawalStateConflict,
  type WithdrawBody
} from "./Api.js"
import { defaultWithdrawalFees, describeFee, type FeeSplit, minimumRequest, splitWithdrawal } from "./Fees.js"
import * as WithdrawalsRepo from "./WithdrawalsRepo.js"
import { isUuid } from "../ids/Ids.js"
import type { CreatedPageQuery } from "../db/Rows.js"

/**
 * Withdrawals to the customer's default bank account. Submitting reserves the requested amount (available -> held)
 * and hands the payout to the bank rail (`Bank.submitPayout`); the bank's outcome comes back through `settle`, the
 * one entry point for it (a simulator job, a sandbox control or a live adapter's callback), and ends the
 * reservation exactly once: completed posts it (amount to bank_settlement, fee to fee_revenue), failed voids it
 * (the whole total back). A returned payout (the beneficiary bank sends it back, or an operator reverses it) gives
 * the amount back as a new transaction when it had completed (the fee is kept), or voids the reservation when it
 * was still processing (the whole total comes back, as nothing was paid out).
 */
export const idempotencyEndpoint = "withdraw"
export const operatorReversalReason = "Reversed by an operator"


/** The API view of a withdrawal, stored or about to be (a draft has no reservation yet). */
export const toWithdrawal = (row: Omit<WithdrawalsRepo.NewWithdrawalRow, "reservationId">): Withdrawal => ({
  id: row.id,
  reference: row.reference,
  amount: toDecimalString(row.currency, row.amount),
  fee: toDecimalString(row.currency, row.fee),
  totalDebited: toDecimalString(row.currency, row.totalDebited),
  currency: row.currency,
  status: row.status,
  failureReason: row.failureReason,
  bankAccount: { bankName: row.bankName, accountName: row.accountName, accountNumberLast4: last4(row.accountNumber) },
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

/** Every withdrawal event's `data`: the withdrawal object as the API shows it, plus `customerId`. */
export const eventData = (customerId: string, withdrawal: Withdrawal) => ({
  customerId,
  ...withdrawal,
  createdAt: withdrawal.createdAt.toISOString(),
  updatedAt: withdrawal.updatedAt.toISOString()
})

const moveTarget = { Completed: "COMPLETED", Failed: "FAILED", Returned: "REVERSED" } as const
const moveEvent = { Completed: "withdrawal.completed", Failed: "withdrawal.failed", Returned: "withdrawal.reversed" } as const

/** A bank account given for one payout: the name enquiry's bank and holder names. */
export interface OneOffAccount {
  readonly bankCode: string
  readonly bankName: string
  readonly accountNumber: string
  readonly accountName: string
}

export type SettlementListener = (withdrawal: WithdrawalsRepo.WithdrawalRow, move: PayoutOutcome) => Effect.Effect<void>

export class Withdrawals extends Context.Tag("Withdrawals")<Withdrawals, {
  readonly quote: (customer: CustomerRow, amount: number) => Effect.Effect<WithdrawalQuote, BadRequest | WithdrawalBelowMinimum>
  readonly withdraw: (
    partnerId: string,
    customerId: string,
    body: WithdrawBody
  ) => Effect.Effect<
    Withdrawal,
    | BadRequest
    | WithdrawalBelowMinimum
    | NoDefaultBankAccount
    | InsufficientBalance
    | ReferenceInUse
    | CustomerForbidden
    | CustomerBusy
    | BankRailUnavailable
  >
  readonly list: (customer: CustomerRow, page: PageRequest) => Effect.Effect<Page<Withdrawal>, InvalidCursor>
  readonly get: (customer: CustomerRow, withdrawalId: string) => Effect.Effect<Withdrawal, NotFound>
  /**
   * The bank's outcome of one of the partner's withdrawals: the one entry point for it. Legal moves: PROCESSING ->
   * COMPLETED | FAILED | REVERSED, COMPLETED -> REVERSED; anything else is WITHDRAWAL_STATE_CONFLICT.
   */
  readonly settle: (
    partnerId: string,
    withdrawalId: string,
    outcome: PayoutOutcome
  ) => Effect.Effect<Withdrawal, NotFound | WithdrawalStateConflict | CustomerBusy | BalanceLimitExceeded>
  /**
   * A payout to a one-off account (not a saved one) inside the caller's command (the customer locked, in its
   * transaction): the domestic global send's payout. Same fee, minimum, reservation, events and bank rail as
   * `withdraw`; the withdrawal carries `reference`, registered on the withdrawal endpoint too (a later withdrawal
   * with it answers this one). A reference already used by a withdrawal is `ReferenceInUse`.
   */
  readonly payoutTo: (
    customer: CustomerRow,
    input: { readonly reference: string; readonly amount: number; readonly account: OneOffAccount }
  ) => Effect.Effect<WithdrawalsRepo.WithdrawalRow, BadRequest | WithdrawalBelowMinimum | InsufficientBalance | ReferenceInUse | BankRailUnavailable>
  /**
   * Registers a listener of withdrawal moves, called in the move's transaction after its event (the domestic global
   * send follows its withdrawal). Called while layers are built.
   */
  readonly onSettled: (listener: SettlementListener) => Effect.Effect<void>
  /** The partner's withdrawals still PROCESSING (waiting for the bank), newest first by (createdAt, id). */
  readonly processing: (query: CreatedPageQuery) => Effect.Effect<ReadonlyArray<{ readonly customerId: string; readonly withdrawal: Withdrawal }>>
}>() {}

export const layer = Layer.effect(
  Withdrawals,
  Effect.gen(function*() {
    const repo = yield* WithdrawalsRepo.make
    const config = yield* AppConfig
    const clock = yield* ServiceClock
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    const idempotency = yield* Idempotency
    const actors = yield* CustomerActors
    const accounts = yield* BankAccounts
    const bank = yield* Bank
    const cursors = yield* Cursors
    const fees = config.withdrawalFees ?? defaultWithdrawalFees

    /** Parses the request and applies the fee schedule; refuses anything under the minimum. */
    const price = (currency: FiatCurrency, requested: number) =>
      Effect.gen(function*() {
        const schedule = fees[currency]
        if (schedule === undefined) return yield* Effect.dieMessage(`withdrawals: no fee schedule for ${currency}`)
        const parsed = parseAmount(currency, requested)
        if (!parsed.ok) return yield* new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, currency)}` })
        const split = splitWithdrawal(schedule, parsed.minor)
        if (split.amount < schedule.minimumReceipt) {
          const minimum = toDecimalString(currency, minimumRequest(schedule))
          return yield* new WithdrawalBelowMinimum({
            message: `amount: ${currency} ${toDecimalString(currency, parsed.minor)} is below the minimum withdrawal; the bank ` +
              `must receive at least ${currency} ${toDecimalString(currency, schedule.minimumReceipt)} after the fee ` +
              `(${describeFee(currency, schedule)}). The smallest amount that works is ${currency} ${minimum}`,
            details: { minimumAmount: toNumber(currency, minimumRequest(schedule)), currency }
          })
        }
        return { currency, schedule, split }
      })

    const quote = (customer: CustomerRow, amount: number) =>
      Effect.map(price(customer.currency, amount), ({ currency, schedule, split }) => ({
        currency,
        amount: toNumber(currency, split.amount),
        fee: toNumber(currency, split.fee),
        totalDebited: toNumber(currency, split.totalDebited),
        feeBps: Number(schedule.feeBps),
        feeFlat: toNumber(currency, schedule.feeFlat)
      }))

    const listeners = yield* Ref.make<ReadonlyArray<SettlementListener>>([])

    const defaultAccount = (customer: CustomerRow) =>
      Effect.flatMap(accounts.defaultAccount(customer.id), Option.match({
        onNone: () =>
          new NoDefaultBankAccount({ message: "The customer has no default bank account; save one with POST .../accounts first" }),
        onSome: Effect.succeed
      }))

    const create = (
      customer: CustomerRow,
      reference: string,
      currency: FiatCurrency,
      split: FeeSplit,
      account: OneOffAccount & { readonly id: string | null }
    ) => (id: string) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const draft = {
          id,
          partnerId: customer.partnerId,
          customerId: customer.id,
          reference,
          currency,
          amount: split.amount,
          fee: split.fee,
          totalDebited: split.totalDebited,
          status: "PROCESSING" as const,
          failureReason: null,
          bankAccountId: account.id,
          bankCode: account.bankCode,
          bankName: account.bankName,
          accountNumber: account.accountNumber,
          accountName: account.accountName,
          createdAt: now,
          updatedAt: now
        }
        const view = toWithdrawal(draft)
        const event = yield* outbox.record({
          partnerId: customer.partnerId,
          customerId: customer.id,
          type: "withdrawal.submitted",
          data: eventData(customer.id, view)
        })
        const reservation = yield* ledger.reserve({
          partnerId: customer.partnerId,
          customerId: customer.id,
          reason: "withdrawal",
          resourceType: "withdrawal",
          resourceId: id,
          reference,
          eventId: event.envelope.id,
          currency,
          amount: split.totalDebited
        })
        const row = yield* repo.insert({ ...draft, reservationId: reservation.id })
        yield* bank.submitPayout({
          partnerId: row.partnerId,
          customerId: row.customerId,
          payoutId: row.id,
          reference,
          currency,
          amount: split.amount,
          bankCode: row.bankCode,
          accountNumber: row.accountNumber,
          accountName: row.accountName
        })
        return row
      })

    const load = (customerId: string) => (id: string) =>
      Effect.flatMap(repo.find(customerId, id), Option.match({
        onNone: () => Effect.dieMessage(`withdrawals: idempotency key points at a missing withdrawal ${id}`),
        onSome: (row) => Effect.succeed(toWithdrawal(row))
      }))

    const withdraw = (partnerId: string, customerId: string, body: WithdrawBody) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const reference = body.reference ?? (yield* idempotency.generate)
          // Priced only for a new withdrawal: a repeated reference answers the original whatever the fee schedule
          // says now (a retry after a time-out must never read as a refusal of a withdrawal that went through).
          return yield* idempotency.once(
            { partnerId, endpoint: idempotencyEndpoint, reference, customerId: customer.id },
            (id) =>
              Effect.gen(function*() {
                const { currency, split } = yield* price(customer.currency, body.amount)
                return toWithdrawal(yield* create(customer, reference, currency, split, yield* defaultAccount(customer))(id))
              }),
            load(customer.id)
          )
        }).pipe(Effect.catchTag("SqlError", Effect.die)))

    /** Applies the bank's outcome to a withdrawal whose customer row is locked. */
    const apply = (row: WithdrawalsRepo.WithdrawalRow, move: PayoutOutcome) =>
      Effect.gen(function*() {
        const legal = row.status === "PROCESSING" || (row.status === "COMPLETED" && move._tag === "Returned")
        if (!legal) {
          return yield* new WithdrawalStateConflict({
            message: `A ${row.status} withdrawal cannot be moved to ${moveTarget[move._tag]}`
          })
        }
        const { amount, currency, fee } = row
        const updated = yield* repo.setStatus(row.id, moveTarget[move._tag], move._tag === "Completed" ? null : move.reason, yield* clock.now)
        const view = toWithdrawal(updated)
        const event = yield* outbox.record({
          partnerId: row.partnerId,
          customerId: row.customerId,
          type: moveEvent[move._tag],
          data: eventData(row.customerId, view)
        })
        const eventId = event.envelope.id
        const reference = row.reference
        if (move._tag === "Completed") {
          const destinations: Array<Ledger.Posting> = [{ account: Ledger.house("bank_settlement", currency), amount }]
          if (fee > 0n) destinations.push({ account: Ledger.house("fee_revenue", currency), amount: fee })
          yield* ledger.postReservation({ reservationId: row.reservationId, reason: "withdrawal", eventId, reference, destinations })
        } else if (row.status === "PROCESSING") {
          // Failed, or reversed before the bank paid: nothing left the service, the whole total comes back.
          yield* ledger.voidReservation({ reservationId: row.reservationId, reason: "withdrawal_refund", eventId, reference })
        } else {
          // Reversed after completion: the bank returns what it received; the fee stays earned.
          yield* ledger.post({
            partnerId: row.partnerId,
            customerId: row.customerId,
            reason: "withdrawal_refund",
            resourceType: "withdrawal",
            resourceId: row.id,
            reference,
            eventId,
            postings: [
              { account: Ledger.available(row.customerId, currency), amount },
              { account: Ledger.house("bank_settlement", currency), amount: -amount }
            ]
          }).pipe(Effect.catchTag("InsufficientBalance", Effect.die))
        }
        for (const listener of yield* Ref.get(listeners)) yield* listener(updated, move)
        return view
      })

    const notFound = () => new NotFound({ message: "No withdrawal with this id" })

    const settle = (partnerId: string, withdrawalId: string, outcome: PayoutOutcome) =>
      Effect.gen(function*() {
        if (!isUuid(withdrawalId)) return yield* notFound()
        const found = yield* repo.findForPartner(partnerId, withdrawalId.toLowerCase()).pipe(Effect.orDie)
        if (Option.isNone(found)) return yield* notFound()
        const { customerId, id } = found.value
        return yield* actors.run(partnerId, customerId, () =>
          Effect.gen(function*() {
            const row = yield* repo.lock(id)
            if (Option.isNone(row)) return yield* Effect.dieMessage(`withdrawals: withdrawal ${id} vanished`)
            return yield* apply(row.value, outcome)
          }).pipe(Effect.catchTag("SqlError", Effect.die))).pipe(
            Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("withdrawals: a withdrawal's customer vanished"))
          )
      })

    const list = (customer: CustomerRow, page: PageRequest) =>
      paginate({ list: "withdrawals", partnerId: customer.partnerId, customerId: customer.id }, page, ({ beforeSeq, limit }) => repo.page(customer.id, beforeSeq, limit), (row) => String(row.seq)).pipe(
        Effect.map((result) => ({ items: result.items.map(toWithdrawal), nextCursor: result.nextCursor })),
        Effect.provideService(Cursors, cursors),
        Effect.catchTag("SqlError", Effect.die)
      )

    const get = (customer: CustomerRow, withdrawalId: string) =>
      Effect.gen(function*() {
        if (!isUuid(withdrawalId)) return yield* notFound()
        const row = yield* repo.find(customer.id, withdrawalId.toLowerCase()).pipe(Effect.orDie)
        if (Option.isNone(row)) return yield* notFound()
        return toWithdrawal(row.value)
      })

    const processing = (query: CreatedPageQuery) =>
      repo.processing(query).pipe(
        Effect.map((rows) => rows.map((row) => ({ customerId: row.customerId, withdrawal: toWithdrawal(row) }))),
        Effect.orDie
      )

    const payoutTo = (
      customer: CustomerRow,
      input: { readonly reference: string; readonly amount: number; readonly account: OneOffAccount }
    ) =>
      idempotency.once(
        { partnerId: customer.partnerId, endpoint: idempotencyEndpoint, reference: input.reference, customerId: customer.id },
        (id) =>
          Effect.flatMap(price(customer.currency, input.amount), ({ currency, split }) =>
            create(customer, input.reference, currency, split, { ...input.account, id: null })(id)),
        // A reference already used by a withdrawal: refused, never answered with that withdrawal.
        () => new ReferenceInUse({ message: "reference: already used by a withdrawal of this customer; a global send needs its own" })
      ).pipe(Effect.catchTag("SqlError", Effect.die))

    const onSettled = (listener: SettlementListener) => Ref.update(listeners, (all) => [...all, listener])

    return Withdrawals.of({ quote, withdraw, list, get, settle, payoutTo, onSettled, processing })
  })
)

/** Saved bank accounts and withdrawals, wired together (withdrawals pay to the saved default account). */
export const moduleLayer = layer.pipe(Layer.provideMerge(BankAccountsLayer))
