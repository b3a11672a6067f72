import { Either, JSONSchema, ParseResult, Schema } from "effect"
import { DocumentUrl, IdDocumentNumber } from "../kyc/DocumentFields.js"
import { Address, associatedPersonsMax, CalendarDate, DestinationCountry, optional, text, trimmed } from "./Tier3Fields.js"

/**
 * The Tier 3 body's schemas (src/international/Tier3.ts): an individual's submission, a business's (its details,
 * profile and associated persons) and the whole body, dispatched on `customerType`. Pure.
 */

// ---------------------------------------------------------------------------------------------------------------
// Individual

/**
 * An individual's Tier 3 body. `customerType` may be omitted (docs/contract.md "International status": `BUSINESS` marks a business) and decodes to
 * `INDIVIDUAL`. Unknown fields (a `business`, a `customerId`) are ignored.
 */
export const IndividualSubmission = Schema.Struct({
  customerType: Schema.optionalWith(Schema.Literal("INDIVIDUAL"), { exact: true, default: () => "INDIVIDUAL" as const }),
  destinationCountry: optional(DestinationCountry),
  /** The input `DATE_OF_BIRTH`. */
  dateOfBirth: CalendarDate,
  /** The input `ADDRESS`. */
  address: Address,
  /** The input `ADDRESS_PROOF`: an upload (a utility bill, a bank statement) showing `address`. */
  addressProofUrl: optional(DocumentUrl)
})
export type IndividualSubmission = typeof IndividualSubmission.Type

// ---------------------------------------------------------------------------------------------------------------
// Business

export const businessTypes = ["SOLE_PROPRIETORSHIP", "PARTNERSHIP", "LLC", "CORPORATION", "NON_PROFIT", "OTHER"] as const
export const BusinessType = Schema.Literal(...businessTypes)
export type BusinessType = typeof BusinessType.Type

/** Where the business's money comes from: a classification each payout partner maps to its own list. */
export const sourcesOfFunds = [
  "SALES_OF_GOODS_AND_SERVICES",
  "OWNERS_CAPITAL",
  "INVESTMENT_PROCEEDS",
  "BUSINESS_LOANS",
  "GRANTS_AND_DONATIONS",
  "INTERCOMPANY_FUNDS",
  "OTHER"
] as const
export const SourceOfFunds = Schema.Literal(...sourcesOfFunds)
export type SourceOfFunds = typeof SourceOfFunds.Type

/** The identity documents an associated person may give (Tier 2 also takes `VOTERS_CARD`; Tier 3 does not). */
export const PersonIdDocumentType = Schema.Literal("PASSPORT", "NATIONAL_ID", "DRIVERS_LICENSE")

/** An associated person's ID, shaped as Tier 2's `idDocument`. */
export const PersonIdDocument = Schema.Struct({
  type: PersonIdDocumentType,
  number: IdDocumentNumber,
  frontUrl: DocumentUrl,
  backUrl: optional(DocumentUrl)
})

/** A percentage from 0 to 100 with at most 2 decimals (`33.33`), as a JSON number. */
export const OwnershipPercentage = Schema.Number.pipe(Schema.filter(
  (value) => value >= 0 && value <= 100 && /^\d+(\.\d{1,2})?$/.test(String(value)),
  {
    message: () => "must be a number from 0 to 100 with at most 2 decimals",
    jsonSchema: { minimum: 0, maximum: 100, description: "at most 2 decimals" }
  }
))

/**
 * An owner, a control person or both (the rules, not the schema, say a person must be one of them). The flags
 * default to false when omitted.
 */
export const AssociatedPerson = Schema.Struct({
  firstName: text(100),
  lastName: text(100),
  dateOfBirth: CalendarDate,
  address: Address,
  idDocument: PersonIdDocument,
  /** The share of the business the person owns; 25 or more makes the person an owner. */
  ownershipPercentage: optional(OwnershipPercentage),
  /** The person controls the business (a director, an officer, a managing partner). */
  isControlPerson: optional(Schema.Boolean),
  /** The control person's role, e.g. `Director`: required for every control person. */
  title: optional(text(100)),
  canAuthorisePayments: optional(Schema.Boolean),
  /** A control person attests the ownership structure given here, in place of an ownership document. */
  attestOwnershipStructure: optional(Schema.Boolean)
})
export type AssociatedPerson = typeof AssociatedPerson.Type

const registrationNumberPattern = /^[A-Za-z0-9][A-Za-z0-9 ./-]{0,49}$/

/**
 * The registered business (docs/contract.md "International verification": its registered name, number and address are the business profile's). The
 * service keeps no business profile for a customer (a customer is registered with a person's name only), so the
 * profile is carried by the submission, here.
 */
export const BusinessProfile = Schema.Struct({
  registeredName: text(200),
  registrationNumber: trimmed(
    Schema.String.pipe(Schema.pattern(registrationNumberPattern, { message: () => "must be 1 to 50 letters, digits, spaces or . / -" })),
    { pattern: registrationNumberPattern.source }
  ),
  /** The registered address. */
  address: Address
})
export type BusinessProfile = typeof BusinessProfile.Type

/** An absolute http(s) url of a public-looking host (a dot in the name). */
const isWebsite = (value: string): boolean => {
  try {
    const url = new URL(value)
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname.includes(".") && url.username === "" &&
      url.password === ""
  } catch {
    return false
  }
}

export const Website = Schema.String.pipe(
  Schema.maxLength(2048, { message: () => "must be an http or https url of at most 2048 characters" }),
  Schema.filter(isWebsite, {
    message: () => "must be an absolute http or https url, e.g. https://example.com",
    jsonSchema: { format: "uri" }
  })
)

export const BusinessDetails = Schema.Struct({
  businessType: BusinessType,
  /** What the business does, in its own words. */
  description: text(1000),
  /** What the business will use cross-border payouts for, in its own words. */
  accountPurpose: text(500),
  sourceOfFunds: SourceOfFunds,
  /** The customer's own words; required when `sourceOfFunds` is `OTHER` (as a send's `purposeNote`). */
  sourceOfFundsNote: optional(text(500)),
  /** The business's website; without one, `natureOfBusinessDocumentUrl` is required. */
  website: optional(Website),
  /** Certificate of incorporation, registration or partnership deed. */
  formationDocumentUrl: DocumentUrl,
  /** Register of owners or shareholders; required unless a control person attests the ownership structure. */
  ownershipDocumentUrl: optional(DocumentUrl),
  /** An invoice, a contract or a licence showing what the business does; required without a website. */
  natureOfBusinessDocumentUrl: optional(DocumentUrl),
  profile: BusinessProfile,
  associatedPersons: Schema.Array(AssociatedPerson).pipe(
    Schema.minItems(1, { message: () => `must list 1 to ${associatedPersonsMax} persons` }),
    Schema.maxItems(associatedPersonsMax, { message: () => `must list 1 to ${associatedPersonsMax} persons` })
  )
})
export type BusinessDetails = typeof BusinessDetails.Type

/**
 * A business's Tier 3 body. `business` may be omitted only when earlier content is held (a refused business
 * re-submits without it: `resolveBusiness`).
 */
export const BusinessSubmission = Schema.Struct({
  customerType: Schema.Literal("BUSINESS"),
  destinationCountry: optional(DestinationCountry),
  business: optional(BusinessDetails)
})
export type BusinessSubmission = typeof BusinessSubmission.Type

// ---------------------------------------------------------------------------------------------------------------
// The body

const CustomerTypeHead = Schema.Struct({ customerType: optional(Schema.Literal("INDIVIDUAL", "BUSINESS")) })

const bodyMembers = Schema.Union(IndividualSubmission, BusinessSubmission)
const { $schema: _unused, ...bodyJsonSchema } = JSONSchema.make(bodyMembers) as unknown as Record<string, unknown>

type Tier3BodyEncoded = typeof IndividualSubmission.Encoded | typeof BusinessSubmission.Encoded

const isBusinessInput = (input: unknown) =>
  typeof input === "object" && input !== null && (input as { readonly customerType?: unknown }).customerType === "BUSINESS"

/**
 * The whole body: `customerType` `BUSINESS` decodes as `BusinessSubmission`, absent or `INDIVIDUAL` as
 * `IndividualSubmission`, anything else fails on `customerType`. Dispatching on `customerType` first (rather than a
 * plain union, which tries both members) makes a failure name the one field that is wrong for the type sent.
 */
export const Tier3Body: Schema.Schema<Tier3Body, Tier3BodyEncoded> = Schema.declare(
  [IndividualSubmission, BusinessSubmission],
  {
    decode: (individual, business) => (input, options): Either.Either<Tier3Body, ParseResult.ParseIssue> => {
      const head = ParseResult.decodeUnknownEither(CustomerTypeHead)(input, options)
      if (Either.isLeft(head)) return Either.left(head.left)
      return head.right.customerType === "BUSINESS"
        ? ParseResult.decodeUnknownEither(business)(input, options)
        : ParseResult.decodeUnknownEither(individual)(input, options)
    },
    encode: (individual, business) => (input, options): Either.Either<Tier3BodyEncoded, ParseResult.ParseIssue> =>
      isBusinessInput(input)
        ? ParseResult.encodeUnknownEither(business)(input, options)
        : ParseResult.encodeUnknownEither(individual)(input, options)
  },
  {
    description: "An individual's or a business's (customerType BUSINESS) Tier 3 submission",
    jsonSchema: bodyJsonSchema
  }
)
export type Tier3Body = IndividualSubmission | BusinessSubmission
