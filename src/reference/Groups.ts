import { Schema } from "effect"

/**
 * The destination groups of international verification (docs/contract.md "International status", "Registration fee
 * rules"): a customer is enrolled per group with that group's payout partner (Tier 3), and a group covers the
 * countries its partner pays out to. One list, read by the corridors (src/reference/Corridors.ts), the partner fee
 * setting and, later, the enrolment flow. Schemas and constants only: the contract imports this module.
 *
 * - `key`: the stable identifier in requests, responses and events (`?group=<key>`).
 * - `countries`: ISO 3166-1 alpha-2 codes the group's payout partner serves; a corridor of the group pays out to
 *   one of them.
 * - `payoutPartnerName`: the (fictional) payout partner's display name.
 * - `registrationFee`: the one-off fee per customer type, charged once per customer per group when the payout
 *   partner creates the customer ("the amount is read from the group"); amounts are exact decimal strings.
 */
export const destinationGroupKeys = ["americas_europe", "china"] as const

export const DestinationGroupKey = Schema.Literal(...destinationGroupKeys).annotations({
  message: () => `must be one of ${destinationGroupKeys.join(", ")}`
})
export type DestinationGroupKey = typeof DestinationGroupKey.Type

/** A registration fee: an exact decimal amount of USDT (`"3"`), as a group's `registrationFee.amount` (docs/contract.md "International status"). */
export const RegistrationFeeAmount = Schema.Struct({
  amount: Schema.String,
  currency: Schema.Literal("USDT")
})
export type RegistrationFeeAmount = typeof RegistrationFeeAmount.Type

/** The fee per customer type (docs/contract.md "International status": `BUSINESS` for a business, individual otherwise). */
export const RegistrationFees = Schema.Struct({
  individual: RegistrationFeeAmount,
  business: RegistrationFeeAmount
})
export type RegistrationFees = typeof RegistrationFees.Type

export interface DestinationGroup {
  readonly key: DestinationGroupKey
  readonly countries: ReadonlyArray<string>
  readonly payoutPartnerName: string
  readonly registrationFee: RegistrationFees
}

/** docs/contract.md "Registration fee rules" 1: 3 USDT for an individual, 11 USDT for a business. */
const defaultRegistrationFee: RegistrationFees = {
  individual: { amount: "3", currency: "USDT" },
  business: { amount: "11", currency: "USDT" }
}

export const destinationGroups: ReadonlyArray<DestinationGroup> = [
  {
    key: "americas_europe",
    countries: [
      // North America
      "US", "CA", "MX",
      // South America
      "BR", "AR", "CO", "CL", "PE",
      // Europe
      "GB", "DE", "FR", "ES", "IT", "NL", "PT", "IE", "BE", "AT", "SE", "PL"
    ],
    payoutPartnerName: "Meridian Payouts",
    registrationFee: defaultRegistrationFee
  },
  {
    key: "china",
    countries: ["CN"],
    payoutPartnerName: "Silk Road Pay",
    registrationFee: defaultRegistrationFee
  }
]

export const findDestinationGroup = (key: string): DestinationGroup | undefined =>
  destinationGroups.find((group) => group.key === key)

/** The group whose payout partner serves `country`, if any (a country is in one group at most). */
export const destinationGroupOfCountry = (country: string): DestinationGroup | undefined =>
  destinationGroups.find((group) => group.countries.includes(country))
