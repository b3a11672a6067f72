import { Effect } from "effect"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import type { Asset } from "../money/Money.js"
import { toNumber } from "../money/Money.js"
import type { Corridor } from "../reference/Corridors.js"
import type { GlobalSend, GlobalSendBody } from "./Api.js"
import type * as GlobalSendsRepo from "./GlobalSendsRepo.js"

/** The API view of a global send, stored or about to be. */
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

/** Every `global_send.*` event's `data`, exactly the fields docs/global-send.md lists. */
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

export type GlobalSendEventType = "global_send.initiated" | "global_send.completed" | "global_send.failed"

/** A send's event prepared for the journal statement that writes it (`Outbox.prepare`). */
export const makePrepare = Effect.map(Outbox, (outbox) =>
  (row: GlobalSendsRepo.NewGlobalSendRow, type: GlobalSendEventType) =>
    outbox.prepare({ partnerId: row.partnerId, customerId: row.customerId, type, data: eventData(toGlobalSend(row)) }))

/** Records a send's event in the outbox (in the caller's transaction). */
export const makeRecord = Effect.map(Outbox, (outbox) =>
  (row: GlobalSendsRepo.NewGlobalSendRow, type: GlobalSendEventType) =>
    outbox.record({ partnerId: row.partnerId, customerId: row.customerId, type, data: eventData(toGlobalSend(row)) }))

/** The fields every new global send starts with, whatever its corridor. */
export const commonFields = (
  customer: Customer,
  corridor: Corridor,
  body: GlobalSendBody,
  reference: string,
  id: string,
  now: Date
) => ({
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
})
