import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import { CustomerId, PartnerId, storedId } from "../api/Ids.js"
import { BankAccounts, type PayoutAccount } from "../bankaccounts/BankAccounts.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import { BadRequest, NotFound } from "../api/ApiError.js"
import type { Page } from "../api/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import { ReferenceInUse } from "../ledger/Errors.js"
import { Idempotency } from "../ledger/Idempotency.js"
import { Jobs } from "../jobs/Jobs.js"
import * as Ledger from "../ledger/Ledger.js"
import { describeAmountProblem, parseAmount, toDecimalString, toNumber } from "../money/Money.js"
import { Bank, type PayoutOutcome } from "../rails/Bank.js"
import type { FiatCurrency } from "../reference/Countries.js"
import {
  NoDefaultBankAccount,
  type Withdrawal,
  WithdrawalBelowMinimum,
  type WithdrawalQuote,
  type WithdrawBody
} from "./Api.js"
import { defaultWithdrawalFees, describeFee, type FeeSplit, minimumRequest, splitWithdrawal } from "./Fees.js"
import * as Settlement from "./Settlement.js"
import { eventData, toWithdrawal } from "./View.js"
import * as WithdrawalsRepo from "./WithdrawalsRepo.js"
import { Ids, isUuid } from "../ids/Ids.js"
import type { CreatedPageQuery } from "../db/Rows.js"

export { eventData, toWithdrawal } from "./View.js"

export const idempotencyEndpoint = "withdraw"
export const operatorReversalReason = "Reversed by an operator"


/** A bank account given for one payout: the name enquiry's bank and holder names. */
export interface OneOffAccount {
  readonly bankCode: string
  readonly bankName: string
  readonly accountNumber: string
  readonly accountName: string
}

/**
 * Withdrawals to the customer's default bank account. Submitting reserves the requested amount (available -> held)
 * and hands the payout to the bank rail (`Bank.submitPayout`); the bank's outcome comes back through `settle`, the
 * one entry point for it (a simulator job, a sandbox control or a live adapter's callback), and ends the
 * reservation exactly once: completed posts it (amount to bank_settlement, fee to fee_revenue), failed voids it
 * (the whole total back). A returned payout (the beneficiary bank sends it back, or an operator reverses it) gives
 * the amount back as a new transaction when it had completed (the fee is kept), or voids the reservation when it
 * was still processing (the whole total comes back, as nothing was paid out).
 *
 * A move's followers (the domestic global send) are told in the move's transaction through the `SettledWithdrawals`
 * port, which the app provides.
 */
export class Withdrawals extends Effect.Service<Withdrawals>()("Withdrawals", {
  effect: Effect.gen(function*() {
    const repo = yield* WithdrawalsRepo.WithdrawalsRepo
    const config = yield* AppConfig
    const clock = yield* ServiceClock
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    const idempotency = yield* Idempotency
    const actors = yield* CustomerActors
    const accounts = yield* BankAccounts
    const bank = yield* Bank
    const jobs = yield* Jobs
    const apply = yield* Settlement.make
    const cursors = yield* Cursors
    const ids = yield* Ids
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

    const quote = Command.fn("Withdrawals.quote")((customer: Customer, amount: number) =>
      Effect.map(price(customer.currency, amount), ({ currency, schedule, split }): WithdrawalQuote => ({
        currency,
        amount: toNumber(currency, split.amount),
        fee: toNumber(currency, split.fee),
        totalDebited: toNumber(currency, split.totalDebited),
        feeBps: Number(schedule.feeBps),
        feeFlat: toNumber(currency, schedule.feeFlat)
      })))

    /** The default account read along the claim (`BankAccounts.defaultAlong`), or the refusal when there is none. */
    const defaultAccount = Option.match({
      onNone: () =>
        new NoDefaultBankAccount({ message: "The customer has no default bank account; save one with POST .../accounts first" }),
      onSome: (account: PayoutAccount) => Effect.succeed(account)
    })

    /** The new withdrawal's row before its reservation (PROCESSING from the start). */
    const draftOf = (
      customer: Customer,
      reference: string,
      currency: FiatCurrency,
      split: FeeSplit,
      account: OneOffAccount & { readonly id: string | null },
      id: string,
      now: Date
    ) => ({
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
    })

    /**
     * Records `withdrawal.submitted`, reserves the total, stores the row and hands the payout to the bank rail. The
     * event, the row and the bank rail's job (if its policy runs one) are written by the reservation's journal
     * statement (`Ledger.Carried`, `Jobs.carry`): one statement for the four writes.
     */
    const create = (
      customer: Customer,
      reference: string,
      currency: FiatCurrency,
      split: FeeSplit,
      account: OneOffAccount & { readonly id: string | null }
    ) => (id: string) =>
      Effect.gen(function*() {
        const draft = draftOf(customer, reference, currency, split, account, id, yield* clock.now)
        const event = yield* outbox.prepare({
          partnerId: customer.partnerId,
          customerId: customer.id,
          type: "withdrawal.submitted",
          data: eventData(customer.id, toWithdrawal(draft))
        })
        const row = { ...draft, reservationId: yield* ids.uuid }
        const payout = yield* jobs.carry(
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
        )
        const reservation = yield* ledger.reserve({
          id: row.reservationId,
          partnerId: customer.partnerId,
          customerId: customer.id,
          reason: "withdrawal",
          resourceType: "withdrawal",
          resourceId: id,
          reference,
          eventId: event.id,
          currency,
          amount: split.totalDebited,
          carry: Ledger.carryAll(event.carried, repo.insertCarried(row), payout.carried)
        })
        yield* event.recorded(reservation.carried)
        yield* payout.recorded
        return row
      })

    const load = (customerId: string) => (id: string) =>
      Effect.flatMap(repo.find(customerId, id), Option.match({
        onNone: () => Effect.dieMessage(`withdrawals: idempotency key points at a missing withdrawal ${id}`),
        onSome: (row) => Effect.succeed(toWithdrawal(row))
      }))

    const withdraw = Command.fn("Withdrawals.withdraw")((partnerId: PartnerId, customerId: CustomerId, body: WithdrawBody) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const reference = body.reference ?? (yield* idempotency.generate)
          // Priced only for a new withdrawal: a repeated reference answers the original whatever the fee schedule
          // says now (a retry after a time-out must never read as a refusal of a withdrawal that went through).
          // The default account is read in the claim's statement (one round trip), checked after the price as before.
          return yield* idempotency.answerAlong(
            { partnerId, endpoint: idempotencyEndpoint, reference, customerId: customer.id },
            accounts.defaultAlong(customer.id),
            (id, account) =>
              Effect.gen(function*() {
                const { currency, split } = yield* price(customer.currency, body.amount)
                return toWithdrawal(yield* create(customer, reference, currency, split, yield* defaultAccount(account))(id))
              }),
            load(customer.id)
          )
        })))

    const notFound = () => new NotFound({ message: "No withdrawal with this id" })

    /**
     * The bank's outcome of one of the partner's withdrawals: the one entry point for it. Legal moves: PROCESSING ->
     * COMPLETED | FAILED | REVERSED, COMPLETED -> REVERSED; anything else is WITHDRAWAL_STATE_CONFLICT.
     */
    const settle = Command.fn("Withdrawals.settle")(function*(partnerId: string, withdrawalId: string, outcome: PayoutOutcome) {
      if (!isUuid(withdrawalId)) return yield* notFound()
      const found = yield* repo.findForPartner(partnerId, withdrawalId.toLowerCase())
      if (Option.isNone(found)) return yield* notFound()
      const { customerId, id } = found.value
      return yield* actors.run(storedId(PartnerId, partnerId), storedId(CustomerId, customerId), () =>
        Effect.gen(function*() {
          const row = yield* repo.lock(id)
          if (Option.isNone(row)) return yield* Effect.dieMessage(`withdrawals: withdrawal ${id} vanished`)
          return yield* apply(row.value, outcome)
        })).pipe(
          Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("withdrawals: a withdrawal's customer vanished"))
        )
    })

    const list = Command.fn("Withdrawals.list")(
      (customer: Customer, page: PageRequest) =>
        paginate(
          cursors,
          { list: "withdrawals", partnerId: customer.partnerId, customerId: customer.id },
          page,
          ({ beforeSeq, limit }) => repo.page(customer.id, beforeSeq, limit),
          (row) => String(row.seq)
        ),
      Effect.map((result): Page<Withdrawal> => ({ items: result.items.map(toWithdrawal), nextCursor: result.nextCursor }))
    )

    const get = Command.fn("Withdrawals.get")(function*(customer: Customer, withdrawalId: string) {
      if (!isUuid(withdrawalId)) return yield* notFound()
      const row = yield* repo.find(customer.id, withdrawalId.toLowerCase())
      if (Option.isNone(row)) return yield* notFound()
      return toWithdrawal(row.value)
    })

    /** The partner's withdrawals still PROCESSING (waiting for the bank), newest first by (createdAt, id). */
    const processing = Command.fn("Withdrawals.processing")((query: CreatedPageQuery) =>
      repo.processing(query).pipe(
        Effect.map((rows) => rows.map((row) => ({ customerId: row.customerId, withdrawal: toWithdrawal(row) })))
      ))

    /**
     * A payout to a one-off account (not a saved one) inside the caller's command (the customer locked, in its
     * transaction): the domestic global send's payout. Same fee, minimum, reservation, events and bank rail as
     * `withdraw`; the withdrawal carries `reference`, registered on the withdrawal endpoint too (a later withdrawal
     * with it answers this one). A reference already used by a withdrawal is `ReferenceInUse`.
     */
    const payoutTo = Command.fn("Withdrawals.payoutTo")(
      (customer: Customer, input: { readonly reference: string; readonly amount: number; readonly account: OneOffAccount }) =>
        idempotency.once(
          { partnerId: customer.partnerId, endpoint: idempotencyEndpoint, reference: input.reference, customerId: customer.id },
          (id) =>
            Effect.flatMap(price(customer.currency, input.amount), ({ currency, split }) =>
              create(customer, input.reference, currency, split, { ...input.account, id: null })(id)),
          // A reference already used by a withdrawal: refused, never answered with that withdrawal.
          () => new ReferenceInUse({ message: "reference: already used by a withdrawal of this customer; a global send needs its own" })
        )
    )

    return { quote, withdraw, list, get, settle, payoutTo, processing } as const
  }),
  dependencies: [WithdrawalsRepo.WithdrawalsRepo.Default, BankAccounts.Default, CustomerActors.Default, Ledger.Ledger.Default, Idempotency.Default, Jobs.Default]
}) {}

/** Withdrawals alone: requires the `SettledWithdrawals` port (src/globalsend/FollowWithdrawals.ts implements it). */
export const layer = Withdrawals.Default

