import { Either, JSONSchema, ParseResult, Schema } from "effect"
import { checkDocumentUrl, DocumentUrl, IdDocumentNumber, notThisCustomersDocument } from "../kyc/DocumentFields.js"
import { destinationGroups } from "../reference/Groups.js"

/**
 * The validation core of the Tier 3 submission, `POST /partner/v1/customers/{customerId}/kyc/tier3` (SPEC.md
 * "Customers and verification", Tier 3 submission; "International verification"): the body's schemas, the pure
 * rules a decoded body must also pass, the document urls it carries and the re-submission of a refused business.
 * No route, service or storage yet: the enrolment flow wires it (docs/international.md "Tier 3 submission
 * (validation core)" lists the body, every rule in its order and the decisions).
 *
 * Pure and import-safe (effect, the reference data and src/kyc/DocumentFields.ts only), so the contract can import
 * the schemas. A schema failure becomes 400 `BAD_REQUEST` `<path>: <message>` through the server's error mapping
 * (path segments joined by dots: `business.associatedPersons.1.idDocument.number`); a rule violation is
 * `{ field, message }` and the service answers it the same way (`violationMessage`).
 */

// ---------------------------------------------------------------------------------------------------------------
// Limits

/** At most this many associated persons per business. */
export const associatedPersonsMax = 10
/** A person owning this percentage or more is an owner (SPEC.md: "an owner (25% or more)"). */
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
const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/**
 * Trimmed text, then checked. The JSON Schema is given inline (no `$ref` to a shared `Trim` definition), so that the
 * body's schema stands alone wherever it is embedded (`Tier3Body`'s annotation).
 */
const trimmed = <A extends string>(checked: Schema.Schema<A, string>, jsonSchema: object) =>
  Schema.Trim.pipe(Schema.compose(checked)).annotations({ jsonSchema: { type: "string", ...jsonSchema } })

/** Trimmed text of 1 to `max` characters. */
const text = (max: number) => {
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

// ---------------------------------------------------------------------------------------------------------------
// Individual

/**
 * An individual's Tier 3 body. `customerType` may be omitted (SPEC.md: `BUSINESS` marks a business) and decodes to
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
 * The registered business (SPEC.md: "Registered name, number and address come from the business profile"). The
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

// ---------------------------------------------------------------------------------------------------------------
// Rules

/** A refused submission's first problem: the field (`business.associatedPersons.1.title`) and what it must be. */
export interface Tier3Violation {
  readonly field: string
  readonly message: string
}

/** The refusal's text: `<field>: <message>`, as a schema failure reads. */
export const violationMessage = (violation: Tier3Violation): string => `${violation.field}: ${violation.message}`

const violation = (field: string, message: string): Either.Either<never, Tier3Violation> => Either.left({ field, message })

/** `now`'s calendar date in UTC, `YYYY-MM-DD`. */
const utcDate = (now: Date) => now.toISOString().slice(0, 10)

/**
 * The date-of-birth rules, in order: not in the future, after 1900-01-01, 18 or older on `now`'s UTC date (the
 * 18th birthday counts; a person born on 29 February turns 18 on 1 March of a common year). `dateOfBirth` is a
 * calendar date (the schema).
 */
export const checkDateOfBirth = (field: string, dateOfBirth: string, now: Date): Either.Either<void, Tier3Violation> => {
  const today = utcDate(now)
  if (dateOfBirth > today) return violation(field, "must not be in the future")
  if (dateOfBirth <= dateOfBirthAfter) return violation(field, `must be after ${dateOfBirthAfter}`)
  const year = Number(dateOfBirth.slice(0, 4)) + adultAgeYears
  const eighteenthBirthday = `${String(year).padStart(4, "0")}${dateOfBirth.slice(4)}`
  if (eighteenthBirthday > today) return violation(field, `must be the date of birth of an adult (${adultAgeYears} or older)`)
  return Either.void
}

/** An individual's rules: `dateOfBirth` (checkDateOfBirth). The address and the url shapes are the schema's. */
export const checkIndividual = (
  submission: IndividualSubmission,
  now: Date
): Either.Either<IndividualSubmission, Tier3Violation> =>
  Either.map(checkDateOfBirth("dateOfBirth", submission.dateOfBirth, now), () => submission)

const personField = (index: number, field?: string) =>
  `business.associatedPersons.${index}${field === undefined ? "" : `.${field}`}`

/** Hundredths of a percent, exact for the schema's at-most-2-decimals values. */
const hundredths = (percentage: number | undefined) => Math.round((percentage ?? 0) * 100)

const isOwner = (person: AssociatedPerson) => hundredths(person.ownershipPercentage) >= ownerPercentageMin * 100

/**
 * A business's rules, the first violated one returned, in this order (docs/international.md lists each message):
 *
 * 1. `business.sourceOfFundsNote`: required when `sourceOfFunds` is `OTHER`.
 * 2. `business.associatedPersons`: 1 to 10 persons (also the schema's; checked again for held content).
 * 3. Each person in order, `business.associatedPersons.i`: `.dateOfBirth` (checkDateOfBirth); the person is an
 *    owner (ownershipPercentage 25 or more) or a control person; a control person gives a `.title`;
 *    `.attestOwnershipStructure` true only for a control person.
 * 4. `business.associatedPersons`: the ownership percentages add up to at most 100; at least one control person;
 *    at least one person who can authorise payments.
 * 5. `business.ownershipDocumentUrl`: required unless a control person sets `attestOwnershipStructure` true.
 * 6. `business.natureOfBusinessDocumentUrl`: required when `business.website` is absent.
 */
export const checkBusiness = (business: BusinessDetails, now: Date): Either.Either<BusinessDetails, Tier3Violation> => {
  if (business.sourceOfFunds === "OTHER" && business.sourceOfFundsNote === undefined) {
    return violation("business.sourceOfFundsNote", "is required when sourceOfFunds is OTHER")
  }
  const persons = business.associatedPersons
  if (persons.length < 1 || persons.length > associatedPersonsMax) {
    return violation("business.associatedPersons", `must list 1 to ${associatedPersonsMax} persons`)
  }
  for (const [index, person] of persons.entries()) {
    const dateOfBirth = checkDateOfBirth(personField(index, "dateOfBirth"), person.dateOfBirth, now)
    if (Either.isLeft(dateOfBirth)) return Either.left(dateOfBirth.left)
    const controls = person.isControlPerson === true
    if (!isOwner(person) && !controls) {
      return violation(
        personField(index),
        `must be an owner (ownershipPercentage ${ownerPercentageMin} or more) or a control person (isControlPerson true)`
      )
    }
    if (controls && person.title === undefined) return violation(personField(index, "title"), "is required for a control person")
    if (person.attestOwnershipStructure === true && !controls) {
      return violation(personField(index, "attestOwnershipStructure"), "may be true only for a control person (isControlPerson true)")
    }
  }
  const owned = persons.reduce((sum, person) => sum + hundredths(person.ownershipPercentage), 0)
  if (owned > 100 * 100) {
    return violation("business.associatedPersons", `must have ownership percentages adding up to at most 100 (got ${owned / 100})`)
  }
  if (!persons.some((person) => person.isControlPerson === true)) {
    return violation("business.associatedPersons", "must include a control person (isControlPerson true)")
  }
  if (!persons.some((person) => person.canAuthorisePayments === true)) {
    return violation("business.associatedPersons", "must include a person who can authorise payments (canAuthorisePayments true)")
  }
  const attested = persons.some((person) => person.isControlPerson === true && person.attestOwnershipStructure === true)
  if (business.ownershipDocumentUrl === undefined && !attested) {
    return violation("business.ownershipDocumentUrl", "is required unless a control person sets attestOwnershipStructure true")
  }
  if (business.natureOfBusinessDocumentUrl === undefined && business.website === undefined) {
    return violation("business.natureOfBusinessDocumentUrl", "is required when business.website is absent")
  }
  return Either.right(business)
}

/**
 * The business content to use: the one submitted; without one, the content held from the customer's earlier
 * BUSINESS submission (SPEC.md: "A refused business may re-submit without `business`; the earlier content is
 * used"); without either, 400 `business: is required for a first BUSINESS submission`. What counts as held is the
 * service's (the latest BUSINESS content it accepted for the customer); content sent always replaces it.
 */
export const resolveBusiness = (
  submitted: BusinessDetails | undefined,
  held: BusinessDetails | undefined
): Either.Either<{ readonly business: BusinessDetails; readonly reused: boolean }, Tier3Violation> =>
  submitted !== undefined
    ? Either.right({ business: submitted, reused: false })
    : held !== undefined
    ? Either.right({ business: held, reused: true })
    : violation("business", "is required for a first BUSINESS submission")

// ---------------------------------------------------------------------------------------------------------------
// Documents

/** A document url of a submission and the field that carries it. */
export interface DocumentReference {
  readonly field: string
  readonly url: string
}

/**
 * Every document url of a business's content, in body order: `formationDocumentUrl`, `ownershipDocumentUrl`,
 * `natureOfBusinessDocumentUrl`, then each person's `idDocument.frontUrl` and `idDocument.backUrl`.
 */
export const businessDocumentUrls = (business: BusinessDetails): ReadonlyArray<DocumentReference> => {
  const out: Array<DocumentReference> = [{ field: "business.formationDocumentUrl", url: business.formationDocumentUrl }]
  if (business.ownershipDocumentUrl !== undefined) {
    out.push({ field: "business.ownershipDocumentUrl", url: business.ownershipDocumentUrl })
  }
  if (business.natureOfBusinessDocumentUrl !== undefined) {
    out.push({ field: "business.natureOfBusinessDocumentUrl", url: business.natureOfBusinessDocumentUrl })
  }
  for (const [index, person] of business.associatedPersons.entries()) {
    out.push({ field: personField(index, "idDocument.frontUrl"), url: person.idDocument.frontUrl })
    if (person.idDocument.backUrl !== undefined) {
      out.push({ field: personField(index, "idDocument.backUrl"), url: person.idDocument.backUrl })
    }
  }
  return out
}

/**
 * Every document url the body carries, with its field, in body order (an individual: `addressProofUrl`; a
 * business: `businessDocumentUrls`, none when `business` is omitted). Each must be an upload of this customer
 * (SPEC.md: "Every document is uploaded first with POST .../kyc/documents and its returned url passed").
 */
export const documentUrls = (submission: Tier3Body): ReadonlyArray<DocumentReference> =>
  submission.customerType === "BUSINESS"
    ? submission.business === undefined ? [] : businessDocumentUrls(submission.business)
    : submission.addressProofUrl === undefined
    ? []
    : [{ field: "addressProofUrl", url: submission.addressProofUrl }]

/**
 * The document ids of `references` when every url names a document of `customerId` (checkDocumentUrl, Tier 2's
 * check), else the first that does not: `<field>: is not a document uploaded for this customer` (the service answers
 * it 400 `KYC_DOCUMENT_NOT_FOUND`, as Tier 2, and so it answers an id with no upload behind it).
 */
export const checkDocumentUrls = (
  references: ReadonlyArray<DocumentReference>,
  customerId: string
): Either.Either<ReadonlyArray<DocumentReference & { readonly documentId: string }>, Tier3Violation> => {
  const out: Array<DocumentReference & { readonly documentId: string }> = []
  for (const reference of references) {
    const documentId = checkDocumentUrl(reference.url, customerId)
    if (documentId === undefined) return violation(reference.field, notThisCustomersDocument)
    out.push({ ...reference, documentId })
  }
  return Either.right(out)
}

// ---------------------------------------------------------------------------------------------------------------
// The whole check

/** A refusal of `validateSubmission`, with the code the service answers it with (400 either way). */
export interface Tier3Refusal extends Tier3Violation {
  readonly code: "BAD_REQUEST" | "KYC_DOCUMENT_NOT_FOUND"
}

export type ValidatedSubmission =
  | {
    readonly customerType: "INDIVIDUAL"
    readonly destinationCountry: string | undefined
    readonly individual: IndividualSubmission
    readonly documents: ReadonlyArray<DocumentReference & { readonly documentId: string }>
  }
  | {
    readonly customerType: "BUSINESS"
    readonly destinationCountry: string | undefined
    readonly business: BusinessDetails
    /** True when `business` is the held content (the body had none). */
    readonly reused: boolean
    readonly documents: ReadonlyArray<DocumentReference & { readonly documentId: string }>
  }

/**
 * Everything the body must pass after decoding, in this order: the business content (resolveBusiness), its rules
 * (checkBusiness or checkIndividual, on held content too: today's rules and date), then the document urls of the
 * content used (checkDocumentUrls). The service then looks each `documentId` up among the customer's uploads.
 */
export const validateSubmission = (
  body: Tier3Body,
  context: { readonly customerId: string; readonly held: BusinessDetails | undefined; readonly now: Date }
): Either.Either<ValidatedSubmission, Tier3Refusal> => {
  const badRequest = Either.mapLeft((violation: Tier3Violation): Tier3Refusal => ({ ...violation, code: "BAD_REQUEST" }))
  const notFound = Either.mapLeft((violation: Tier3Violation): Tier3Refusal => ({ ...violation, code: "KYC_DOCUMENT_NOT_FOUND" }))
  if (body.customerType === "BUSINESS") {
    return Either.gen(function*() {
      const { business, reused } = yield* badRequest(resolveBusiness(body.business, context.held))
      yield* badRequest(checkBusiness(business, context.now))
      const documents = yield* notFound(checkDocumentUrls(businessDocumentUrls(business), context.customerId))
      return { customerType: "BUSINESS", destinationCountry: body.destinationCountry, business, reused, documents } as const
    })
  }
  return Either.gen(function*() {
    yield* badRequest(checkIndividual(body, context.now))
    const documents = yield* notFound(checkDocumentUrls(documentUrls(body), context.customerId))
    return { customerType: "INDIVIDUAL", destinationCountry: body.destinationCountry, individual: body, documents } as const
  })
}
