import { Effect } from "effect"
import type { Outbox } from "../events/Events.js"
import type { Ids } from "../ids/Ids.js"
import type { BalanceLimitExceeded } from "../ledger/Errors.js"
import * as Ledger from "../ledger/Ledger.js"
import { toNumber } from "../money/Money.js"
import type { FiatCurrency } from "../reference/Countries.js"
import type { FundingReceipt } from "./Api.js"
import type { FundingRepo, ReceiptRow } from "./FundingRepo.js"

/** The house account that mirrors the collection bank: fiat that arrived there is owed to customers. */
export const bankSettlement = "bank_settlement"

export const toReceipt = (row: ReceiptRow): FundingReceipt => ({
  id: row.id,
  customerId: row.customerId,
  method: row.method,
  chargeId: row.chargeId,
  currency: row.currency,
  amount: toNumber(row.currency, row.amount),
  reference: row.reference,
  narration: row.narration,
  createdAt: row.createdAt
})

export interface FiatArrival {
  readonly partnerId: string
  readonly customerId: string
  readonly method: "virtual_account" | "charge"
  readonly chargeId: string | null
  readonly currency: FiatCurrency
  readonly amount: bigint
  readonly reference: string
  readonly narration: string
  readonly at: Date
}

/**
 * Fiat landed on the customer's balance: the receipt, `funding.received` and the ledger credit (customer available
 * up, house bank_settlement down), in the caller's transaction with the customer row locked. A credit above the
 * customer's maximum balance fails with BalanceLimitExceeded (the caller's transaction then writes nothing).
 */
export const creditFiat = (
  deps: { readonly repo: FundingRepo; readonly outbox: typeof Outbox.Service; readonly ledger: typeof Ledger.Ledger.Service; readonly ids: typeof Ids.Service },
  arrival: FiatArrival
): Effect.Effect<FundingReceipt, BalanceLimitExceeded> =>
  Effect.gen(function*() {
    if (arrival.amount <= 0n) return yield* Effect.dieMessage("funding: a credit must be positive")
    const receipt = yield* deps.repo.insertReceipt({
      id: yield* deps.ids.uuid,
      partnerId: arrival.partnerId,
      customerId: arrival.customerId,
      method: arrival.method,
      chargeId: arrival.chargeId,
      currency: arrival.currency,
      amount: arrival.amount,
      reference: arrival.reference,
      narration: arrival.narration,
      createdAt: arrival.at
    })
    const event = yield* deps.outbox.record({
      partnerId: arrival.partnerId,
      customerId: arrival.customerId,
      type: "funding.received",
      data: {
        customerId: arrival.customerId,
        currency: arrival.currency,
        amount: toNumber(arrival.currency, arrival.amount),
        reference: arrival.reference,
        method: arrival.method
      }
    })
    yield* deps.ledger.post({
      partnerId: arrival.partnerId,
      customerId: arrival.customerId,
      reason: "funding",
      resourceType: arrival.method === "charge" ? "funding_charge" : "funding_receipt",
      resourceId: arrival.chargeId ?? receipt.id,
      reference: arrival.reference,
      eventId: event.envelope.id,
      postings: [
        { account: Ledger.available(arrival.customerId, arrival.currency), amount: arrival.amount },
        { account: Ledger.house(bankSettlement, arrival.currency), amount: -arrival.amount }
      ]
    }).pipe(Effect.catchTag("InsufficientBalance", Effect.die))
    return toReceipt(receipt)
  })
