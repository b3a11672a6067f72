import { Effect } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import * as Ledger from "../ledger/Ledger.js"
import type { Asset } from "../money/Money.js"
import type { PayoutOutcome } from "../rails/PayoutPartners.js"
import { GlobalSendStateConflict } from "./Api.js"
import * as GlobalSendsRepo from "./GlobalSendsRepo.js"
import { makeRecord, toGlobalSend } from "./View.js"

/**
 * A cross-border send's outcome from its payout partner, its customer locked: COMPLETED posts the reservation
 * (through the conversion accounts when it was funded in local currency), FAILED voids it.
 */
export const make = Effect.gen(function*() {
  const repo = yield* GlobalSendsRepo.GlobalSendsRepo
  const clock = yield* ServiceClock
  const ledger = yield* Ledger.Ledger
  const record = yield* makeRecord

  /** The completed send's reservation posted: our fee to revenue, the rest to the payout partner. */
  const postCompleted = (row: GlobalSendsRepo.GlobalSendRow, reservationId: string, eventId: string) =>
    Effect.gen(function*() {
      const reference = row.reference
      const toPartner = row.amount - row.transferFee
      if (row.fundingCurrency === "USDT") {
        const destinations: Array<Ledger.Posting> = [{ account: Ledger.house("payout_settlement", "USDT"), amount: toPartner }]
        if (row.transferFee > 0n) destinations.push({ account: Ledger.house("fee_revenue", "USDT"), amount: row.transferFee })
        yield* ledger.postReservation({ reservationId, reason: "global_send", eventId, reference, destinations })
        return
      }
      // The local currency buys the USDT at the locked rate: the fiat goes to the conversion account, which gives
      // the USDT (our fee to revenue, the rest to the payout partner).
      const fiat = row.fundingCurrency as Asset
      yield* ledger.postReservation({
        reservationId,
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
    })

  return (row: GlobalSendsRepo.GlobalSendRow, outcome: PayoutOutcome) =>
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
      if (outcome._tag === "Failed") {
        yield* ledger.voidReservation({ reservationId: row.reservationId, reason: "global_send_refund", eventId, reference: row.reference })
      } else {
        yield* postCompleted(row, row.reservationId, eventId)
      }
      return toGlobalSend(updated)
    })
})
