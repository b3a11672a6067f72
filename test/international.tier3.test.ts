import { HttpServerResponse } from "@effect/platform"
import * as NodeFs from "node:fs"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Either, FastCheck as fc, JSONSchema, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { withPartnerMessages } from "../src/api/Messages.js"
import { normalizeError } from "../src/http/ErrorEnvelope.js"
import {
  type AssociatedPerson,
  type BusinessDetails,
  businessDocumentUrls,
  checkBusiness,
  checkDocumentUrls,
  checkIndividual,
  destinationCountries,
  documentUrls,
  type IndividualSubmission,
  isoCountryCodes,
  resolveBusiness,
  Tier3Body,
  validateSubmission,
  violationMessage
} from "../src/international/Tier3.js"
import { checkDocumentUrl, DocumentUrl, documentUrlOf, parseDocumentUrl } from "../src/kyc/DocumentFields.js"
import { destinationGroups } from "../src/reference/Groups.js"

/**
 * The Tier 3 submission's validation core (src/international/Tier3.ts, docs/international.md "Tier 3 submission
 * (validation core)"): the body's schemas through the server's own error mapping, each rule of checkIndividual and
 * checkBusiness, the order of the first violation, the document urls and the re-submission of a refused business.
 * Pure: no app, no database.
 */

const customerId = "0b7d6f5e-3c2a-4e1f-9a8b-7c6d5e4f3a2b"
const otherCustomerId = "1c8e7a6f-4d3b-4f2a-8b9c-8d7e6f5a4b3c"
const baseUrl = "https://sandbox.example.com"
const docUrl = (n: number, owner = customerId) =>
  documentUrlOf(baseUrl, owner, `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`)

/** The submission date of every test: 15 June 2026, noon UTC. */
const now = new Date("2026-06-15T12:00:00.000Z")

const address = { line1: "12 Marina Road", city: "Lagos", state: "Lagos", postalCode: "101241", country: "NG" }

const individualBody = {
  destinationCountry: "US",
  dateOfBirth: "1990-04-12",
  address,
  addressProofUrl: docUrl(1)
}

const person = (overrides: Partial<Record<keyof AssociatedPerson, unknown>> = {}) => ({
  firstName: "Ada",
  lastName: "Obi",
  dateOfBirth: "1980-01-31",
  address,
  idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: docUrl(20) },
  ownershipPercentage: 60,
  isControlPerson: true,
  title: "Director",
  canAuthorisePayments: true,
  ...overrides
})

const businessContent = (overrides: Record<string, unknown> = {}) => ({
  businessType: "LLC",
  description: "Imports and sells kitchen equipment",
  accountPurpose: "Paying suppliers in the United States and China",
  sourceOfFunds: "SALES_OF_GOODS_AND_SERVICES",
  website: "https://obi-kitchens.example.com",
  formationDocumentUrl: docUrl(10),
  ownershipDocumentUrl: docUrl(11),
  profile: { registeredName: "Obi Kitchens Ltd", registrationNumber: "RC 1234567", address },
  associatedPersons: [
    person(),
    person({
      firstName: "Musa",
      lastName: "Bello",
      idDocument: { type: "NATIONAL_ID", number: "12345678901", frontUrl: docUrl(21), backUrl: docUrl(22) },
      ownershipPercentage: 40,
      isControlPerson: false,
      title: undefined,
      canAuthorisePayments: false
    })
  ],
  ...overrides
})

const businessBody = (overrides: Record<string, unknown> = {}) => ({
  customerType: "BUSINESS",
  destinationCountry: "CN",
  business: businessContent(overrides)
})

/** JSON has no `undefined`: an override of `undefined` removes the field, as a client would. */
const json = <A>(value: A): A => JSON.parse(JSON.stringify(value))

/** Decoded as the endpoint decodes it: with the partner's wording on its nodes (src/api/Messages.ts). */
const decode = Schema.decodeUnknownEither(withPartnerMessages(Tier3Body))

const decoded = (body: unknown) => {
  const result = decode(json(body))
  if (Either.isLeft(result)) throw new Error(ParseResult.TreeFormatter.formatErrorSync(result.left))
  return result.right
}

const decodedBusiness = (overrides: Record<string, unknown> = {}): BusinessDetails => {
  const body = decoded(businessBody(overrides))
  if (body.customerType !== "BUSINESS" || body.business === undefined) throw new Error("not a business")
  return body.business
}

const decodedIndividual = (overrides: Record<string, unknown> = {}): IndividualSubmission => {
  const body = decoded({ ...individualBody, ...overrides })
  if (body.customerType !== "INDIVIDUAL") throw new Error("not an individual")
  return body
}

/**
 * The 400 message the server answers for a body this schema refuses: the decode failure goes through the same
 * formatter and error mapping as an endpoint's payload (HttpApiDecodeError, src/http/ErrorEnvelope.ts).
 */
const refusal = (body: unknown): string => {
  const result = decode(json(body))
  if (Either.isRight(result)) return "accepted"
  const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  const response = normalizeError(
    HttpServerResponse.unsafeJson({ _tag: "HttpApiDecodeError", issues, message: "" }, { status: 400 }),
    { path: "/partner/v1/customers/x/kyc/tier3", timestamp: now }
  )
  if (response.body._tag !== "Uint8Array") throw new Error("no JSON body")
  const envelope = JSON.parse(new TextDecoder().decode(response.body.body))
  expect(envelope).toMatchObject({ statusCode: 400, code: "BAD_REQUEST" })
  return envelope.message
}

const firstViolation = (business: BusinessDetails, at = now) =>
  Either.match(checkBusiness(business, at), { onLeft: violationMessage, onRight: () => "ok" })

/** A decoded business with its persons changed (rules see decoded values; the schema does not run here). */
const withPersons = (persons: ReadonlyArray<Record<string, unknown>>, overrides: Record<string, unknown> = {}) =>
  decodedBusiness({ associatedPersons: persons, ...overrides })

// -------------------------------------------------------------------------------------------------------------
// Schemas

describe("Tier3Body: an individual", () => {
  it("decodes the minimal body, customerType defaulting to INDIVIDUAL; text trimmed; unknown fields ignored", () => {
    expect(decoded({ dateOfBirth: "1990-04-12", address: { line1: " 1 Main ", city: "Accra", country: "GH" } })).toEqual({
      customerType: "INDIVIDUAL",
      dateOfBirth: "1990-04-12",
      address: { line1: "1 Main", city: "Accra", country: "GH" }
    })
    const full = decoded({ ...individualBody, customerType: "INDIVIDUAL", customerId: otherCustomerId, business: { x: 1 } })
    expect(full).toEqual({ customerType: "INDIVIDUAL", ...individualBody })
  })

  it("requires dateOfBirth and address", () => {
    expect(refusal({ address })).toBe("dateOfBirth: is required")
    expect(refusal({ dateOfBirth: "1990-04-12" })).toBe("address: is required")
    expect(refusal({ dateOfBirth: "1990-04-12", address: { city: "Lagos", country: "NG" } })).toBe("address.line1: is required")
    expect(refusal({ dateOfBirth: "1990-04-12", address: { line1: "1", country: "NG" } })).toBe("address.city: is required")
    expect(refusal({ dateOfBirth: "1990-04-12", address: { line1: "1", city: "Lagos" } })).toBe("address.country: is required")
  })

  it("takes dateOfBirth as a calendar date YYYY-MM-DD", () => {
    for (const bad of ["1990-02-30", "2023-02-29", "1900-02-29", "1990-13-01", "1990-00-10", "1990-4-12", "12/04/1990", "1990-04-12T00:00:00Z", ""]) {
      expect(refusal({ ...individualBody, dateOfBirth: bad }), bad).toBe("dateOfBirth: must be a calendar date YYYY-MM-DD")
    }
    expect(refusal({ ...individualBody, dateOfBirth: 19900412 })).toBe("dateOfBirth: must be a string (got 19900412)")
    for (const good of ["2000-02-29", "1996-02-29", "1990-12-31"]) expect(refusal({ ...individualBody, dateOfBirth: good })).toBe("accepted")
  })

  it("checks the address fields", () => {
    const withAddress = (changes: Record<string, unknown>) => refusal({ ...individualBody, address: { ...address, ...changes } })
    expect(withAddress({ line1: "   " })).toBe("address.line1: must be 1 to 100 characters")
    expect(withAddress({ line1: "x".repeat(101) })).toBe("address.line1: must be 1 to 100 characters")
    expect(withAddress({ city: "" })).toBe("address.city: must be 1 to 100 characters")
    expect(withAddress({ line2: "" })).toBe("address.line2: must be 1 to 100 characters")
    expect(withAddress({ state: null })).toBe("address.state: must be a string (got null)")
    expect(withAddress({ postalCode: "10124#" })).toBe("address.postalCode: must be 1 to 20 letters, digits, spaces or hyphens")
    expect(withAddress({ postalCode: "SW1A 1AA" })).toBe("accepted")
    expect(withAddress({ line2: "Flat 4", postalCode: "94105-1234", country: "US" })).toBe("accepted")
  })

  it("takes address.country as an ISO 3166-1 alpha-2 code in capitals", () => {
    for (const bad of ["UK", "ng", "NGA", "XK", "ZZ", ""]) {
      expect(refusal({ ...individualBody, address: { ...address, country: bad } }), bad)
        .toBe("address.country: must be an ISO 3166-1 alpha-2 country code in capitals (e.g. NG, GB)")
    }
    expect(isoCountryCodes.size).toBe(249)
    for (const code of isoCountryCodes) expect(code).toMatch(/^[A-Z]{2}$/)
    for (const good of ["GB", "NG", "CN", "US", "AX"]) expect(refusal({ ...individualBody, address: { ...address, country: good } })).toBe("accepted")
  })

  it("takes destinationCountry only from a destination group", () => {
    expect(destinationCountries).toEqual(destinationGroups.flatMap((group) => group.countries))
    for (const country of destinationCountries) expect(refusal({ ...individualBody, destinationCountry: country }), country).toBe("accepted")
    const message = `destinationCountry: must be a country of a destination group: ${destinationCountries.join(", ")}`
    for (const bad of ["NG", "KE", "us", "XX", "ZA"]) expect(refusal({ ...individualBody, destinationCountry: bad }), bad).toBe(message)
    expect(refusal({ ...individualBody, destinationCountry: undefined })).toBe("accepted")
  })

  it("takes addressProofUrl only as a document url", () => {
    expect(refusal({ ...individualBody, addressProofUrl: "https://example.com/bill.pdf" }))
      .toBe("addressProofUrl: must be a document url returned by POST .../kyc/documents")
    expect(refusal({ ...individualBody, addressProofUrl: `${docUrl(1)}/` }))
      .toBe("addressProofUrl: must be a document url returned by POST .../kyc/documents")
  })
})

describe("Tier3Body: customerType and the body", () => {
  it("refuses another customerType, naming only customerType", () => {
    expect(refusal({ ...individualBody, customerType: "COMPANY" })).toBe(`customerType: must be one of INDIVIDUAL, BUSINESS (got "COMPANY")`)
    expect(refusal({ customerType: "business" })).toBe(`customerType: must be one of INDIVIDUAL, BUSINESS (got "business")`)
  })

  it("refuses a body that is not a JSON object", () => {
    expect(refusal(null)).toBe("request body is required and must be a JSON object")
    expect(refusal([])).toBe("request body must be a JSON object (got [])")
  })

  it("decodes by customerType: a BUSINESS body is not asked for an individual's fields, and the other way round", () => {
    expect(refusal({ customerType: "BUSINESS" })).toBe("accepted")
    expect(refusal({ customerType: "INDIVIDUAL", business: businessContent() })).toBe("dateOfBirth: is required; address: is required") // every missing field at once
    expect(refusal({ ...businessBody(), business: { ...businessContent(), associatedPersons: "x" } }))
      .toBe(`business.associatedPersons: must be an array (got "x")`)
  })

  it("documents itself as one standalone JSON Schema that accepts the bodies it decodes", () => {
    const { $schema: _draft, ...schema } = JSONSchema.make(Tier3Body) as unknown as Record<string, unknown>
    expect(JSON.stringify(schema)).not.toContain("$ref")
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false })
    addFormats.default(ajv)
    const validate = ajv.compile(schema)
    for (const body of [individualBody, { customerType: "BUSINESS" }, businessBody(), businessBody({ website: undefined, natureOfBusinessDocumentUrl: docUrl(12) })]) {
      expect(validate(json(body)), JSON.stringify(validate.errors)).toBe(true)
    }
    fc.assert(fc.property(validBusinessBody, (body) => {
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true)
    }), { numRuns: 50 })
    expect(validate({ customerType: "COMPANY" })).toBe(false)
    expect(validate({ ...individualBody, destinationCountry: "NG" })).toBe(false)
  })

  it("encodes what it decodes", () => {
    for (const body of [individualBody, { customerType: "BUSINESS" }, businessBody()]) {
      const value = decoded(body)
      expect(Schema.encodeSync(Tier3Body)(value)).toEqual(value)
      expect(decoded(Schema.encodeSync(Tier3Body)(value))).toEqual(value)
    }
  })
})

describe("Tier3Body: a business", () => {
  it("decodes a complete business", () => {
    const body = decoded(businessBody())
    expect(body).toEqual(json(businessBody()))
  })

  it("requires each business field", () => {
    for (const field of ["businessType", "description", "accountPurpose", "sourceOfFunds", "formationDocumentUrl", "profile", "associatedPersons"]) {
      expect(refusal(businessBody({ [field]: undefined })), field).toBe(`business.${field}: is required`)
    }
    expect(refusal({ customerType: "BUSINESS", business: null })).toBe("business: must be a JSON object (got null)")
  })

  it("takes businessType and sourceOfFunds from their lists", () => {
    expect(refusal(businessBody({ businessType: "LLP" })))
      .toBe(`business.businessType: must be one of SOLE_PROPRIETORSHIP, PARTNERSHIP, LLC, CORPORATION, NON_PROFIT, OTHER (got "LLP")`)
    expect(refusal(businessBody({ sourceOfFunds: "SAVINGS" }))).toBe(
      `business.sourceOfFunds: must be one of SALES_OF_GOODS_AND_SERVICES, OWNERS_CAPITAL, INVESTMENT_PROCEEDS, BUSINESS_LOANS, GRANTS_AND_DONATIONS, INTERCOMPANY_FUNDS, OTHER (got "SAVINGS")`
    )
  })

  it("bounds the texts", () => {
    expect(refusal(businessBody({ description: " " }))).toBe("business.description: must be 1 to 1000 characters")
    expect(refusal(businessBody({ accountPurpose: "x".repeat(501) }))).toBe("business.accountPurpose: must be 1 to 500 characters")
    expect(refusal(businessBody({ sourceOfFundsNote: "" }))).toBe("business.sourceOfFundsNote: must be 1 to 500 characters")
  })

  it("takes website as an absolute http(s) url", () => {
    for (const bad of ["obi-kitchens.example.com", "ftp://obi.example.com", "https://localhost", "https://user:pw@obi.example.com", ""]) {
      expect(refusal(businessBody({ website: bad })), bad).toBe("business.website: must be an absolute http or https url, e.g. https://example.com")
    }
    expect(refusal(businessBody({ website: "http://obi.example.com/about" }))).toBe("accepted")
  })

  it("takes every document field only as a document url", () => {
    const message = "must be a document url returned by POST .../kyc/documents"
    for (const field of ["formationDocumentUrl", "ownershipDocumentUrl", "natureOfBusinessDocumentUrl"]) {
      expect(refusal(businessBody({ [field]: "https://example.com/doc.pdf" }))).toBe(`business.${field}: ${message}`)
    }
    const badFront = person({ idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: "x" } })
    expect(refusal(businessBody({ associatedPersons: [badFront] }))).toBe(`business.associatedPersons.0.idDocument.frontUrl: ${message}`)
    const badBack = person({ idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: docUrl(20), backUrl: 5 } })
    expect(refusal(businessBody({ associatedPersons: [badBack] }))).toBe("business.associatedPersons.0.idDocument.backUrl: must be a string (got 5)")
  })

  it("requires the profile's registered name, number and address", () => {
    const profile = { registeredName: "Obi Kitchens Ltd", registrationNumber: "RC 1234567", address }
    for (const field of ["registeredName", "registrationNumber", "address"]) {
      expect(refusal(businessBody({ profile: { ...profile, [field]: undefined } }))).toBe(`business.profile.${field}: is required`)
    }
    expect(refusal(businessBody({ profile: { ...profile, registrationNumber: "RC#1" } })))
      .toBe("business.profile.registrationNumber: must be 1 to 50 letters, digits, spaces or . / -")
    expect(refusal(businessBody({ profile: { ...profile, registrationNumber: "12-3456789" } }))).toBe("accepted")
    expect(refusal(businessBody({ profile: { ...profile, address: { ...address, country: "UK" } } })))
      .toBe("business.profile.address.country: must be an ISO 3166-1 alpha-2 country code in capitals (e.g. NG, GB)")
  })

  it("lists 1 to 10 associated persons", () => {
    expect(refusal(businessBody({ associatedPersons: [] }))).toBe("business.associatedPersons: must list 1 to 10 persons")
    const eleven = Array.from({ length: 11 }, () => person({ ownershipPercentage: 0 }))
    expect(refusal(businessBody({ associatedPersons: eleven }))).toBe("business.associatedPersons: must list 1 to 10 persons")
    expect(refusal(businessBody({ associatedPersons: eleven.slice(0, 10) }))).toBe("accepted")
  })

  it("requires each person's names, date of birth, address and ID", () => {
    for (const field of ["firstName", "lastName", "dateOfBirth", "address", "idDocument"]) {
      expect(refusal(businessBody({ associatedPersons: [person(), person({ [field]: undefined })] })), field)
        .toBe(`business.associatedPersons.1.${field}: is required`)
    }
    expect(refusal(businessBody({ associatedPersons: [person({ dateOfBirth: "1980-02-30" })] })))
      .toBe("business.associatedPersons.0.dateOfBirth: must be a calendar date YYYY-MM-DD")
  })

  it("takes an ID of PASSPORT, NATIONAL_ID or DRIVERS_LICENSE with Tier 2's number rule", () => {
    const withId = (idDocument: Record<string, unknown>) =>
      refusal(businessBody({ associatedPersons: [person({ idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: docUrl(20), ...idDocument } })] }))
    expect(withId({ type: "VOTERS_CARD" }))
      .toBe(`business.associatedPersons.0.idDocument.type: must be one of PASSPORT, NATIONAL_ID, DRIVERS_LICENSE (got "VOTERS_CARD")`)
    expect(withId({ number: "12" })).toBe("business.associatedPersons.0.idDocument.number: must be 5 to 20 letters or digits")
    expect(withId({ frontUrl: undefined })).toBe("business.associatedPersons.0.idDocument.frontUrl: is required")
    expect(withId({ type: "DRIVERS_LICENSE" })).toBe("accepted")
  })

  it("takes ownershipPercentage from 0 to 100 with at most 2 decimals, as a JSON number", () => {
    const withShare = (share: unknown) => refusal(businessBody({ associatedPersons: [person({ ownershipPercentage: share })] }))
    const message = "business.associatedPersons.0.ownershipPercentage: must be a number from 0 to 100 with at most 2 decimals"
    for (const bad of [-1, 100.01, 33.333, 101, 0.001]) expect(withShare(bad), String(bad)).toBe(message)
    expect(withShare("50")).toBe(`business.associatedPersons.0.ownershipPercentage: must be a JSON number (got "50")`)
    for (const good of [0, 0.01, 25, 33.33, 99.99, 100]) expect(withShare(good), String(good)).toBe("accepted")
  })

  it("takes the flags as booleans and title as text", () => {
    for (const flag of ["isControlPerson", "canAuthorisePayments", "attestOwnershipStructure"]) {
      expect(refusal(businessBody({ associatedPersons: [person({ [flag]: "yes" })] })))
        .toBe(`business.associatedPersons.0.${flag}: must be true or false (got "yes")`)
    }
    expect(refusal(businessBody({ associatedPersons: [person({ title: " " })] })))
      .toBe("business.associatedPersons.0.title: must be 1 to 100 characters")
  })
})

// -------------------------------------------------------------------------------------------------------------
// Rules

describe("checkIndividual: dateOfBirth", () => {
  const check = (dateOfBirth: string, at = now) =>
    Either.match(checkIndividual(decodedIndividual({ dateOfBirth }), at), { onLeft: violationMessage, onRight: () => "ok" })

  it("accepts an adult and answers the submission unchanged", () => {
    const individual = decodedIndividual()
    expect(checkIndividual(individual, now)).toEqual(Either.right(individual))
  })

  it("refuses a date in the future", () => {
    expect(check("2026-06-16")).toBe("dateOfBirth: must not be in the future")
    expect(check("2090-01-01")).toBe("dateOfBirth: must not be in the future")
  })

  it("refuses a date on or before 1900-01-01", () => {
    expect(check("1900-01-01")).toBe("dateOfBirth: must be after 1900-01-01")
    expect(check("1899-12-31")).toBe("dateOfBirth: must be after 1900-01-01")
    expect(check("1900-01-02")).toBe("ok")
  })

  it("refuses a minor: 18 on the submission's UTC date counts", () => {
    expect(check("2008-06-15")).toBe("ok")
    expect(check("2008-06-16")).toBe("dateOfBirth: must be the date of birth of an adult (18 or older)")
    expect(check("2026-06-15")).toBe("dateOfBirth: must be the date of birth of an adult (18 or older)")
    // 23:30 in Lagos on 14 June is 22:30 UTC on 14 June: still 17.
    expect(check("2008-06-15", new Date("2026-06-14T22:30:00.000Z"))).toBe("dateOfBirth: must be the date of birth of an adult (18 or older)")
  })

  it("makes a person born on 29 February 18 on 1 March of a common year", () => {
    expect(check("2008-02-29", new Date("2026-02-28T12:00:00Z"))).toBe("dateOfBirth: must be the date of birth of an adult (18 or older)")
    expect(check("2008-02-29", new Date("2026-03-01T00:00:00Z"))).toBe("ok")
    expect(check("2004-02-29", new Date("2022-02-28T12:00:00Z"))).toBe("dateOfBirth: must be the date of birth of an adult (18 or older)")
    expect(check("2004-02-29", new Date("2022-03-01T00:00:00Z"))).toBe("ok")
  })

  it("holds for any date: accepted exactly when after 1900-01-01 and at least 18 years before the submission", () => {
    const day = 86_400_000
    const start = Date.UTC(1880, 0, 1)
    fc.assert(fc.property(fc.integer({ min: 0, max: Math.floor((Date.UTC(2030, 0, 1) - start) / day) }), (offset) => {
      const dateOfBirth = new Date(start + offset * day).toISOString().slice(0, 10)
      const [y, m, d] = dateOfBirth.split("-").map(Number) as [number, number, number]
      const birthday18 = new Date(Date.UTC(y + 18, m - 1, d)) // 29 Feb rolls over to 1 Mar
      const adult = birthday18.getTime() <= Date.UTC(2026, 5, 15)
      const expected = dateOfBirth > "1900-01-01" && adult
      expect(check(dateOfBirth) === "ok", dateOfBirth).toBe(expected)
    }), { numRuns: 500 })
  })
})

describe("checkBusiness: one test per rule", () => {
  it("accepts the complete business and answers it unchanged", () => {
    const business = decodedBusiness()
    expect(checkBusiness(business, now)).toEqual(Either.right(business))
  })

  it("requires sourceOfFundsNote when sourceOfFunds is OTHER", () => {
    expect(firstViolation(decodedBusiness({ sourceOfFunds: "OTHER" })))
      .toBe("business.sourceOfFundsNote: is required when sourceOfFunds is OTHER")
    expect(firstViolation(decodedBusiness({ sourceOfFunds: "OTHER", sourceOfFundsNote: "Proceeds of a sale of land" }))).toBe("ok")
  })

  it("lists 1 to 10 persons (also for content that did not come through the schema)", () => {
    const business = decodedBusiness()
    expect(firstViolation({ ...business, associatedPersons: [] })).toBe("business.associatedPersons: must list 1 to 10 persons")
    const eleven = Array.from({ length: 11 }, () => ({ ...business.associatedPersons[0]!, ownershipPercentage: 0 }))
    expect(firstViolation({ ...business, associatedPersons: eleven })).toBe("business.associatedPersons: must list 1 to 10 persons")
    expect(firstViolation({ ...business, associatedPersons: eleven.slice(0, 10) })).toBe("ok")
  })

  it("requires each person's date of birth to be an adult's, after 1900-01-01 and not in the future", () => {
    const second = (dateOfBirth: string) => firstViolation(withPersons([person(), person({ ownershipPercentage: 0, dateOfBirth })]))
    expect(second("2027-01-01")).toBe("business.associatedPersons.1.dateOfBirth: must not be in the future")
    expect(second("1900-01-01")).toBe("business.associatedPersons.1.dateOfBirth: must be after 1900-01-01")
    expect(second("2010-05-05")).toBe("business.associatedPersons.1.dateOfBirth: must be the date of birth of an adult (18 or older)")
    expect(second("2008-06-15")).toBe("ok")
  })

  it("refuses a person who is neither an owner (25% or more) nor a control person", () => {
    const neither = person({ ownershipPercentage: 24.99, isControlPerson: false, title: undefined, canAuthorisePayments: false })
    expect(firstViolation(withPersons([person({ ownershipPercentage: 50 }), neither]))).toBe(
      "business.associatedPersons.1: must be an owner (ownershipPercentage 25 or more) or a control person (isControlPerson true)"
    )
    const noShare = person({ ownershipPercentage: undefined, isControlPerson: undefined, title: undefined })
    expect(firstViolation(withPersons([noShare]))).toContain("business.associatedPersons.0: must be an owner")
    expect(firstViolation(withPersons([person({ ownershipPercentage: 50 }), { ...neither, ownershipPercentage: 25 }]))).toBe("ok")
    expect(firstViolation(withPersons([person({ ownershipPercentage: undefined })]))).toBe("ok")
  })

  it("requires a title of every control person", () => {
    expect(firstViolation(withPersons([person(), person({ ownershipPercentage: 0, title: undefined })])))
      .toBe("business.associatedPersons.1.title: is required for a control person")
    expect(firstViolation(withPersons([person({ title: undefined })]))).toBe("business.associatedPersons.0.title: is required for a control person")
    // An owner who is not a control person may give a title or not.
    const owner = person({ ownershipPercentage: 30, isControlPerson: false, canAuthorisePayments: false })
    expect(firstViolation(withPersons([person({ ownershipPercentage: 30 }), owner, { ...owner, title: undefined }]))).toBe("ok")
  })

  it("lets only a control person attest the ownership structure", () => {
    const owner = person({ ownershipPercentage: 40, isControlPerson: false, title: undefined, attestOwnershipStructure: true })
    expect(firstViolation(withPersons([person(), owner], { ownershipDocumentUrl: undefined })))
      .toBe("business.associatedPersons.1.attestOwnershipStructure: may be true only for a control person (isControlPerson true)")
    expect(firstViolation(withPersons([person(), { ...owner, attestOwnershipStructure: false }]))).toBe("ok")
  })

  it("requires the ownership percentages to add up to at most 100", () => {
    expect(firstViolation(withPersons([person({ ownershipPercentage: 60 }), person({ ownershipPercentage: 40.01 })])))
      .toBe("business.associatedPersons: must have ownership percentages adding up to at most 100 (got 100.01)")
    expect(firstViolation(withPersons([person({ ownershipPercentage: 33.33 }), person({ ownershipPercentage: 33.33 }), person({ ownershipPercentage: 33.34 })])))
      .toBe("ok")
    expect(firstViolation(withPersons([person({ ownershipPercentage: 100 })]))).toBe("ok")
  })

  it("requires at least one control person", () => {
    const owner = person({ ownershipPercentage: 50, isControlPerson: false, title: undefined })
    expect(firstViolation(withPersons([owner, { ...owner, canAuthorisePayments: false }])))
      .toBe("business.associatedPersons: must include a control person (isControlPerson true)")
  })

  it("requires at least one person who can authorise payments", () => {
    expect(firstViolation(withPersons([person({ canAuthorisePayments: false }), person({ ownershipPercentage: 0, canAuthorisePayments: undefined })])))
      .toBe("business.associatedPersons: must include a person who can authorise payments (canAuthorisePayments true)")
    // The one who authorises need not be a control person.
    const owner = person({ ownershipPercentage: 40, isControlPerson: false, title: undefined, canAuthorisePayments: true })
    expect(firstViolation(withPersons([person({ canAuthorisePayments: false }), owner]))).toBe("ok")
  })

  it("requires ownershipDocumentUrl unless a control person attests the ownership structure", () => {
    expect(firstViolation(decodedBusiness({ ownershipDocumentUrl: undefined })))
      .toBe("business.ownershipDocumentUrl: is required unless a control person sets attestOwnershipStructure true")
    const attesting = person({ attestOwnershipStructure: true })
    expect(firstViolation(withPersons([attesting], { ownershipDocumentUrl: undefined }))).toBe("ok")
    expect(firstViolation(withPersons([person({ attestOwnershipStructure: false })], { ownershipDocumentUrl: undefined })))
      .toBe("business.ownershipDocumentUrl: is required unless a control person sets attestOwnershipStructure true")
  })

  it("requires natureOfBusinessDocumentUrl when there is no website", () => {
    expect(firstViolation(decodedBusiness({ website: undefined })))
      .toBe("business.natureOfBusinessDocumentUrl: is required when business.website is absent")
    expect(firstViolation(decodedBusiness({ website: undefined, natureOfBusinessDocumentUrl: docUrl(12) }))).toBe("ok")
    expect(firstViolation(decodedBusiness({ natureOfBusinessDocumentUrl: docUrl(12) }))).toBe("ok")
  })
})

describe("checkBusiness: the first violation, in the documented order", () => {
  it("reports the rules one at a time, in order, as each is fixed", () => {
    const minor = person({ dateOfBirth: "2015-01-01", ownershipPercentage: 70, isControlPerson: false, title: undefined, canAuthorisePayments: false })
    const neither = person({ ownershipPercentage: 10, isControlPerson: false, title: undefined, canAuthorisePayments: false })
    const untitled = person({ ownershipPercentage: 0, title: undefined, canAuthorisePayments: false })
    const attestingOwner = person({ ownershipPercentage: 40, isControlPerson: false, title: undefined, canAuthorisePayments: false, attestOwnershipStructure: true })
    let content: Record<string, unknown> = {
      sourceOfFunds: "OTHER",
      website: undefined,
      ownershipDocumentUrl: undefined,
      associatedPersons: [minor, neither, untitled, attestingOwner]
    }
    const fixes: Array<[string, Record<string, unknown>]> = [
      ["business.sourceOfFundsNote: is required when sourceOfFunds is OTHER", { sourceOfFundsNote: "Savings of the owners" }],
      ["business.associatedPersons.0.dateOfBirth: must be the date of birth of an adult (18 or older)", {
        associatedPersons: [{ ...minor, dateOfBirth: "1985-03-03" }, neither, untitled, attestingOwner]
      }],
      ["business.associatedPersons.1: must be an owner (ownershipPercentage 25 or more) or a control person (isControlPerson true)", {
        associatedPersons: [{ ...minor, dateOfBirth: "1985-03-03" }, { ...neither, ownershipPercentage: 30 }, untitled, attestingOwner]
      }],
      ["business.associatedPersons.2.title: is required for a control person", {
        associatedPersons: [{ ...minor, dateOfBirth: "1985-03-03" }, { ...neither, ownershipPercentage: 30 }, { ...untitled, title: "Secretary" }, attestingOwner]
      }],
      ["business.associatedPersons.3.attestOwnershipStructure: may be true only for a control person (isControlPerson true)", {
        associatedPersons: [{ ...minor, dateOfBirth: "1985-03-03" }, { ...neither, ownershipPercentage: 30 }, { ...untitled, title: "Secretary" }, { ...attestingOwner, attestOwnershipStructure: undefined }]
      }],
      ["business.associatedPersons: must have ownership percentages adding up to at most 100 (got 140)", {
        associatedPersons: [{ ...minor, dateOfBirth: "1985-03-03", ownershipPercentage: 30 }, { ...neither, ownershipPercentage: 30 }, { ...untitled, title: "Secretary" }, { ...attestingOwner, attestOwnershipStructure: undefined }]
      }]
    ]
    for (const [expected, fix] of fixes) {
      expect(firstViolation(decodedBusiness(content))).toBe(expected)
      content = { ...content, ...fix }
    }
    // Now: every person valid, 100% owned; the set rules and the documents remain.
    const persons = content.associatedPersons as Array<Record<string, unknown>>
    const noControl = persons.map((p) => ({ ...p, isControlPerson: false, title: undefined, ownershipPercentage: 25 }))
    expect(firstViolation(decodedBusiness({ ...content, associatedPersons: noControl })))
      .toBe("business.associatedPersons: must include a control person (isControlPerson true)")
    expect(firstViolation(decodedBusiness(content)))
      .toBe("business.associatedPersons: must include a person who can authorise payments (canAuthorisePayments true)")
    content = { ...content, associatedPersons: persons.map((p, i) => (i === 2 ? { ...p, canAuthorisePayments: true } : p)) }
    expect(firstViolation(decodedBusiness(content)))
      .toBe("business.ownershipDocumentUrl: is required unless a control person sets attestOwnershipStructure true")
    content = { ...content, ownershipDocumentUrl: docUrl(11) }
    expect(firstViolation(decodedBusiness(content))).toBe("business.natureOfBusinessDocumentUrl: is required when business.website is absent")
    content = { ...content, natureOfBusinessDocumentUrl: docUrl(12) }
    expect(firstViolation(decodedBusiness(content))).toBe("ok")
  })

  it("checks the persons in their order: the first person's problem is reported before a later one's", () => {
    const untitled = person({ title: undefined })
    const minor = person({ dateOfBirth: "2012-01-01", ownershipPercentage: 0 })
    expect(firstViolation(withPersons([untitled, minor]))).toBe("business.associatedPersons.0.title: is required for a control person")
    expect(firstViolation(withPersons([minor, untitled])))
      .toBe("business.associatedPersons.0.dateOfBirth: must be the date of birth of an adult (18 or older)")
  })
})

// -------------------------------------------------------------------------------------------------------------
// Generated businesses

const dayMs = 86_400_000
/** An adult's date of birth on `now`: from 1900-01-02 to 2008-06-15. */
const adultDateOfBirth = fc.integer({ min: 0, max: Math.floor((Date.UTC(2008, 5, 15) - Date.UTC(1900, 0, 2)) / dayMs) })
  .map((offset) => new Date(Date.UTC(1900, 0, 2) + offset * dayMs).toISOString().slice(0, 10))
const generatedDocUrl = fc.uuid().map((id) => documentUrlOf(baseUrl, customerId, id))
const name = fc.constantFrom("Ada", "Musa", "Chen", "Maria", "Kwame", "Ana-Lucia", "O'Brien")

/** A valid business body (JSON, before decoding) with 1 to 10 persons of every legal mix of roles. */
const validBusinessBody = fc.gen().map((g) => {
  const count = g(fc.integer, { min: 1, max: 10 })
  const owners = g(fc.integer, { min: 0, max: Math.min(4, count) })
  const shareMax = owners === 0 ? 0 : Math.floor(10_000 / owners)
  const persons = Array.from({ length: count }, (_, i) => {
    const owner = i < owners
    const control = owner ? g(fc.boolean) : true
    const idDocument = {
      type: g(fc.constantFrom, "PASSPORT", "NATIONAL_ID", "DRIVERS_LICENSE"),
      number: g(fc.stringMatching, /^[A-Z0-9]{5,20}$/),
      frontUrl: g(() => generatedDocUrl),
      ...(g(fc.boolean) ? { backUrl: g(() => generatedDocUrl) } : {})
    }
    return {
      firstName: g(() => name),
      lastName: g(() => name),
      dateOfBirth: g(() => adultDateOfBirth),
      address: { line1: `${i + 1} High Street`, city: "London", country: g(fc.constantFrom, "GB", "NG", "US", "CN") },
      idDocument,
      ...(owner ? { ownershipPercentage: g(fc.integer, { min: 2500, max: shareMax }) / 100 } : {}),
      ...(control ? { isControlPerson: true, title: g(fc.constantFrom, "Director", "CEO", "Partner") } : g(fc.boolean) ? { isControlPerson: false } : {}),
      ...(g(fc.boolean) ? { canAuthorisePayments: g(fc.boolean) } : {}),
      ...(control && g(fc.boolean) ? { attestOwnershipStructure: g(fc.boolean) } : {})
    }
  })
  // The shuffle keeps owners from always coming first.
  const shuffled = g(fc.shuffledSubarray, persons, { minLength: count, maxLength: count }) as Array<Record<string, unknown>>
  if (!shuffled.some((p) => p.isControlPerson === true)) Object.assign(shuffled[0]!, { isControlPerson: true, title: "Director" })
  if (!shuffled.some((p) => p.canAuthorisePayments === true)) shuffled[g(fc.integer, { min: 0, max: count - 1 })]!.canAuthorisePayments = true
  const attested = shuffled.some((p) => p.isControlPerson === true && p.attestOwnershipStructure === true)
  const website = g(fc.boolean)
  const sourceOfFunds = g(fc.constantFrom, "SALES_OF_GOODS_AND_SERVICES", "OWNERS_CAPITAL", "INVESTMENT_PROCEEDS", "BUSINESS_LOANS", "GRANTS_AND_DONATIONS", "INTERCOMPANY_FUNDS", "OTHER")
  return {
    customerType: "BUSINESS",
    ...(g(fc.boolean) ? { destinationCountry: g(fc.constantFrom, ...destinationCountries) } : {}),
    business: {
      businessType: g(fc.constantFrom, "SOLE_PROPRIETORSHIP", "PARTNERSHIP", "LLC", "CORPORATION", "NON_PROFIT", "OTHER"),
      description: "Trades goods",
      accountPurpose: "Supplier payments",
      sourceOfFunds,
      ...(sourceOfFunds === "OTHER" || g(fc.boolean) ? { sourceOfFundsNote: "In the customer's words" } : {}),
      ...(website ? { website: "https://business.example.com" } : {}),
      formationDocumentUrl: g(() => generatedDocUrl),
      ...(!attested || g(fc.boolean) ? { ownershipDocumentUrl: g(() => generatedDocUrl) } : {}),
      ...(!website || g(fc.boolean) ? { natureOfBusinessDocumentUrl: g(() => generatedDocUrl) } : {}),
      profile: { registeredName: "Generated Ltd", registrationNumber: "RC 42", address },
      associatedPersons: shuffled
    }
  }
})

const generatedBusiness = (body: unknown): BusinessDetails => {
  const value = decoded(body)
  if (value.customerType !== "BUSINESS" || value.business === undefined) throw new Error("not a business")
  return value.business
}

/** The value at a rule's field path (`business.associatedPersons.1.idDocument.frontUrl`). */
const valueAt = (root: unknown, field: string): unknown =>
  field.split(/\.|\[(\d+)\]/).filter((part) => part !== undefined && part !== "").reduce<any>((value, key) => value?.[key], root)

describe("generated businesses", () => {
  it("every valid business decodes, passes every rule and validates whole", () => {
    fc.assert(fc.property(validBusinessBody, (body) => {
      const business = generatedBusiness(body)
      expect(firstViolation(business)).toBe("ok")
      const validated = validateSubmission(decoded(body), { customerId, held: undefined, now })
      expect(Either.isRight(validated)).toBe(true)
    }), { numRuns: 300 })
  })

  it("removing a control person's title always fails with that person's title", () => {
    fc.assert(fc.property(validBusinessBody, fc.nat(), (body, pick) => {
      const business = generatedBusiness(body)
      const controls = business.associatedPersons.flatMap((p, i) => (p.isControlPerson === true ? [i] : []))
      const index = controls[pick % controls.length]!
      const { title: _title, ...untitled } = business.associatedPersons[index]!
      const persons = business.associatedPersons.map((p, i) => (i === index ? untitled : p))
      expect(firstViolation({ ...business, associatedPersons: persons }))
        .toBe(`business.associatedPersons.${index}.title: is required for a control person`)
    }), { numRuns: 200 })
  })

  it("making any person neither owner nor control person always fails on that person", () => {
    fc.assert(fc.property(validBusinessBody, fc.nat(), fc.integer({ min: 0, max: 2499 }), (body, pick, share) => {
      const business = generatedBusiness(body)
      const index = pick % business.associatedPersons.length
      const persons = business.associatedPersons.map((p, i) =>
        i === index ? { ...p, isControlPerson: false, attestOwnershipStructure: false, ownershipPercentage: share / 100 } : p)
      expect(firstViolation({ ...business, associatedPersons: persons })).toBe(
        `business.associatedPersons.${index}: must be an owner (ownershipPercentage 25 or more) or a control person (isControlPerson true)`
      )
    }), { numRuns: 200 })
  })

  it("without an ownership document and no attestation, always fails on ownershipDocumentUrl", () => {
    fc.assert(fc.property(validBusinessBody, (body) => {
      const business = generatedBusiness(body)
      const { ownershipDocumentUrl: _dropped, ...rest } = business
      const persons = business.associatedPersons.map((p) => ({ ...p, attestOwnershipStructure: false }))
      expect(firstViolation({ ...rest, associatedPersons: persons }))
        .toBe("business.ownershipDocumentUrl: is required unless a control person sets attestOwnershipStructure true")
    }), { numRuns: 200 })
  })

  it("a minor anywhere is reported at that person (when no earlier person has a problem)", () => {
    fc.assert(fc.property(validBusinessBody, fc.nat(), (body, pick) => {
      const business = generatedBusiness(body)
      const index = pick % business.associatedPersons.length
      const persons = business.associatedPersons.map((p, i) => (i === index ? { ...p, dateOfBirth: "2010-10-10" } : p))
      expect(firstViolation({ ...business, associatedPersons: persons }))
        .toBe(`business.associatedPersons.${index}.dateOfBirth: must be the date of birth of an adult (18 or older)`)
    }), { numRuns: 100 })
  })

  it("documentUrls lists every document url once, each under the field that carries it", () => {
    fc.assert(fc.property(validBusinessBody, (body) => {
      const submission = decoded(body)
      const references = documentUrls(submission)
      const business = generatedBusiness(body)
      const expectedCount = 1 + (business.ownershipDocumentUrl === undefined ? 0 : 1) +
        (business.natureOfBusinessDocumentUrl === undefined ? 0 : 1) +
        business.associatedPersons.reduce((n, p) => n + 1 + (p.idDocument.backUrl === undefined ? 0 : 1), 0)
      expect(references).toHaveLength(expectedCount)
      expect(new Set(references.map((r) => r.field)).size).toBe(expectedCount)
      for (const reference of references) expect(valueAt(submission, reference.field), reference.field).toBe(reference.url)
      expect(references).toEqual(businessDocumentUrls(business))
    }), { numRuns: 200 })
  })
})

// -------------------------------------------------------------------------------------------------------------
// Documents

describe("document urls", () => {
  it("an individual carries addressProofUrl, or nothing", () => {
    expect(documentUrls(decodedIndividual())).toEqual([{ field: "addressProofUrl", url: docUrl(1) }])
    expect(documentUrls(decodedIndividual({ addressProofUrl: undefined }))).toEqual([])
  })

  it("a business lists its documents in body order; a business body without business lists none", () => {
    expect(documentUrls(decoded(businessBody())).map((r) => r.field)).toEqual([
      "business.formationDocumentUrl",
      "business.ownershipDocumentUrl",
      "business.associatedPersons.0.idDocument.frontUrl",
      "business.associatedPersons.1.idDocument.frontUrl",
      "business.associatedPersons.1.idDocument.backUrl"
    ])
    expect(documentUrls(decoded({ customerType: "BUSINESS" }))).toEqual([])
  })

  it("checkDocumentUrls answers each document id, or the first url that is not this customer's", () => {
    const references = documentUrls(decoded(businessBody()))
    const checked = checkDocumentUrls(references, customerId)
    expect(Either.getOrThrow(checked).map((r) => r.documentId)).toEqual([
      "00000000-0000-4000-8000-000000000010",
      "00000000-0000-4000-8000-000000000011",
      "00000000-0000-4000-8000-000000000020",
      "00000000-0000-4000-8000-000000000021",
      "00000000-0000-4000-8000-000000000022"
    ])
    const foreign = documentUrls(decoded(businessBody({ ownershipDocumentUrl: docUrl(11, otherCustomerId) })))
    expect(checkDocumentUrls(foreign, customerId)).toEqual(Either.left({
      field: "business.ownershipDocumentUrl",
      message: "is not a document uploaded for this customer"
    }))
    // The customer id in the url is compared without case (as Tier 2).
    expect(Either.isRight(checkDocumentUrls([{ field: "addressProofUrl", url: docUrl(1, customerId.toUpperCase()) }], customerId))).toBe(true)
  })

  it("the url shape is Tier 2's: built, parsed and checked in one place (src/kyc/DocumentFields.ts)", () => {
    fc.assert(fc.property(fc.uuid(), fc.uuid(), fc.constantFrom("https://api.example.com", "http://localhost:3000"), (owner, documentId, base) => {
      const url = documentUrlOf(base, owner, documentId)
      expect(url).toBe(`${base}/api/v1/partner/v1/customers/${owner}/kyc/documents/${documentId}`)
      expect(Either.isRight(Schema.decodeUnknownEither(DocumentUrl)(url))).toBe(true)
      expect(parseDocumentUrl(url)).toEqual({ customerId: owner, documentId })
      expect(checkDocumentUrl(url, owner)).toBe(documentId)
      expect(checkDocumentUrl(url, owner === customerId ? otherCustomerId : customerId)).toBeUndefined()
    }), { numRuns: 100 })
    expect(parseDocumentUrl("https://example.com/bill.pdf")).toBeUndefined()
    // A url with anything after the id is the schema's to refuse (the id lookup would find nothing either).
    expect(Either.isLeft(Schema.decodeUnknownEither(DocumentUrl)(`${docUrl(1)}?x=1`))).toBe(true)
  })
})

// -------------------------------------------------------------------------------------------------------------
// Re-submission and the whole check

describe("resolveBusiness: a refused business re-submits without business", () => {
  const held = decodedBusiness()
  const sent = decodedBusiness({ description: "Now also exports" })

  it("uses the content sent, over any held", () => {
    expect(resolveBusiness(sent, held)).toEqual(Either.right({ business: sent, reused: false }))
    expect(resolveBusiness(sent, undefined)).toEqual(Either.right({ business: sent, reused: false }))
  })

  it("uses the held content when none is sent", () => {
    expect(resolveBusiness(undefined, held)).toEqual(Either.right({ business: held, reused: true }))
  })

  it("refuses a first BUSINESS submission without business", () => {
    expect(resolveBusiness(undefined, undefined)).toEqual(Either.left({ field: "business", message: "is required for a first BUSINESS submission" }))
  })
})

describe("validateSubmission", () => {
  const context = { customerId, held: undefined, now }

  it("answers an individual with its document ids", () => {
    expect(validateSubmission(decoded(individualBody), context)).toEqual(Either.right({
      customerType: "INDIVIDUAL",
      destinationCountry: "US",
      individual: decodedIndividual(),
      documents: [{ field: "addressProofUrl", url: docUrl(1), documentId: "00000000-0000-4000-8000-000000000001" }]
    }))
  })

  it("re-submits a business from its held content, checked again (rules and documents)", () => {
    const held = decodedBusiness()
    const result = Either.getOrThrow(validateSubmission(decoded({ customerType: "BUSINESS", destinationCountry: "US" }), { ...context, held }))
    expect(result).toMatchObject({ customerType: "BUSINESS", destinationCountry: "US", business: held, reused: true })
    expect(result.documents).toHaveLength(5)
    expect(validateSubmission(decoded({ customerType: "BUSINESS" }), context))
      .toEqual(Either.left({ code: "BAD_REQUEST", field: "business", message: "is required for a first BUSINESS submission" }))
    const { website: _website, ...heldBroken } = held
    expect(validateSubmission(decoded({ customerType: "BUSINESS" }), { ...context, held: heldBroken })).toEqual(Either.left({
      code: "BAD_REQUEST",
      field: "business.natureOfBusinessDocumentUrl",
      message: "is required when business.website is absent"
    }))
  })

  it("checks the rules before the documents, and answers a foreign document KYC_DOCUMENT_NOT_FOUND", () => {
    expect(validateSubmission(decoded({ ...individualBody, addressProofUrl: docUrl(1, otherCustomerId) }), context)).toEqual(Either.left({
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "addressProofUrl",
      message: "is not a document uploaded for this customer"
    }))
    const minorWithForeignProof = decoded({ ...individualBody, dateOfBirth: "2015-01-01", addressProofUrl: docUrl(1, otherCustomerId) })
    expect(validateSubmission(minorWithForeignProof, context)).toMatchObject(Either.left({ code: "BAD_REQUEST", field: "dateOfBirth" }))
    const foreignFront = decoded(businessBody({
      associatedPersons: [person({ idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: docUrl(20, otherCustomerId) } })]
    }))
    expect(validateSubmission(foreignFront, context)).toEqual(Either.left({
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.associatedPersons.0.idDocument.frontUrl",
      message: "is not a document uploaded for this customer"
    }))
  })

  it("keeps the destinationCountry of the body", () => {
    expect(Either.getOrThrow(validateSubmission(decoded({ ...individualBody, destinationCountry: undefined }), context)).destinationCountry)
      .toBeUndefined()
    expect(Either.getOrThrow(validateSubmission(decoded(businessBody()), context)).destinationCountry).toBe("CN")
  })
})

describe("docs/international.md", () => {
  const doc = NodeFs.readFileSync(new URL("../docs/international.md", import.meta.url), "utf8")
  const section = doc.slice(doc.indexOf("## Tier 3 submission: the body and its rules"), doc.indexOf("## Enrolment"))
  /** The rule tables' rows `| n | \`field\` | \`message\` ... |`: the individual's table, then the business's. */
  const rows = section.split("\n").flatMap((line) => {
    const match = /^\| (\d+) \| `([^`]+)` \| (`([^`]+)`|[^|]+)/.exec(line)
    return match === null ? [] : [{ n: Number(match[1]), field: match[2]!, message: match[4] ?? match[3]!.trim() }]
  })
  const individualRows = rows.slice(0, 3)
  const businessRows = rows.slice(3)
  const asDocumented = (violation: { field: string; message: string }) => ({ ...violation, field: violation.field.replace(/\.\d+(?=\.|$)/, ".i") })
  const leftOf = <A>(result: Either.Either<A, { field: string; message: string }>) => asDocumented(Either.getLeft(result).pipe((o) => {
    if (o._tag === "None") throw new Error("no violation")
    return o.value
  }))

  it("lists the individual's rules in checkIndividual's order with its messages", () => {
    const at = (dateOfBirth: string) => leftOf(checkIndividual(decodedIndividual({ dateOfBirth }), now))
    expect(individualRows.map(({ n: _n, ...row }) => row)).toEqual([at("2027-01-01"), at("1900-01-01"), at("2010-01-01")])
    expect(individualRows.map((row) => row.n)).toEqual([1, 2, 3])
  })

  it("lists the business's rules in order with checkBusiness's messages", () => {
    const business = decodedBusiness()
    const owner = person({ ownershipPercentage: 40, isControlPerson: false, title: undefined, canAuthorisePayments: false })
    const produced = [
      leftOf(resolveBusiness(undefined, undefined)),
      leftOf(checkBusiness(decodedBusiness({ sourceOfFunds: "OTHER" }), now)),
      leftOf(checkBusiness({ ...business, associatedPersons: [] }, now)),
      undefined, // row 4 refers to the individual's date rules
      leftOf(checkBusiness(withPersons([person(), { ...owner, ownershipPercentage: 10 }]), now)),
      leftOf(checkBusiness(withPersons([person({ title: undefined })]), now)),
      leftOf(checkBusiness(withPersons([person(), { ...owner, attestOwnershipStructure: true }]), now)),
      leftOf(checkBusiness(withPersons([person({ ownershipPercentage: 60 }), person({ ownershipPercentage: 40.01 })]), now)),
      leftOf(checkBusiness(withPersons([{ ...owner, canAuthorisePayments: true }]), now)),
      leftOf(checkBusiness(withPersons([person({ canAuthorisePayments: false })]), now)),
      leftOf(checkBusiness(decodedBusiness({ ownershipDocumentUrl: undefined }), now)),
      leftOf(checkBusiness(decodedBusiness({ website: undefined }), now))
    ]
    expect(businessRows.map((row) => row.n)).toEqual(produced.map((_, i) => i + 1))
    for (const [i, violation] of produced.entries()) {
      const { n: _n, ...row } = businessRows[i]!
      if (violation === undefined) expect(row.field).toBe("business.associatedPersons.i.dateOfBirth")
      else expect(row, `row ${i + 1}`).toEqual(violation)
    }
  })
})
