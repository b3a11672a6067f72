import { Effect } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Outbox } from "../events/Events.js"
import * as Ledger from "../ledger/Ledger.js"
import type { PayoutOutcome } from "../rails/Bank.js"
import { WithdrawalStateConflict } from "./Api.js"
import { SettledWithdrawals } from "./SettledWithdrawals.js"
import { eventData, toWithdrawal } from "./View.js"
import * as WithdrawalsRepo from "./WithdrawalsRepo.js"

const moveTarget = { Completed: "COMPLETED", Failed: "FAILED", Returned: "REVERSED" } as const
const moveEvent = { Completed: "withdrawal.completed", Failed: "withdrawal.failed", Returned: "withdrawal.reversed" } as const

/**
 * The bank's outcome applied to a withdrawal whose customer row is locked (`Withdrawals.settle`'s step): the status
 * and its `withdrawal.*` event, the ledger's side, then the move's followers (`SettledWithdrawals`).
 */
export const make = Effect.gen(function*() {
  const repo = yield* WithdrawalsRepo.WithdrawalsRepo
  const clock = yield* ServiceClock
  const outbox = yield* Outbox
  const ledger = yield* Ledger.Ledger
  const followers = yield* SettledWithdrawals

  /** The ledger's side of a move, after its event: post, void, or give the amount back. */
  const moveMoney = (row: WithdrawalsRepo.WithdrawalRow, move: PayoutOutcome, eventId: string) =>
    Effect.gen(function*() {
      const { amount, currency, fee, reference } = row
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
    })

  /** Applies the bank's outcome to a withdrawal whose customer row is locked, then tells its followers. */
  return (row: WithdrawalsRepo.WithdrawalRow, move: PayoutOutcome) =>
    Effect.gen(function*() {
      const legal = row.status === "PROCESSING" || (row.status === "COMPLETED" && move._tag === "Returned")
      if (!legal) {
        return yield* new WithdrawalStateConflict({
          message: `A ${row.status} withdrawal cannot be moved to ${moveTarget[move._tag]}`
        })
      }
      const updated = yield* repo.setStatus(row.id, moveTarget[move._tag], move._tag === "Completed" ? null : move.reason, yield* clock.now)
      const view = toWithdrawal(updated)
      const event = yield* outbox.record({
        partnerId: row.partnerId,
        customerId: row.customerId,
        type: moveEvent[move._tag],
        data: eventData(row.customerId, view)
      })
      yield* moveMoney(row, move, event.envelope.id)
      yield* followers.settled(updated, move)
      return view
    })
})
