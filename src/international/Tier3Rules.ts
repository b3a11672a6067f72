import { Either } from "effect"
import { checkDocumentUrl, notThisCustomersDocument } from "../kyc/DocumentFields.js"
import type { AssociatedPerson, BusinessDetails, IndividualSubmission, Tier3Body } from "./Tier3Body.js"
import { adultAgeYears, associatedPersonsMax, dateOfBirthAfter, ownerPercentageMin } from "./Tier3Fields.js"

/**
 * The rules a decoded Tier 3 body must also pass (src/international/Tier3.ts): the dates of birth, a business's
 * rules, the held business content, the document urls and the whole check in its order. Pure.
 */

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
 * BUSINESS submission (docs/international.md: a refused business may re-submit without `business`, and its earlier content is
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
 * (docs/contract.md "International verification": documents are uploaded first, then their url is passed).
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
