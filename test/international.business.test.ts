import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { reasons } from "../simulators/payout/Enrolments.js"
import { samples } from "./support/KycHelpers.js"
import { internationalClient, type Partner } from "./support/InternationalClient.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The BUSINESS path of the Tier 3 submission over real HTTP (`POST .../kyc/tier3` with `customerType: "BUSINESS"`;
 * src/international/Enrolments.ts wiring src/international/Tier3.ts; docs/international.md "Tier 3 submission
 * (validation core)"): a valid business is enrolled with the business fee (11 USDT, or its local equivalent at the
 * live buy rate); each business rule (1 to 12, in order) and each document rule refuses with 400 naming the field,
 * and a refusal moves nothing (no fee held, no group touched, no event); a business the payout partner refused
 * re-submits without `business`, and the held content is used again. The service clock is frozen: the simulated
 * partner's decisions arrive when a test advances it (900 s by default).
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
// The ledger checker once, over everything the file's tests moved (each invariant is over the whole ledger; a
// violation names its transactions): after each test it read the whole, growing ledger again, a tenth of the file's CPU.
afterAll(async () => {
  if (app !== undefined) expect((await app.run(checkLedger)).violations).toEqual([])
  await app?.close()
})

const { base, newPartner, upload, verifiedCustomer, address, tier3, status, group, control, advance, events, money, summary } = internationalClient(() => app)

// ---------------------------------------------------------------------------------------------------------------
// The business body

/** The document urls a business body carries: uploads of the customer (or, in a test, anything else). */
interface BusinessUrls {
  readonly formation: string
  readonly ownership: string
  readonly natureOfBusiness: string
  /** Each person's `idDocument.frontUrl`, person 0 then person 1. */
  readonly fronts: readonly [string, string]
}

/** Uploads every document a business body needs, for this customer. */
const uploadBusinessDocuments = async (p: Partner, customerId: string): Promise<BusinessUrls> => ({
  formation: await upload(p, customerId, samples.pdf(), "certificate.pdf"),
  ownership: await upload(p, customerId, samples.pdf(), "register.pdf"),
  natureOfBusiness: await upload(p, customerId, samples.pdf(), "invoice.pdf"),
  fronts: [await upload(p, customerId, samples.jpeg(), "ada.jpg"), await upload(p, customerId, samples.jpeg(), "musa.jpg")]
})

/** Person 0: Ada, 60%, control person (Director), can authorise payments. */
const ada = (urls: BusinessUrls, overrides: Record<string, unknown> = {}) => ({
  firstName: "Ada",
  lastName: "Obi",
  dateOfBirth: "1980-01-31",
  address: address(),
  idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: urls.fronts[0] },
  ownershipPercentage: 60,
  isControlPerson: true,
  title: "Director",
  canAuthorisePayments: true,
  ...overrides
})

/** Person 1: Musa, 40% owner, not a control person. */
const musa = (urls: BusinessUrls, overrides: Record<string, unknown> = {}) => ({
  firstName: "Musa",
  lastName: "Bello",
  dateOfBirth: "1975-07-04",
  address: address(),
  idDocument: { type: "NATIONAL_ID", number: "12345678901", frontUrl: urls.fronts[1] },
  ownershipPercentage: 40,
  ...overrides
})

/** The `business` object: valid as is (website set, ownership document given, no nature-of-business document). */
const businessContent = (urls: BusinessUrls, overrides: Record<string, unknown> = {}, postalCode = "101241") => ({
  businessType: "LLC",
  description: "Imports and sells kitchen equipment",
  accountPurpose: "Paying suppliers in the United States and China",
  sourceOfFunds: "SALES_OF_GOODS_AND_SERVICES",
  website: "https://obi-kitchens.example.com",
  formationDocumentUrl: urls.formation,
  ownershipDocumentUrl: urls.ownership,
  profile: { registeredName: "Obi Kitchens Ltd", registrationNumber: "RC 1234567", address: address(postalCode) },
  associatedPersons: [ada(urls), musa(urls)],
  ...overrides
})

/** A whole valid BUSINESS body for `destinationCountry` US (the americas_europe group). */
const businessBody = (urls: BusinessUrls, overrides: Record<string, unknown> = {}, postalCode?: string) => ({
  customerType: "BUSINESS",
  destinationCountry: "US",
  business: businessContent(urls, overrides, postalCode)
})

/** The content without some of its fields (an optional field left out). */
const without = (content: Record<string, unknown>, ...fields: ReadonlyArray<string>) =>
  Object.fromEntries(Object.entries(content).filter(([key]) => !fields.includes(key)))

/** A verified customer with 20 USDT and the business's documents uploaded. */
const businessCustomer = async (p: Partner, funds: { USDT?: number; NGN?: number } = { USDT: 20 }) => {
  const id = await verifiedCustomer(p, funds)
  const urls = await uploadBusinessDocuments(p, id)
  return { id, urls }
}

/** The service clock's UTC date, `YYYY-MM-DD`, and the day after. */
const serviceDates = async (p: Partner) => {
  const reply = await app.request("GET", "/sandbox/clock", { apiKey: p.apiKey })
  expect(reply.status).toBe(200)
  const now = new Date(reply.body.data.now as string)
  return {
    today: now.toISOString().slice(0, 10),
    tomorrow: new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10)
  }
}

const yearsBefore = (date: string, years: number) => `${String(Number(date.slice(0, 4)) - years).padStart(4, "0")}${date.slice(4)}`

const notStarted = [["americas_europe", "NOT_STARTED"], ["china", "NOT_STARTED"]]

/**
 * Submits `body` and expects a 400 with `code` and a message `<field>: <message>` (or only the `<field>: ` prefix),
 * and that nothing moved: the same USDT balance, every group as before (NOT_STARTED unless told), no new event,
 * tier 3's status as before.
 */
const expectRefused = async (
  p: Partner,
  id: string,
  body: unknown,
  expected: { readonly code: string; readonly field: string; readonly message?: string; readonly groups?: ReadonlyArray<ReadonlyArray<string>> }
) => {
  const eventsBefore = await events(p, id)
  const usdtBefore = await money(p, id, "USDT")
  const tierBefore = (await summary(p, id)).tiers["3"].status
  const reply = await tier3(p, id, body)
  expect(reply.status, JSON.stringify(reply.body)).toBe(400)
  expect(reply.body.code, reply.body.message).toBe(expected.code)
  expect(reply.body.message.startsWith(`${expected.field}: `), reply.body.message).toBe(true)
  if (expected.message !== undefined) expect(reply.body.message).toBe(`${expected.field}: ${expected.message}`)
  expect(await money(p, id, "USDT")).toEqual(usdtBefore)
  expect((await status(p, id)).groups.map((g: any) => [g.key, g.status])).toEqual(expected.groups ?? notStarted)
  expect(await events(p, id)).toEqual(eventsBefore)
  expect((await summary(p, id)).tiers["3"].status).toBe(tierBefore)
  return reply
}

const rule = (field: string, message: string) => ({ code: "BAD_REQUEST", field, message })

// ---------------------------------------------------------------------------------------------------------------

describe("a valid business", () => {
  it("is accepted: 11 USDT held, PENDING, then APPROVED with 11 USDT taken and customerType BUSINESS", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    const reply = await tier3(p, id, businessBody(urls))
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.data.status).toBe("PENDING")
    expect(reply.body.data.record).toMatchObject({ customerId: id, level: 3, status: "PENDING", rejectionReason: null })
    expect(reply.body.data.international.customerType).toBe("BUSINESS")
    const [americas, china] = reply.body.data.international.groups
    expect(americas).toMatchObject({
      key: "americas_europe",
      status: "PENDING",
      optedInCountries: ["US"],
      action: null,
      registrationFee: { amount: "11", currency: "USDT", paidBy: "CUSTOMER", paid: false, charged: null }
    })
    expect(china).toMatchObject({ key: "china", status: "NOT_STARTED", registrationFee: { amount: "11", currency: "USDT" } })
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
    expect((await summary(p, id)).tiers["3"].status).toBe("PENDING")
    expect((await status(p, id)).customerType).toBe("BUSINESS")

    expect((await advance(p)).status).toBe(200)
    const view = await status(p, id)
    expect(view.customerType).toBe("BUSINESS")
    expect(view.groups[0]).toMatchObject({
      key: "americas_europe",
      status: "APPROVED",
      action: null,
      registrationFee: { amount: "11", currency: "USDT", paidBy: "CUSTOMER", paid: true, charged: { amount: "11", currency: "USDT" } }
    })
    expect(view.groups[1].status).toBe("NOT_STARTED")
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 0 })
    expect((await events(p, id, "global_send.enabled")).map((e) => e.data)).toEqual([
      { customerId: id, groups: ["americas_europe"], newGroups: ["americas_europe"] }
    ])
    const verification = await summary(p, id)
    expect(verification.currentTier).toBe(3)
    expect(verification.tiers["3"].status).toBe("APPROVED")
  })

  it("without destinationCountry goes to both groups: 22 USDT held, 22 taken", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p, { USDT: 22 })
    const { destinationCountry: _dc, ...body } = businessBody(urls)
    const reply = await tier3(p, id, body)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.data.international.groups.map((g: any) => g.status)).toEqual(["PENDING", "PENDING"])
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 22 })
    await advance(p)
    expect((await status(p, id)).groups.map((g: any) => [g.status, g.registrationFee.charged])).toEqual([
      ["APPROVED", { amount: "11", currency: "USDT" }],
      ["APPROVED", { amount: "11", currency: "USDT" }]
    ])
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
  })

  it("the business fee from the local currency at the live buy rate when USDT is short", async () => {
    const p = await newPartner()
    const rate = await app.request("PUT", "/sandbox/rates/NGN", { apiKey: p.apiKey, body: { buyRate: 1601.37, sellRate: 1500 } })
    expect(rate.status).toBe(200)
    const { id, urls } = await businessCustomer(p, { USDT: 10.999999, NGN: 50_000 })
    const reply = await tier3(p, id, businessBody(urls))
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    // 11 x 1601.37 = 17615.07 NGN
    expect(await money(p, id, "NGN")).toEqual({ available: 32384.93, held: 17615.07 })
    expect(await money(p, id, "USDT")).toEqual({ available: 10.999999, held: 0 })
    await advance(p)
    expect((await group(p, id, "americas_europe")).registrationFee).toEqual({
      amount: "11",
      currency: "USDT",
      paidBy: "CUSTOMER",
      paid: true,
      charged: { amount: "17615.07", currency: "NGN" }
    })
    expect(await money(p, id, "NGN")).toEqual({ available: 32384.93, held: 0 })
    expect(await money(p, id, "USDT")).toEqual({ available: 10.999999, held: 0 })
  })

  it("the business fee, not the individual's, is what a balance must cover: 10 USDT and no local money is refused", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p, { USDT: 10 })
    const before = await events(p, id)
    const reply = await tier3(p, id, businessBody(urls))
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe("INTERNATIONAL_FEE_INSUFFICIENT_BALANCE")
    expect(reply.body.details.feeUsdt).toBe(11)
    expect(reply.body.details.localCurrency).toBe("NGN")
    expect(await money(p, id, "USDT")).toEqual({ available: 10, held: 0 })
    expect((await group(p, id, "americas_europe")).status).toBe("NOT_STARTED")
    expect(await events(p, id)).toEqual(before)
  })

  it("eligibility (Tier 2) is checked before the rules; the schema before either", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 20 }, false)
    const urls = await uploadBusinessDocuments(p, id)
    const before = await events(p, id)
    const valid = await tier3(p, id, businessBody(urls))
    expect(valid.status).toBe(400)
    expect(valid.body.code).toBe("KYC_PREVIOUS_TIER_NOT_APPROVED")
    const breaksRule = await tier3(p, id, businessBody(urls, { sourceOfFunds: "OTHER" }))
    expect(breaksRule.status).toBe(400)
    expect(breaksRule.body.code).toBe("KYC_PREVIOUS_TIER_NOT_APPROVED")
    const breaksSchema = await tier3(p, id, businessBody(urls, { businessType: "TRUST" }))
    expect(breaksSchema.status).toBe(400)
    expect(breaksSchema.body.code).toBe("BAD_REQUEST")
    expect(breaksSchema.body.message.startsWith("business.businessType: "), breaksSchema.body.message).toBe(true)
    expect(await events(p, id)).toEqual(before)
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    expect((await status(p, id)).groups.map((g: any) => [g.key, g.status])).toEqual(notStarted)
  })

  it("the partner pays the business fee: nothing held from the customer, 11 USDT recorded as the partner's", async () => {
    const p = await newPartner()
    expect((await app.request("PUT", "/partner/v1/fees/international-verification", { apiKey: p.apiKey, body: { paysForCustomers: true } })).status).toBe(200)
    const { id, urls } = await businessCustomer(p, {})
    const reply = await tier3(p, id, businessBody(urls, {}, undefined))
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
    await advance(p)
    expect((await group(p, id, "americas_europe")).registrationFee).toEqual({
      amount: "11",
      currency: "USDT",
      paidBy: "PARTNER",
      paid: true,
      charged: { amount: "11", currency: "USDT" }
    })
  })
})

describe("the business rules, each via HTTP (400 BAD_REQUEST naming the field, nothing moved)", () => {
  it("rule 1: a first BUSINESS submission without business", async () => {
    const p = await newPartner()
    const { id } = await businessCustomer(p)
    await expectRefused(p, id, { customerType: "BUSINESS", destinationCountry: "US" }, rule("business", "is required for a first BUSINESS submission"))
    await expectRefused(p, id, { customerType: "BUSINESS" }, rule("business", "is required for a first BUSINESS submission"))
  })

  it("rule 1: an individual's earlier submission is not held business content", async () => {
    const p = await newPartner()
    const { id } = await businessCustomer(p)
    const individual = await tier3(p, id, { destinationCountry: "US", dateOfBirth: "1990-04-12", address: address() })
    expect(individual.status).toBe(201)
    await advance(p)
    expect((await group(p, id, "americas_europe")).status).toBe("APPROVED")
    await expectRefused(p, id, { customerType: "BUSINESS", destinationCountry: "CN" }, {
      ...rule("business", "is required for a first BUSINESS submission"),
      groups: [["americas_europe", "APPROVED"], ["china", "NOT_STARTED"]]
    })
  })

  it("rule 2: sourceOfFunds OTHER without sourceOfFundsNote (accepted with one)", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(p, id, businessBody(urls, { sourceOfFunds: "OTHER" }), rule("business.sourceOfFundsNote", "is required when sourceOfFunds is OTHER"))
    const ok = await tier3(p, id, businessBody(urls, { sourceOfFunds: "OTHER", sourceOfFundsNote: "Proceeds of a sold warehouse" }))
    expect(ok.status, JSON.stringify(ok.body)).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
  })

  it("rule 3: 0 persons and 11 persons", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(p, id, businessBody(urls, { associatedPersons: [] }), rule("business.associatedPersons", "must list 1 to 10 persons"))
    const eleven = [ada(urls, { ownershipPercentage: 0 }), ...Array.from({ length: 10 }, () => musa(urls, { ownershipPercentage: 0, isControlPerson: true, title: "Officer" }))]
    await expectRefused(p, id, businessBody(urls, { associatedPersons: eleven }), rule("business.associatedPersons", "must list 1 to 10 persons"))
    // Ten is the most: the same persons less one are accepted.
    const ten = await tier3(p, id, businessBody(urls, { associatedPersons: eleven.slice(0, 10) }))
    expect(ten.status, JSON.stringify(ten.body)).toBe(201)
  })

  it("rule 4: a person under 18, in the future, or born on 1900-01-01; one who turns 18 today is accepted", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const { today, tomorrow } = await serviceDates(p)
    const withMusaBorn = (dateOfBirth: string) => businessBody(urls, { associatedPersons: [ada(urls), musa(urls, { dateOfBirth })] })
    const field = "business.associatedPersons.1.dateOfBirth"
    await expectRefused(p, id, withMusaBorn(tomorrow), rule(field, "must not be in the future"))
    await expectRefused(p, id, withMusaBorn(yearsBefore(today, 17)), rule(field, "must be the date of birth of an adult (18 or older)"))
    await expectRefused(p, id, withMusaBorn("1900-01-01"), rule(field, "must be after 1900-01-01"))
    // Person 0 is checked before person 1.
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls, { dateOfBirth: tomorrow }), musa(urls, { dateOfBirth: tomorrow })] }),
      rule("business.associatedPersons.0.dateOfBirth", "must not be in the future")
    )
    if (!tomorrow.endsWith("-02-29")) {
      await expectRefused(p, id, withMusaBorn(yearsBefore(tomorrow, 18)), rule(field, "must be the date of birth of an adult (18 or older)"))
    }
    if (!today.endsWith("-02-29")) {
      const eighteenToday = await tier3(p, id, withMusaBorn(yearsBefore(today, 18)))
      expect(eighteenToday.status, JSON.stringify(eighteenToday.body)).toBe(201)
    }
  })

  it("rule 5: a person neither an owner (25% or more) nor a control person", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const message = "must be an owner (ownershipPercentage 25 or more) or a control person (isControlPerson true)"
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls), musa(urls, { ownershipPercentage: 24.99 })] }),
      rule("business.associatedPersons.1", message)
    )
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls), without(musa(urls), "ownershipPercentage")] }),
      rule("business.associatedPersons.1", message)
    )
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls), musa(urls, { ownershipPercentage: 10, isControlPerson: false })] }),
      rule("business.associatedPersons.1", message)
    )
    // Exactly 25 is an owner.
    const ok = await tier3(p, id, businessBody(urls, { associatedPersons: [ada(urls), musa(urls, { ownershipPercentage: 25 })] }))
    expect(ok.status, JSON.stringify(ok.body)).toBe(201)
  })

  it("rule 6: a control person without a title", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls), musa(urls, { isControlPerson: true })] }),
      rule("business.associatedPersons.1.title", "is required for a control person")
    )
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [without(ada(urls), "title"), musa(urls)] }),
      rule("business.associatedPersons.0.title", "is required for a control person")
    )
  })

  it("rule 7: attestOwnershipStructure on a person who is not a control person", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls), musa(urls, { attestOwnershipStructure: true })] }),
      rule("business.associatedPersons.1.attestOwnershipStructure", "may be true only for a control person (isControlPerson true)")
    )
    // Refused even when an ownership document is given and a control person attests too.
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls, { attestOwnershipStructure: true }), musa(urls, { attestOwnershipStructure: true })] }),
      rule("business.associatedPersons.1.attestOwnershipStructure", "may be true only for a control person (isControlPerson true)")
    )
  })

  it("rule 8: ownership percentages adding up to more than 100 (60 + 40.01); exactly 100 in hundredths is accepted", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls), musa(urls, { ownershipPercentage: 40.01 })] }),
      rule("business.associatedPersons", "must have ownership percentages adding up to at most 100 (got 100.01)")
    )
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls, { ownershipPercentage: 100 }), musa(urls, { ownershipPercentage: 100 })] }),
      rule("business.associatedPersons", "must have ownership percentages adding up to at most 100 (got 200)")
    )
    const exact = await tier3(p, id, businessBody(urls, {
      associatedPersons: [
        ada(urls, { ownershipPercentage: 33.33 }),
        musa(urls, { ownershipPercentage: 33.33 }),
        musa(urls, { firstName: "Chidi", ownershipPercentage: 33.34 })
      ]
    }))
    expect(exact.status, JSON.stringify(exact.body)).toBe(201)
  })

  it("rule 9: no control person", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [without(ada(urls, { isControlPerson: false }), "title"), musa(urls)] }),
      rule("business.associatedPersons", "must include a control person (isControlPerson true)")
    )
  })

  it("rule 10: nobody who can authorise payments; a non-control person who can is enough", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls, { canAuthorisePayments: false }), musa(urls)] }),
      rule("business.associatedPersons", "must include a person who can authorise payments (canAuthorisePayments true)")
    )
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [without(ada(urls), "canAuthorisePayments"), musa(urls, { canAuthorisePayments: false })] }),
      rule("business.associatedPersons", "must include a person who can authorise payments (canAuthorisePayments true)")
    )
    const ok = await tier3(p, id, businessBody(urls, { associatedPersons: [ada(urls, { canAuthorisePayments: false }), musa(urls, { canAuthorisePayments: true })] }))
    expect(ok.status, JSON.stringify(ok.body)).toBe(201)
  })

  it("rule 11: ownershipDocumentUrl missing without attestation; accepted when a control person attests", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const noDocument = without(businessContent(urls), "ownershipDocumentUrl")
    await expectRefused(
      p,
      id,
      { customerType: "BUSINESS", destinationCountry: "US", business: noDocument },
      rule("business.ownershipDocumentUrl", "is required unless a control person sets attestOwnershipStructure true")
    )
    await expectRefused(
      p,
      id,
      { customerType: "BUSINESS", destinationCountry: "US", business: { ...noDocument, associatedPersons: [ada(urls, { attestOwnershipStructure: false }), musa(urls)] } },
      rule("business.ownershipDocumentUrl", "is required unless a control person sets attestOwnershipStructure true")
    )
    const attested = await tier3(p, id, {
      customerType: "BUSINESS",
      destinationCountry: "US",
      business: { ...noDocument, associatedPersons: [ada(urls, { attestOwnershipStructure: true }), musa(urls)] }
    })
    expect(attested.status, JSON.stringify(attested.body)).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
  })

  it("rule 12: natureOfBusinessDocumentUrl missing when the website is absent; accepted when present", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const noWebsite = without(businessContent(urls), "website")
    await expectRefused(
      p,
      id,
      { customerType: "BUSINESS", destinationCountry: "US", business: noWebsite },
      rule("business.natureOfBusinessDocumentUrl", "is required when business.website is absent")
    )
    const withDocument = await tier3(p, id, {
      customerType: "BUSINESS",
      destinationCountry: "US",
      business: { ...noWebsite, natureOfBusinessDocumentUrl: urls.natureOfBusiness }
    })
    expect(withDocument.status, JSON.stringify(withDocument.body)).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
  })

  it("the first rule violated is the one answered, in the documented order", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const { tomorrow } = await serviceDates(p)
    // Everything wrong at once: rule 2 first.
    const allWrong = {
      ...without(businessContent(urls), "website", "ownershipDocumentUrl"),
      sourceOfFunds: "OTHER",
      associatedPersons: [
        without(ada(urls, { dateOfBirth: tomorrow, canAuthorisePayments: false, ownershipPercentage: 80, isControlPerson: false }), "title"),
        musa(urls, { ownershipPercentage: 10, attestOwnershipStructure: true, isControlPerson: true })
      ]
    }
    const body = (business: Record<string, unknown>) => ({ customerType: "BUSINESS", destinationCountry: "US", business })
    await expectRefused(p, id, body(allWrong), rule("business.sourceOfFundsNote", "is required when sourceOfFunds is OTHER"))
    const fixed2 = { ...allWrong, sourceOfFundsNote: "A grant" }
    // Person 0's date of birth comes before person 1's missing title.
    await expectRefused(p, id, body(fixed2), rule("business.associatedPersons.0.dateOfBirth", "must not be in the future"))
    const person0 = without(ada(urls, { canAuthorisePayments: false, ownershipPercentage: 80, isControlPerson: false }), "title")
    const person1 = musa(urls, { ownershipPercentage: 30, isControlPerson: true })
    // Person 1 has no title (rule 6) before the percentages (rule 8: 80 + 30).
    await expectRefused(p, id, body({ ...fixed2, associatedPersons: [person0, person1] }), rule("business.associatedPersons.1.title", "is required for a control person"))
    const titled = { ...person1, title: "Manager" }
    await expectRefused(
      p,
      id,
      body({ ...fixed2, associatedPersons: [person0, titled] }),
      rule("business.associatedPersons", "must have ownership percentages adding up to at most 100 (got 110)")
    )
    // Rule 10 (nobody authorises) before rule 11 (no ownership document) and 12 (no website, no document).
    await expectRefused(
      p,
      id,
      body({ ...fixed2, associatedPersons: [person0, { ...titled, ownershipPercentage: 20 }] }),
      rule("business.associatedPersons", "must include a person who can authorise payments (canAuthorisePayments true)")
    )
    const authorised = [person0, { ...titled, ownershipPercentage: 20, canAuthorisePayments: true }]
    await expectRefused(
      p,
      id,
      body({ ...fixed2, associatedPersons: authorised }),
      rule("business.ownershipDocumentUrl", "is required unless a control person sets attestOwnershipStructure true")
    )
    await expectRefused(
      p,
      id,
      body({ ...fixed2, associatedPersons: authorised, ownershipDocumentUrl: urls.ownership }),
      rule("business.natureOfBusinessDocumentUrl", "is required when business.website is absent")
    )
  })
})

describe("schema failures name dotted paths (400 BAD_REQUEST, nothing moved)", () => {
  it("each bad field of a business body is named with its full path", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const personWith = (index: 0 | 1, overrides: Record<string, unknown>) =>
      index === 0 ? [ada(urls, overrides), musa(urls)] : [ada(urls), musa(urls, overrides)]
    const cases: ReadonlyArray<readonly [unknown, string, string?]> = [
      [
        businessBody(urls, { associatedPersons: personWith(1, { idDocument: { type: "PASSPORT", number: "12", frontUrl: urls.fronts[1] } }) }),
        "business.associatedPersons.1.idDocument.number",
        "must be 5 to 20 letters or digits"
      ],
      [
        businessBody(urls, { associatedPersons: personWith(1, { idDocument: { type: "VOTERS_CARD", number: "12345678", frontUrl: urls.fronts[1] } }) }),
        "business.associatedPersons.1.idDocument.type"
      ],
      [
        businessBody(urls, { associatedPersons: personWith(0, { idDocument: { type: "PASSPORT", number: "A12345678" } }) }),
        "business.associatedPersons.0.idDocument.frontUrl",
        "is required"
      ],
      [
        businessBody(urls, { associatedPersons: personWith(1, { idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: "https://example.com/front.png" } }) }),
        "business.associatedPersons.1.idDocument.frontUrl",
        "must be a document url returned by POST .../kyc/documents"
      ],
      [
        businessBody(urls, { associatedPersons: personWith(0, { ownershipPercentage: 33.333 }) }),
        "business.associatedPersons.0.ownershipPercentage",
        "must be a number from 0 to 100 with at most 2 decimals"
      ],
      [
        businessBody(urls, { associatedPersons: personWith(1, { ownershipPercentage: 100.5 }) }),
        "business.associatedPersons.1.ownershipPercentage",
        "must be a number from 0 to 100 with at most 2 decimals"
      ],
      [businessBody(urls, { associatedPersons: personWith(1, { dateOfBirth: "1990-02-30" }) }), "business.associatedPersons.1.dateOfBirth", "must be a calendar date YYYY-MM-DD"],
      [businessBody(urls, { associatedPersons: personWith(1, { address: { ...address(), country: "UK" } }) }), "business.associatedPersons.1.address.country"],
      [businessBody(urls, { associatedPersons: personWith(0, { isControlPerson: "yes" }) }), "business.associatedPersons.0.isControlPerson"],
      [businessBody(urls, { associatedPersons: personWith(1, { firstName: "   " }) }), "business.associatedPersons.1.firstName", "must be 1 to 100 characters"],
      [businessBody(urls, { associatedPersons: personWith(0, { title: "" }) }), "business.associatedPersons.0.title", "must be 1 to 100 characters"],
      [businessBody(urls, { profile: { registeredName: "Obi Kitchens Ltd", registrationNumber: "#RC", address: address() } }), "business.profile.registrationNumber", "must be 1 to 50 letters, digits, spaces or . / -"],
      [businessBody(urls, { profile: { registeredName: "Obi Kitchens Ltd", registrationNumber: "RC 1234567", address: { ...address(), postalCode: "10_124" } } }), "business.profile.address.postalCode", "must be 1 to 20 letters, digits, spaces or hyphens"],
      [businessBody(urls, { profile: { registrationNumber: "RC 1234567", address: address() } }), "business.profile.registeredName", "is required"],
      [businessBody(urls, { website: "ftp://obi-kitchens.example.com" }), "business.website", "must be an absolute http or https url, e.g. https://example.com"],
      [businessBody(urls, { website: "https://localhost" }), "business.website", "must be an absolute http or https url, e.g. https://example.com"],
      [businessBody(urls, { businessType: "TRUST" }), "business.businessType"],
      [businessBody(urls, { sourceOfFunds: "GIFTS" }), "business.sourceOfFunds"],
      [businessBody(urls, { description: "   " }), "business.description", "must be 1 to 1000 characters"],
      [businessBody(urls, { accountPurpose: "x".repeat(501) }), "business.accountPurpose", "must be 1 to 500 characters"],
      [businessBody(urls, { sourceOfFundsNote: null }), "business.sourceOfFundsNote"],
      [{ customerType: "BUSINESS", destinationCountry: "US", business: without(businessContent(urls), "formationDocumentUrl") }, "business.formationDocumentUrl", "is required"],
      [businessBody(urls, { ownershipDocumentUrl: "not a url" }), "business.ownershipDocumentUrl", "must be a document url returned by POST .../kyc/documents"],
      [{ customerType: "BUSINESS", destinationCountry: "KE", business: businessContent(urls) }, "destinationCountry"],
      [{ customerType: "business", business: businessContent(urls) }, "customerType"]
    ]
    for (const [body, field, message] of cases) {
      await expectRefused(p, id, body, { code: "BAD_REQUEST", field, ...(message === undefined ? {} : { message }) })
    }
    // The same content, unbroken, is accepted: each case failed for its own field.
    const ok = await tier3(p, id, businessBody(urls))
    expect(ok.status, JSON.stringify(ok.body)).toBe(201)
  })

  it("a business body's failure names the business field, never an individual's", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    // No dateOfBirth or address at the top level: irrelevant for a business.
    const reply = await expectRefused(p, id, businessBody(urls, { businessType: 7 }), { code: "BAD_REQUEST", field: "business.businessType" })
    expect(reply.body.message).not.toContain("dateOfBirth")
  })
})

describe("the document rules (400 KYC_DOCUMENT_NOT_FOUND, nothing moved)", () => {
  it("a url of another customer's upload, named by its field", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const other = await verifiedCustomer(p, {}, false)
    const foreign = await upload(p, other, samples.pdf(), "theirs.pdf")
    const notOurs = "is not a document uploaded for this customer"
    await expectRefused(p, id, businessBody({ ...urls, formation: foreign }), {
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.formationDocumentUrl",
      message: notOurs
    })
    await expectRefused(p, id, businessBody({ ...urls, ownership: foreign }), {
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.ownershipDocumentUrl",
      message: notOurs
    })
    await expectRefused(p, id, businessBody({ ...urls, fronts: [urls.fronts[0], foreign] }), {
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.associatedPersons.1.idDocument.frontUrl",
      message: notOurs
    })
    await expectRefused(p, id, businessBody(urls, { natureOfBusinessDocumentUrl: foreign }), {
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.natureOfBusinessDocumentUrl",
      message: notOurs
    })
    await expectRefused(
      p,
      id,
      businessBody(urls, { associatedPersons: [ada(urls, { idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: urls.fronts[0], backUrl: foreign } }), musa(urls)] }),
      { code: "KYC_DOCUMENT_NOT_FOUND", field: "business.associatedPersons.0.idDocument.backUrl", message: notOurs }
    )
    // Body order: the formation document comes before a person's id.
    await expectRefused(p, id, businessBody({ ...urls, formation: foreign, fronts: [foreign, foreign] }), {
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.formationDocumentUrl",
      message: notOurs
    })
  })

  it("a well-formed url for this customer whose document does not exist", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const missing = urls.formation.replace(/[0-9a-f-]{36}$/, "00000000-0000-4000-8000-000000000000")
    expect(missing).not.toBe(urls.formation)
    expect(missing.endsWith(`/customers/${id}/kyc/documents/00000000-0000-4000-8000-000000000000`)).toBe(true)
    const notOurs = "is not a document uploaded for this customer"
    await expectRefused(p, id, businessBody({ ...urls, formation: missing }), { code: "KYC_DOCUMENT_NOT_FOUND", field: "business.formationDocumentUrl", message: notOurs })
    await expectRefused(p, id, businessBody({ ...urls, fronts: [missing, urls.fronts[1]] }), {
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.associatedPersons.0.idDocument.frontUrl",
      message: notOurs
    })
    // Another customer's document id under this customer's path does not exist here either.
    const other = await verifiedCustomer(p, {}, false)
    const theirs = await upload(p, other, samples.pdf(), "theirs.pdf")
    const theirId = theirs.slice(theirs.lastIndexOf("/") + 1)
    const disguised = urls.formation.replace(/[0-9a-f-]{36}$/, theirId)
    expect(disguised.endsWith(`/customers/${id}/kyc/documents/${theirId}`)).toBe(true)
    await expectRefused(p, id, businessBody({ ...urls, ownership: disguised }), {
      code: "KYC_DOCUMENT_NOT_FOUND",
      field: "business.ownershipDocumentUrl",
      message: notOurs
    })
  })

  it("the rules are checked before the documents: a foreign url in a body that breaks a rule is BAD_REQUEST", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const other = await verifiedCustomer(p, {}, false)
    const foreign = await upload(p, other)
    await expectRefused(
      p,
      id,
      businessBody({ ...urls, formation: foreign }, { sourceOfFunds: "OTHER" }),
      rule("business.sourceOfFundsNote", "is required when sourceOfFunds is OTHER")
    )
  })
})

describe("a refused business re-submits without business", () => {
  it("the held content is used: refused again (00001), then new content is approved; no fee is ever taken", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    await expectRefused(p, id, { customerType: "BUSINESS", destinationCountry: "US" }, rule("business", "is required for a first BUSINESS submission"))

    const first = await tier3(p, id, businessBody(urls, {}, "00001"))
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
    await advance(p)
    expect(await group(p, id, "americas_europe")).toMatchObject({
      status: "REJECTED",
      reason: reasons.refuse,
      action: "RESUBMIT_TIER3",
      registrationFee: { amount: "11", paid: false, charged: null }
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    expect((await summary(p, id)).tiers["3"]).toMatchObject({ status: "REJECTED", rejectionReason: reasons.refuse })

    // Without business: the held content (postal code 00001) is sent again, for free.
    const again = await tier3(p, id, { customerType: "BUSINESS", destinationCountry: "US" })
    expect(again.status, JSON.stringify(again.body)).toBe(201)
    expect(again.body.data.status).toBe("PENDING")
    expect(again.body.data.international.customerType).toBe("BUSINESS")
    expect(again.body.data.international.groups[0]).toMatchObject({ status: "PENDING", registrationFee: { paid: false, charged: null } })
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    await advance(p)
    expect(await group(p, id, "americas_europe")).toMatchObject({ status: "REJECTED", reason: reasons.refuse, registrationFee: { paid: false } })
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })

    // Content sent replaces the held content: a normal postal code is approved, still free.
    const replaced = await tier3(p, id, businessBody(urls))
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    await advance(p)
    expect(await group(p, id, "americas_europe")).toMatchObject({ status: "APPROVED", registrationFee: { paid: false, charged: null } })
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    expect((await status(p, id)).customerType).toBe("BUSINESS")
    expect((await events(p, id, "global_send.enabled")).length).toBe(1)
  })

  it("the held content also serves a later submission to another group, whose first business fee applies", async () => {
    const p = await newPartner({ mode: "manual" })
    const { id, urls } = await businessCustomer(p)
    expect((await tier3(p, id, businessBody(urls))).status).toBe(201)
    const refused = await control(p, id, "americas_europe", "refuse")
    expect(refused.status, JSON.stringify(refused.body)).toBe(200)
    expect(refused.body.data.groups[0]).toMatchObject({ status: "REJECTED", reason: reasons.refuse })
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    // A re-submission without business to the other group also uses the held content (the latest business content).
    const china = await tier3(p, id, { customerType: "BUSINESS", destinationCountry: "CN" })
    expect(china.status, JSON.stringify(china.body)).toBe(201)
    expect(china.body.data.international.groups.map((g: any) => g.status)).toEqual(["REJECTED", "PENDING"])
    // The china group is a first submission: its business fee applies.
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
  })

  it("after international-reject withdraws a pending first send, the re-submission without business is a first one: 11 USDT again", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    expect((await tier3(p, id, businessBody(urls))).status).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
    const rejected = await app.request("POST", `${base(id)}/global-send/international-reject?group=americas_europe`, {
      apiKey: p.apiKey,
      body: { reason: "Please upload a clearer certificate of incorporation" }
    })
    expect(rejected.status).toBe(200)
    expect(rejected.body.data.groups[0]).toMatchObject({ status: "NEEDS_ATTENTION", reason: "Please upload a clearer certificate of incorporation" })
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
    const again = await tier3(p, id, { customerType: "BUSINESS", destinationCountry: "US" })
    expect(again.status, JSON.stringify(again.body)).toBe(201)
    expect(again.body.data.international.groups[0]).toMatchObject({ status: "PENDING", action: null })
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
    await advance(p)
    expect((await group(p, id, "americas_europe")).registrationFee).toEqual({
      amount: "11",
      currency: "USDT",
      paidBy: "CUSTOMER",
      paid: true,
      charged: { amount: "11", currency: "USDT" }
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 0 })
  })

  it("a group marked NEEDS_ATTENTION before any submission takes the business fee on the first BUSINESS submission", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const marked = await app.request("POST", `${base(id)}/global-send/international-reject?group=china`, {
      apiKey: p.apiKey,
      body: { reason: "Tell us about your suppliers in China" }
    })
    expect(marked.status).toBe(200)
    expect(marked.body.data.groups[1]).toMatchObject({ status: "NEEDS_ATTENTION", action: null })
    const reply = await tier3(p, id, { ...businessBody(urls), destinationCountry: "CN" })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.data.international.groups[1]).toMatchObject({
      key: "china",
      status: "PENDING",
      optedInCountries: ["CN"],
      registrationFee: { amount: "11", currency: "USDT", paidBy: "CUSTOMER", paid: false, charged: null }
    })
    expect(reply.body.data.international.groups[1].reason).toBeUndefined()
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 11 })
    await advance(p)
    expect((await group(p, id, "china")).registrationFee).toMatchObject({ amount: "11", paid: true, charged: { amount: "11", currency: "USDT" } })
    expect(await money(p, id, "USDT")).toEqual({ available: 9, held: 0 })
  })

  it("a refused business's bad new content is refused without falling back to the held content", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    expect((await tier3(p, id, businessBody(urls, {}, "00001"))).status).toBe(201)
    await advance(p)
    expect((await group(p, id, "americas_europe")).status).toBe("REJECTED")
    await expectRefused(p, id, businessBody(urls, { associatedPersons: [ada(urls, { canAuthorisePayments: false }), musa(urls)] }), {
      ...rule("business.associatedPersons", "must include a person who can authorise payments (canAuthorisePayments true)"),
      groups: [["americas_europe", "REJECTED"], ["china", "NOT_STARTED"]]
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 20, held: 0 })
  })
})

describe("re-verification and a business", () => {
  it("a business is not asked for addressProofUrl: its submission closes ADDRESS_PROOF, ADDRESS and COUNTRY", async () => {
    const p = await newPartner()
    const { id, urls } = await businessCustomer(p)
    const requested = await app.request("POST", `/sandbox/customers/${id}/kyc/reverification`, {
      apiKey: p.apiKey,
      body: { items: ["ADDRESS", "ADDRESS_PROOF", "COUNTRY"], message: "Please confirm the business address" }
    })
    expect(requested.status).toBe(201)
    const reply = await tier3(p, id, businessBody(urls))
    expect(reply.status).toBe(201)
    const verification = await summary(p, id)
    expect(verification.reverification).toBeNull()
    expect(verification.nextRequired).toEqual([])
  })
})
