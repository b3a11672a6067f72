import { Schema } from "effect"
import { destinationGroups } from "../reference/Groups.js"

/**
 * The Tier 3 body's limits and field schemas (src/international/Tier3.ts): trimmed text, calendar dates, country
 * codes, the destination country and the postal address. Pure.
 */

// ---------------------------------------------------------------------------------------------------------------
// Limits

/** At most this many associated persons per business. */
export const associatedPersonsMax = 10
/** A person owning this percentage or more is an owner (docs/contract.md "International verification": 25% or more). */
export const ownerPercentageMin = 25
/** Every person (an individual customer, each associated person) is at least this old on the submission date. */
export const adultAgeYears = 18
/** A date of birth is after this date. */
export const dateOfBirthAfter = "1900-01-01"

// ---------------------------------------------------------------------------------------------------------------
// Field schemas

/**
 * Optional fields are omitted when absent (`null` is refused, as everywhere else). `exact` keeps the schema free of
 * an `undefined` member, so a bad nested value fails with its own path only.
 */
export const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/**
 * Trimmed text, then checked. The JSON Schema is given inline (no `$ref` to a shared `Trim` definition), so that the
 * body's schema stands alone wherever it is embedded (`Tier3Body`'s annotation).
 */
export const trimmed = <A extends string>(checked: Schema.Schema<A, string>, jsonSchema: object) =>
  Schema.Trim.pipe(Schema.compose(checked)).annotations({ jsonSchema: { type: "string", ...jsonSchema } })

/** Trimmed text of 1 to `max` characters. */
export const text = (max: number) => {
  const message = () => `must be 1 to ${max} characters`
  return trimmed(Schema.String.pipe(Schema.minLength(1, { message }), Schema.maxLength(max, { message })), {
    minLength: 1,
    maxLength: max
  })
}

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
const daysInMonth = (year: number, month: number) =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

const isCalendarDate = (value: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

/** A calendar date `YYYY-MM-DD` (kept as the string: a date of birth has no time zone). */
export const CalendarDate = Schema.String.pipe(Schema.filter(isCalendarDate, {
  message: () => "must be a calendar date YYYY-MM-DD",
  jsonSchema: { format: "date" }
}))

/** Every officially assigned ISO 3166-1 alpha-2 code (249). */
export const isoCountryCodes: ReadonlySet<string> = new Set((
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
  "CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
  "GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO " +
  "JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR " +
  "MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO " +
  "RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV " +
  "TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"
).split(" "))

/** Any country (an address's): an ISO 3166-1 alpha-2 code in capitals, e.g. `GB`, not `UK`. */
export const IsoCountryCode = Schema.String.pipe(Schema.filter((code) => isoCountryCodes.has(code), {
  message: () => "must be an ISO 3166-1 alpha-2 country code in capitals (e.g. NG, GB)",
  jsonSchema: { pattern: "^[A-Z]{2}$" }
}))

/** The countries of the destination groups (src/reference/Groups.ts), in the groups' order. */
export const destinationCountries: ReadonlyArray<string> = destinationGroups.flatMap((group) => group.countries)

/**
 * `destinationCountry`: a country of a destination group, which names the group (and so the payout partner) the
 * submission is for.
 */
export const DestinationCountry = Schema.String.pipe(Schema.filter((code) => destinationCountries.includes(code), {
  message: () => `must be a country of a destination group: ${destinationCountries.join(", ")}`,
  jsonSchema: { enum: destinationCountries }
}))

const postalCodePattern = /^[A-Za-z0-9][A-Za-z0-9 -]{0,19}$/

/** A postal address. `country` is any country (where the person lives), not necessarily a destination. */
export const Address = Schema.Struct({
  line1: text(100),
  line2: optional(text(100)),
  city: text(100),
  state: optional(text(100)),
  postalCode: optional(trimmed(
    Schema.String.pipe(Schema.pattern(postalCodePattern, { message: () => "must be 1 to 20 letters, digits, spaces or hyphens" })),
    { pattern: postalCodePattern.source }
  )),
  country: IsoCountryCode
})
export type Address = typeof Address.Type
