import { ApiError } from "../api/ApiError.js"

/**
 * A rail with no adapter in this deployment (production mode without a live adapter and without
 * SIMULATED_RAILS=true): every route that needs it answers 503 with the rail's own code and nothing is written.
 * Contract-safe (schemas only): the endpoints that need a rail declare its error.
 */
export class BankRailUnavailable extends ApiError("BankRailUnavailable", 503, "BANK_RAIL_UNAVAILABLE") {
  static readonly standard = () =>
    new BankRailUnavailable({ message: "The bank rail is not available in this deployment: no bank adapter is configured" })
}

export class ChainRailUnavailable extends ApiError("ChainRailUnavailable", 503, "CHAIN_RAIL_UNAVAILABLE") {
  static readonly standard = () =>
    new ChainRailUnavailable({ message: "The chain rail is not available in this deployment: no custody adapter is configured" })
}

export class IdentityRailUnavailable extends ApiError("IdentityRailUnavailable", 503, "IDENTITY_RAIL_UNAVAILABLE") {
  static readonly standard = () =>
    new IdentityRailUnavailable({
      message: "The identity rail is not available in this deployment: no identity adapter is configured"
    })
}

export class ExchangeRailUnavailable extends ApiError("ExchangeRailUnavailable", 503, "EXCHANGE_RAIL_UNAVAILABLE") {
  static readonly standard = () =>
    new ExchangeRailUnavailable({ message: "The exchange rail is not available in this deployment: no exchange adapter is configured" })
}

export class PayoutRailUnavailable extends ApiError("PayoutRailUnavailable", 503, "PAYOUT_RAIL_UNAVAILABLE") {
  static readonly standard = () =>
    new PayoutRailUnavailable({
      message: "The payout rail is not available in this deployment: no payout-partner adapter is configured"
    })
}
