import { Context, Data, type Effect, type Option } from "effect"
import type { BankRailUnavailable } from "./Errors.js"
import type { RailJob } from "./RailJob.js"

/**
 * The bank rail, shaped like a banking-as-a-service provider's API: the bank catalogue of a country, name enquiry,
 * collection accounts (dedicated virtual accounts and the one-off accounts of bank-transfer funding charges) and
 * payouts. Requests go out through this port; outcomes come back later through the domain's settlement entry
 * points (`Withdrawals.settle` for payouts, `FundingCharges.settle` and `VirtualAccounts.credit` for money in),
 * whether from a simulator's job, a sandbox control or a live adapter's callback. docs/rails.md describes it for
 * someone writing a live adapter; test/rails/bank.contract.test.ts is the suite any adapter must pass.
 */
export interface BankInfo {
  readonly code: string
  readonly name: string
}

export type NameEnquiryResult =
  | { readonly _tag: "Resolved"; readonly bankName: string; readonly accountName: string }
  /** The bank code is not a bank of the country. */
  | { readonly _tag: "UnknownBank" }
  /** The number is not shaped like an account number of the country; `expected` says what would be. */
  | { readonly _tag: "InvalidAccountNumber"; readonly expected: string }
  /** The bank has no such account. */
  | { readonly _tag: "NotFound" }

/** Longest a name enquiry may take before it counts as the bank being unavailable. */
export const nameEnquiryTimeoutMs = 10_000

/** The bank did not answer (time-out, outage): nothing happened, the caller may retry. */
export class BankUnavailable extends Data.TaggedError("BankUnavailable")<{ readonly reason: string }> {}

export interface CollectionAccount {
  readonly accountNumber: string
  readonly bankName: string
  readonly bankCode: string
}

export interface CollectionAccountRequest {
  readonly partnerId: string
  readonly customerId: string
  readonly country: string
  /** `virtual_account`: the customer's dedicated account; `charge`: a one-off account of a funding charge. */
  readonly purpose: "virtual_account" | "charge"
}

/** A bank-transfer or EFT funding charge was opened: the provider now waits for the payer's money. */
export interface CollectionOpened {
  readonly partnerId: string
  readonly customerId: string
  readonly chargeId: string
  readonly expiresAt: Date
}

export interface PayoutRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the payout (the withdrawal's id): the outcome names it. */
  readonly payoutId: string
  readonly reference: string
  readonly currency: string
  /** Minor units of `currency`. */
  readonly amount: bigint
  readonly bankCode: string
  readonly accountNumber: string
  readonly accountName: string
}

/** What the bank says about a payout: paid, refused (nothing paid), or paid and later returned by the beneficiary bank. */
export type PayoutOutcome =
  | { readonly _tag: "Completed" }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "Returned"; readonly reason: string }

export interface BankShape {
  /** Banks of a country (empty for a country the provider does not serve). */
  readonly banks: (country: string) => Effect.Effect<ReadonlyArray<BankInfo>, BankRailUnavailable>
  /** Resolves the holder's name of an account. Moves nothing. */
  readonly nameEnquiry: (
    country: string,
    bankCode: string,
    accountNumber: string
  ) => Effect.Effect<NameEnquiryResult, BankUnavailable | BankRailUnavailable>
  /**
   * A fresh collection account number. The caller stores it (a unique index) and asks again if the number
   * collides with one already issued; a number it did not store is simply never used.
   */
  readonly issueCollectionAccount: (request: CollectionAccountRequest) => Effect.Effect<CollectionAccount, BankRailUnavailable>
  /** Called inside the charge's creating transaction. */
  readonly collectionOpened: (charge: CollectionOpened) => Effect.Effect<void, BankRailUnavailable>
  /**
   * Hands a payout to the bank: the job that carries it out (src/rails/RailJob.ts), which the withdrawal's journal
   * statement writes, or none when nothing is to run (a manual sandbox rail: the controls decide). Called inside the
   * withdrawal's creating transaction, before its journal; it writes nothing itself. The outcome comes back through
   * `Withdrawals.settle(payoutId, outcome)`.
   */
  readonly submitPayout: (payout: PayoutRequest) => Effect.Effect<Option.Option<RailJob>, BankRailUnavailable>
}

export class Bank extends Context.Tag("rails/Bank")<Bank, BankShape>() {}
