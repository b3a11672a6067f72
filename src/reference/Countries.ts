import { Schema } from "effect"

/**
 * Countries a customer can be registered in, and the fiat currency each decides (docs/contract.md "Overview": "A customer's fiat
 * currency is decided by the customer's country"). Money scales live with the currencies in the money module.
 */
export const supportedCountries = [
  { country: "NG", name: "Nigeria", currency: "NGN", dialCode: "+234" },
  { country: "GH", name: "Ghana", currency: "GHS", dialCode: "+233" },
  { country: "KE", name: "Kenya", currency: "KES", dialCode: "+254" },
  { country: "ZA", name: "South Africa", currency: "ZAR", dialCode: "+27" },
  { country: "UG", name: "Uganda", currency: "UGX", dialCode: "+256" },
  { country: "US", name: "United States", currency: "USD", dialCode: "+1" }
] as const

export type CountryCode = (typeof supportedCountries)[number]["country"]
export type FiatCurrency = (typeof supportedCountries)[number]["currency"]

const codes = supportedCountries.map((c) => c.country) as unknown as readonly [CountryCode, ...Array<CountryCode>]

export const CountryCode = Schema.Literal(...codes).annotations({
  message: () => `must be an ISO 3166-1 alpha-2 code of a supported country: ${codes.join(", ")}`
})

/** The fiat currencies of the supported countries, as a Schema (row decoding, contracts). */
export const FiatCurrency = Schema.Literal(
  ...(supportedCountries.map((c) => c.currency) as unknown as readonly [FiatCurrency, ...Array<FiatCurrency>])
)

export const fiatCurrencyOf = (country: CountryCode): FiatCurrency =>
  supportedCountries.find((c) => c.country === country)!.currency

export const Country = Schema.Struct({
  country: Schema.String,
  name: Schema.String,
  currency: Schema.String,
  dialCode: Schema.String
})
