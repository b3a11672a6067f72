/**
 * The validation core of the Tier 3 submission, `POST /partner/v1/customers/{customerId}/kyc/tier3` (docs/contract.md
 * "Customers and verification", Tier 3 submission; "International verification"): the body's schemas, the pure
 * rules a decoded body must also pass, the document urls it carries and the re-submission of a refused business.
 * No route, service or storage yet: the enrolment flow wires it (docs/international.md "Tier 3 submission
 * (validation core)" lists the body, every rule in its order and the decisions).
 *
 * Pure and import-safe (effect, the reference data and src/kyc/DocumentFields.ts only), so the contract can import
 * the schemas. A schema failure becomes 400 `BAD_REQUEST` `<path>: <message>` through the server's error mapping
 * (path segments joined by dots: `business.associatedPersons.1.idDocument.number`); a rule violation is
 * `{ field, message }` and the service answers it the same way (`violationMessage`).
 *
 * Split by concern, re-exported here: the limits and field schemas (`Tier3Fields.ts`), the body's schemas
 * (`Tier3Body.ts`), the rules, the document urls and the whole check (`Tier3Rules.ts`).
 */

export {
  Address,
  adultAgeYears,
  associatedPersonsMax,
  CalendarDate,
  dateOfBirthAfter,
  destinationCountries,
  DestinationCountry,
  IsoCountryCode,
  isoCountryCodes,
  ownerPercentageMin
} from "./Tier3Fields.js"
export {
  AssociatedPerson,
  BusinessDetails,
  BusinessProfile,
  BusinessSubmission,
  BusinessType,
  businessTypes,
  IndividualSubmission,
  OwnershipPercentage,
  PersonIdDocument,
  PersonIdDocumentType,
  SourceOfFunds,
  sourcesOfFunds,
  Tier3Body,
  Website
} from "./Tier3Body.js"
export {
  businessDocumentUrls,
  checkBusiness,
  checkDateOfBirth,
  checkDocumentUrls,
  checkIndividual,
  type DocumentReference,
  documentUrls,
  resolveBusiness,
  type Tier3Refusal,
  type Tier3Violation,
  type ValidatedSubmission,
  validateSubmission,
  violationMessage
} from "./Tier3Rules.js"
