import { Effect, Layer } from "effect"
import { Bank } from "./Bank.js"
import { Chain } from "./Chain.js"
import { BankRailUnavailable, ChainRailUnavailable, ExchangeRailUnavailable, IdentityRailUnavailable, PayoutRailUnavailable } from "./Errors.js"
import { Exchange } from "./Exchange.js"
import { Identity } from "./Identity.js"
import { PayoutEnrolments, PayoutPartners, PayoutSubmissions } from "./PayoutPartners.js"

/**
 * The adapters of a production deployment that has no live adapter for a rail (and did not opt in to the
 * simulators with SIMULATED_RAILS=true): every operation refuses with the rail's 503, so a request that needs the
 * rail moves nothing and writes nothing (its command's transaction rolls back). Never a simulated outcome.
 */
const bank = Effect.fail(BankRailUnavailable.standard())
const chain = Effect.fail(ChainRailUnavailable.standard())
const identity = Effect.fail(IdentityRailUnavailable.standard())
const exchange = Effect.fail(ExchangeRailUnavailable.standard())
const payout = Effect.fail(PayoutRailUnavailable.standard())

export const bankLayer = Layer.succeed(Bank, Bank.of({
  banks: () => bank,
  nameEnquiry: () => bank,
  issueCollectionAccount: () => bank,
  collectionOpened: () => bank,
  submitPayout: () => bank
}))

export const chainLayer = Layer.succeed(Chain, Chain.of({
  issueDepositAddress: () => chain,
  // Nothing reaches a deposit or a send without an adapter. Every address passes the format check, so a send gets
  // to `broadcast` and answers the rail's 503 (refusing the address would answer 400 INVALID_ADDRESS for any send).
  isValidAddress: () => true,
  isValidTxHash: () => false,
  txHashShape: () => "unknown (no chain adapter is configured)",
  broadcast: () => chain
}))

export const identityLayer = Layer.succeed(Identity, Identity.of({
  lookup: () => identity,
  submitDocumentCheck: () => identity
}))

export const exchangeLayer = Layer.succeed(Exchange, Exchange.of({
  prices: () => exchange,
  execute: () => exchange
}))

/** The payout rail (src/rails/PayoutPartners.ts): corridors, enrolment and payouts. */
export const payoutLayer = Layer.mergeAll(
  Layer.succeed(PayoutPartners, PayoutPartners.of({ corridors: () => payout })),
  Layer.succeed(PayoutEnrolments, PayoutEnrolments.of({ enrol: () => payout })),
  Layer.succeed(PayoutSubmissions, PayoutSubmissions.of({ submitPayout: () => payout }))
)

export const layer = Layer.mergeAll(bankLayer, chainLayer, identityLayer, exchangeLayer, payoutLayer)
