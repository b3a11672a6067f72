import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkBeneficiary, defaultFees, minimumAmountFor, minimumAssetOf, splitCrossBorder } from "../src/globalsend/Rules.js"
import { parseDecimalString, toNumber } from "../src/money/Money.js"
import { findCorridor } from "../src/reference/Corridors.js"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { accountNameFor } from "../simulators/bank/NameEnquiry.js"
import { bankReturnReason, magicFailureReason, policyFailureReason as bankPolicyFailureReason } from "../simulators/bank/Payouts.js"
import { policyFailureReason as payoutPolicyFailureReason } from "../simulators/payout/Payouts.js"
import { internationalClient, type Partner } from "./support/InternationalClient.js"
import { samples } from "./support/KycHelpers.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Global send's rules over real HTTP (docs/global-send.md; the smoke test is test/globalsend.http.test.ts): every
 * corridor family, every refusal (each checked to move nothing: balances, events, sends, withdrawals and ledger
 * entries as before), the fee arithmetic to the last unit, idempotency across both paths and under concurrency, the
 * balances of completion and failure (USDT and local funding), the domestic NG corridor's withdrawal, the reads and
 * the payout rail's pending operations. The service clock is frozen: the rails answer only when a test advances it.
 *
 * The pure rules (src/globalsend/Rules.ts: the fee split, the minimum amount, the beneficiary form key by key) are
 * tested as functions first, with no database; the HTTP tests below keep what needs the service (nothing moved on
 * a refusal, the order of the checks, the stored send and its event).
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

const { advance, base, events, money, newPartner, tier3, upload, verifiedCustomer } = internationalClient(() => app)

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const initiate = (p: Partner, customerId: string, body: Record<string, unknown>, alias = false) =>
  app.request("POST", `${base(customerId)}/global-send${alias ? "" : "/initiate"}`, { apiKey: p.apiKey, body })

const getSend = (p: Partner, customerId: string, reference: string) =>
  app.request("GET", `${base(customerId)}/global-sends/${encodeURIComponent(reference)}`, { apiKey: p.apiKey })

const listSends = (p: Partner, customerId: string, query = "") =>
  app.request("GET", `${base(customerId)}/global-sends${query}`, { apiKey: p.apiKey })

const control = (p: Partner, customerId: string, reference: string, move: "complete" | "fail", body?: unknown) =>
  app.request("POST", `/sandbox/customers/${customerId}/global-sends/${encodeURIComponent(reference)}/${move}`, {
    apiKey: p.apiKey,
    ...(body === undefined ? {} : { body })
  })

const transactions = async (p: Partner, customerId: string) => {
  const reply = await app.request("GET", `${base(customerId)}/transactions?limit=100`, { apiKey: p.apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data as Array<any>
}

const withdrawals = async (p: Partner, customerId: string) => {
  const reply = await app.request("GET", `${base(customerId)}/withdrawals?limit=100`, { apiKey: p.apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data as Array<any>
}

const isMoneyEvent = (e: any) => String(e.type).startsWith("global_send.") || String(e.type).startsWith("withdrawal.")

/** Everything a refusal must leave as it was. */
const snapshot = async (p: Partner, customerId: string) => {
  const balances = await app.request("GET", `/sandbox/balances?customerId=${customerId}`, { apiKey: p.apiKey })
  expect(balances.status).toBe(200)
  const sends = await listSends(p, customerId, "?limit=100")
  expect(sends.status).toBe(200)
  return {
    balances: balances.body.data[0]?.balances ?? [],
    sends: (sends.body.data as Array<any>).map((s) => [s.id, s.status]),
    events: (await events(p, customerId)).filter(isMoneyEvent).map((e) => e.id),
    withdrawals: (await withdrawals(p, customerId)).map((w) => [w.id, w.status]),
    transactions: (await transactions(p, customerId)).map((t) => t.id)
  }
}
type Snapshot = Awaited<ReturnType<typeof snapshot>>

/** A refusal: the status, the code, the message, and nothing moved. */
const refused = async (
  p: Partner,
  customerId: string,
  before: Snapshot,
  reply: { status: number; body: any },
  status: number,
  code: string,
  message?: RegExp
) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(code)
  if (message !== undefined) expect(reply.body.message).toMatch(message)
  expect(await snapshot(p, customerId)).toEqual(before)
  return reply.body
}

const created = (reply: { status: number; body: any }) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.data
}

/** A customer registered in `country` (not verified: the African corridors need no enrolment), with USDT. */
const customerIn = async (p: Partner, country: string, phoneNumber: string, usdt?: number) => {
  const reply = await app.request("POST", "/partner/v1/customers", { apiKey: p.apiKey, body: customerBody({ country, phoneNumber }) })
  expect(reply.status).toBe(201)
  const id = reply.body.data.id as string
  if (usdt !== undefined) {
    const deposit = await app.request("POST", `/sandbox/customers/${id}/deposits`, {
      apiKey: p.apiKey,
      body: { asset: "USDT", network: "TRON", amount: usdt }
    })
    expect(deposit.status).toBe(201)
  }
  return id
}

const address = { line1: "1 Road", city: "Lagos", country: "NG" }

const setRates = async (p: Partner, buyRate: number, sellRate: number) =>
  expect((await app.request("PUT", "/sandbox/rates/NGN", { apiKey: p.apiKey, body: { buyRate, sellRate } })).status).toBe(200)

const kenya = { phone: "+254712345678", network: "M-PESA", accountName: "Wanjiru Kamau" }
const ghana = { phone: "+233241234567", network: "MTN", accountName: "Kwame Mensah" }
const uganda = { phone: "+256772123456", network: "MTN Mobile Money", accountName: "Okello Mukasa" }
const southAfrica = { branchCode: "250655", accountNumber: "62123456789", accountName: "Thabo Nkosi" }
const us = { routingNumber: "021000021", accountNumber: "000123456789", accountType: "checking", accountName: "John Smith" }
const gb = { sortCode: "200000", accountNumber: "55779911", accountName: "Oliver Smith" }
const de = { iban: "DE89370400440532013000", bic: "COBADEFFXXX", accountName: "Hans Müller" }
const nigeria = { bankCode: "058", accountNumber: "0123456789" }

const ke = (amount: number, extra: Record<string, unknown> = {}) => ({ corridor: "KE-KES-mobile", amount, purpose: "FAMILY_SUPPORT", beneficiary: kenya, ...extra })

// ---------------------------------------------------------------------------------------------------------------
// Pure rules (no database)

const corridor = (key: string) => {
  const found = findCorridor(key)
  if (found === undefined) throw new Error(`no corridor ${key}`)
  return found
}
const usdt = (amount: number | string) => parseDecimalString("USDT", String(amount))
/** The split in USDT major units, as a send shows it. */
const split = (key: string, amount: number, ownCountry = false) => {
  const s = splitCrossBorder(defaultFees, corridor(key), usdt(amount), ownCountry)
  return { amount: toNumber("USDT", s.amount), transferFee: toNumber("USDT", s.transferFee), partnerFee: toNumber("USDT", s.partnerFee), assetAmount: toNumber("USDT", s.assetAmount) }
}
const minimumAmount = (key: string, ownCountry = false) =>
  toNumber("USDT", minimumAmountFor(defaultFees, corridor(key), minimumAssetOf(defaultFees, corridor(key)), ownCountry))
/** The beneficiary check's refusal as the service words it (`<field>: <message>`), or the kept beneficiary. */
const beneficiaryCheck = (key: string, beneficiary: Record<string, unknown>) =>
  Either.match(checkBeneficiary(corridor(key), beneficiary), {
    onLeft: (violation) => `${violation.field}: ${violation.message}`,
    onRight: (checked) => checked.beneficiary
  })

describe("pure rules: the fee split (splitCrossBorder, defaultFees)", () => {
  it("1% rounded up to the unit above the 1 USDT minimum; assetAmount exact", () => {
    const cases: Array<[number, number, number]> = [
      [123.456789, 1.234568, 121.722221],
      [100, 1, 98.5],
      [99.999999, 1, 98.499999],
      [100.000001, 1.000001, 98.5],
      [100.01, 1.0001, 98.5099],
      [2.6, 1, 1.1],
      [500.000099, 5.000001, 494.500098]
    ]
    for (const [amount, transferFee, assetAmount] of cases) {
      expect(split("KE-KES-mobile", amount), String(amount)).toEqual({ amount, transferFee, partnerFee: 0.5, assetAmount })
    }
  })

  it("partner fees by family at 1000 USDT: mobile 0.5, African bank 1, americas_europe 2, china 3; own-country corridor no transfer fee", () => {
    expect(split("KE-KES-mobile", 1000)).toMatchObject({ transferFee: 10, partnerFee: 0.5, assetAmount: 989.5 })
    expect(split("ZA-ZAR-bank", 1000)).toMatchObject({ transferFee: 10, partnerFee: 1, assetAmount: 989 })
    expect(split("NG-NGN-bank", 1000)).toMatchObject({ transferFee: 10, partnerFee: 1, assetAmount: 989 })
    expect(split("US-USD-bank", 1000)).toMatchObject({ transferFee: 10, partnerFee: 2, assetAmount: 988 })
    expect(split("GB-GBP-bank", 250)).toMatchObject({ transferFee: 2.5, partnerFee: 2, assetAmount: 245.5 })
    expect(split("CN-CNY-bank", 1000)).toMatchObject({ transferFee: 10, partnerFee: 3, assetAmount: 987 })
    expect(split("KE-KES-mobile", 1000, true)).toMatchObject({ transferFee: 0, partnerFee: 0.5, assetAmount: 999.5 })
    expect(split("KE-KES-mobile", 123.456789, true)).toEqual({ amount: 123.456789, transferFee: 0, partnerFee: 0.5, assetAmount: 122.956789 })
  })

  it("the smallest amount that works: its split reaches the corridor's minimum, one unit less does not", () => {
    const cases: Array<[string, boolean, number]> = [
      ["KE-KES-mobile", false, 2.5],
      ["GH-GHS-mobile", false, 2.5],
      ["KE-KES-mobile", true, 1.5],
      ["ZA-ZAR-bank", false, 3],
      ["US-USD-bank", false, 4],
      ["CN-CNY-bank", false, 30]
    ]
    for (const [key, own, minimum] of cases) {
      expect(minimumAmount(key, own), `${key} ${own}`).toBe(minimum)
      const least = minimumAssetOf(defaultFees, corridor(key))
      expect(splitCrossBorder(defaultFees, corridor(key), usdt(minimum), own).assetAmount >= least, key).toBe(true)
      expect(splitCrossBorder(defaultFees, corridor(key), usdt(minimum) - 1n, own).assetAmount < least, key).toBe(true)
    }
    expect(toNumber("USDT", minimumAssetOf(defaultFees, corridor("CN-CNY-bank")))).toBe(26)
    expect(toNumber("USDT", minimumAssetOf(defaultFees, corridor("KE-KES-mobile")))).toBe(1)
  })
})

describe("pure rules: the beneficiary form (checkBeneficiary), key by key in the form's order", () => {
  it("missing, wrong type, not an option, not the pattern, too long: the key and what it must be", () => {
    const { accountName: _n, ...noName } = kenya
    const { network: _w, ...noNetwork } = kenya
    const ke = (beneficiary: Record<string, unknown>) => beneficiaryCheck("KE-KES-mobile", beneficiary)
    expect(ke({})).toBe("beneficiary.phone: is required (Mobile money number)")
    expect(ke(noNetwork)).toBe("beneficiary.network: is required (Mobile network)")
    expect(ke(noName)).toMatch(/^beneficiary\.accountName: is required/)
    expect(ke({ ...kenya, accountName: "" })).toMatch(/^beneficiary\.accountName: is required/)
    expect(ke({ ...kenya, accountName: null })).toMatch(/^beneficiary\.accountName: is required/)
    expect(ke({ ...kenya, phone: 254712345678 })).toBe("beneficiary.phone: must be a string (got 254712345678)")
    expect(ke({ ...kenya, network: ["M-PESA"] })).toMatch(/^beneficiary\.network: must be a string/)
    expect(ke({ ...kenya, network: "Safaricom" })).toBe("beneficiary.network: must be one of M-PESA, Airtel Money (got \"Safaricom\")")
    expect(ke({ ...kenya, network: "m-pesa" })).toMatch(/^beneficiary\.network: must be one of/)
    expect(ke({ ...kenya, phone: "0712345678" })).toMatch(
      /^beneficiary\.phone: must be \+254 and the 9-digit mobile number \(7XX or 1XX\), e\.g\. \+254712345678.* \(got "0712345678"\)$/)
    expect(ke({ ...kenya, phone: "+2547123456789" })).toMatch(/^beneficiary\.phone: /)
    // The first key in the form's order decides: phone before network.
    expect(ke({ ...kenya, phone: "1", network: "nope" })).toMatch(/^beneficiary\.phone: /)
    expect(ke({ ...kenya, accountName: "A".repeat(141) })).toBe("beneficiary.accountName: must be at most 140 characters")
    // Unknown keys are dropped; the kept values are the form's.
    expect(ke({ ...kenya, nickname: "dropped" })).toEqual(kenya)
  })

  it("another corridor's form: GH's phone and network, UG's network, ZA's branch code, NG's bank, US's account type", () => {
    expect(beneficiaryCheck("GH-GHS-mobile", { ...ghana, phone: kenya.phone })).toMatch(/^beneficiary\.phone: must be \+233/)
    expect(beneficiaryCheck("GH-GHS-mobile", { ...ghana, network: "M-PESA" })).toMatch(/^beneficiary\.network: must be one of MTN, Telecel, AirtelTigo/)
    expect(beneficiaryCheck("UG-UGX-mobile", { ...uganda, network: "MTN" })).toMatch(/^beneficiary\.network: /)
    const { branchCode: _b, ...noBranch } = southAfrica
    expect(beneficiaryCheck("ZA-ZAR-bank", noBranch)).toMatch(/^beneficiary\.branchCode: is required/)
    expect(beneficiaryCheck("ZA-ZAR-bank", { ...southAfrica, branchCode: "25065" })).toMatch(/^beneficiary\.branchCode: /)
    expect(beneficiaryCheck("ZA-ZAR-bank", { ...southAfrica, accountNumber: "12345678" })).toMatch(/^beneficiary\.accountNumber: /)
    expect(beneficiaryCheck("NG-NGN-bank", { bankCode: "58", accountNumber: "0123456789" })).toMatch(/^beneficiary\.bankCode: /)
    expect(beneficiaryCheck("NG-NGN-bank", { bankCode: "058", accountNumber: "123456789" })).toMatch(/^beneficiary\.accountNumber: /)
    expect(beneficiaryCheck("US-USD-bank", { ...us, accountType: "business" })).toBe("beneficiary.accountType: must be one of checking, savings (got \"business\")")
    expect(beneficiaryCheck("US-USD-bank", { ...us, routingNumber: "02100002" })).toMatch(/^beneficiary\.routingNumber: /)
    expect(beneficiaryCheck("DE-EUR-bank", { iban: de.iban, accountName: de.accountName })).toEqual({ iban: de.iban, accountName: de.accountName })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("corridor families", () => {
  it("African mobile money: GH, KE and UG with every network option; fee 1 (minimum) + 0.5; unknown keys dropped", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ["GH-GHS-mobile", ghana, "GH", "GHS"],
      ["KE-KES-mobile", kenya, "KE", "KES"],
      ["UG-UGX-mobile", uganda, "UG", "UGX"]
    ]
    const options: Record<string, Array<string>> = {
      "GH-GHS-mobile": ["MTN", "Telecel", "AirtelTigo"],
      "KE-KES-mobile": ["M-PESA", "Airtel Money"],
      "UG-UGX-mobile": ["MTN Mobile Money", "Airtel Money"]
    }
    let count = 0
    for (const [corridor, beneficiary, country, currency] of cases) {
      for (const network of options[corridor]!) {
        count++
        const reference = `mm-${count}`
        const send = created(await initiate(p, id, {
          reference, corridor, amount: 10, purpose: "GIFT", beneficiary: { ...beneficiary, network, nickname: "dropped" }
        }))
        expect(send).toMatchObject({
          reference, corridor, status: "PROCESSING", destinationCountry: country, destinationCurrency: currency, asset: "USDT",
          amount: 10, transferFee: 1, partnerFee: 0.5, assetAmount: 8.5, settledBy: "USDT_BALANCE", fundingCurrency: "USDT",
          fundingAmount: 10, rate: null, purpose: "GIFT", purposeNote: null, failureReason: null
        })
        expect(send.beneficiary).toEqual({ ...beneficiary, network })
      }
    }
    expect(count).toBe(7)
    expect(await money(p, id, "USDT")).toEqual({ available: 30, held: 70 })
    expect((await events(p, id, "global_send.initiated")).length).toBe(7)
    expect((await events(p, id)).filter((e) => String(e.type).startsWith("withdrawal."))).toEqual([])
  })

  it("African bank (ZA): branchCode, fee 1 + 1, the minimum is 3", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const send = created(await initiate(p, id, { reference: "za-1", corridor: "ZA-ZAR-bank", amount: 40, purpose: "SALARY", beneficiary: southAfrica }))
    expect(send).toMatchObject({
      corridor: "ZA-ZAR-bank", destinationCountry: "ZA", destinationCurrency: "ZAR", amount: 40, transferFee: 1, partnerFee: 1,
      assetAmount: 38, settledBy: "USDT_BALANCE", beneficiary: southAfrica
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 60, held: 40 })
    const before = await snapshot(p, id)
    const low = await refused(p, id, before, await initiate(p, id, { corridor: "ZA-ZAR-bank", amount: 2.999999, purpose: "SALARY", beneficiary: southAfrica }),
      400, "GLOBAL_SEND_BELOW_MINIMUM")
    expect(low.details).toEqual({ minimumAmount: 3, asset: "USDT" })
    expect(created(await initiate(p, id, { corridor: "ZA-ZAR-bank", amount: 3, purpose: "SALARY", beneficiary: southAfrica }))).toMatchObject({
      transferFee: 1, partnerFee: 1, assetAmount: 1
    })
  })

  it("NG-NGN-bank for a KE customer is cross-border (USDT, fees, no name enquiry, no withdrawal); for an NG customer it is domestic", async () => {
    const p = await newPartner({ mode: "manual" })
    const kenyan = await customerIn(p, "KE", "+254712345678", 100)
    const send = created(await initiate(p, kenyan, {
      reference: "ng-x", corridor: "NG-NGN-bank", amount: 50, purpose: "FAMILY_SUPPORT", beneficiary: { ...nigeria, accountName: "Someone Else" }
    }))
    expect(send).toMatchObject({
      corridor: "NG-NGN-bank", destinationCountry: "NG", destinationCurrency: "NGN", asset: "USDT", amount: 50, transferFee: 1,
      partnerFee: 1, assetAmount: 48, settledBy: "USDT_BALANCE", fundingCurrency: "USDT", fundingAmount: 50,
      beneficiary: { ...nigeria, accountName: "Someone Else" }
    })
    expect(await money(p, kenyan, "USDT")).toEqual({ available: 50, held: 50 })
    expect(await withdrawals(p, kenyan)).toEqual([])
    expect((await events(p, kenyan)).filter((e) => String(e.type).startsWith("withdrawal."))).toEqual([])
    // Settled by the payout partner, not the bank.
    const settled = await control(p, kenyan, "ng-x", "complete")
    expect(settled.status).toBe(200)
    expect(settled.body.data).toMatchObject({ status: "COMPLETED" })
    expect(await money(p, kenyan, "USDT")).toEqual({ available: 50, held: 0 })

    const nigerian = await verifiedCustomer(p, { NGN: 10_000 })
    const domestic = created(await initiate(p, nigerian, { reference: "ng-d", corridor: "NG-NGN-bank", amount: 1000, purpose: "FAMILY_SUPPORT", beneficiary: nigeria }))
    expect(domestic).toMatchObject({ asset: "NGN", settledBy: "LOCAL_BALANCE", transferFee: 0, partnerFee: 15, assetAmount: 985 })
  })

  it("a KE customer registered in KE pays no transfer fee on KE-KES-mobile (minimum 1.5), but does on GH", async () => {
    const p = await newPartner({ mode: "manual" })
    const kenyan = await customerIn(p, "KE", "+254712345678", 200)
    expect(created(await initiate(p, kenyan, ke(123.456789, { reference: "ke-own" })))).toMatchObject({
      amount: 123.456789, transferFee: 0, partnerFee: 0.5, assetAmount: 122.956789
    })
    const before = await snapshot(p, kenyan)
    const low = await refused(p, kenyan, before, await initiate(p, kenyan, ke(1.499999)), 400, "GLOBAL_SEND_BELOW_MINIMUM")
    expect(low.details).toEqual({ minimumAmount: 1.5, asset: "USDT" })
    expect(created(await initiate(p, kenyan, ke(1.5)))).toMatchObject({ transferFee: 0, partnerFee: 0.5, assetAmount: 1 })
    expect(created(await initiate(p, kenyan, { corridor: "GH-GHS-mobile", amount: 10, purpose: "GIFT", beneficiary: ghana }))).toMatchObject({
      transferFee: 1, partnerFee: 0.5, assetAmount: 8.5
    })
    // Its own currency is KES: another fiat is refused.
    const after = await snapshot(p, kenyan)
    await refused(p, kenyan, after, await initiate(p, kenyan, ke(10, { fundingCurrency: "NGN" })), 400, "BAD_REQUEST",
      /^fundingCurrency: must be USDT or KES \(got "NGN"\)/)
  })

  it("americas_europe after approval: US, GB and IBAN corridors (DE with and without bic, FR); fee 1% min 1 + 2", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 1003 })
    expect((await tier3(p, id, { dateOfBirth: "1990-04-12", address, destinationCountry: "US" })).status).toBe(201)
    expect((await app.request("POST", `/sandbox/customers/${id}/international/americas_europe/approve`, { apiKey: p.apiKey })).status).toBe(200)
    expect(await money(p, id, "USDT")).toEqual({ available: 1000, held: 0 })
    const us1 = created(await initiate(p, id, { reference: "us", corridor: "US-USD-bank", amount: 100, purpose: "EDUCATION", beneficiary: us }))
    expect(us1).toMatchObject({ destinationCountry: "US", destinationCurrency: "USD", transferFee: 1, partnerFee: 2, assetAmount: 97, beneficiary: us })
    const gb1 = created(await initiate(p, id, { reference: "gb", corridor: "GB-GBP-bank", amount: 250, purpose: "RENT_PROPERTY", beneficiary: gb }))
    expect(gb1).toMatchObject({ destinationCurrency: "GBP", transferFee: 2.5, partnerFee: 2, assetAmount: 245.5, beneficiary: gb })
    const de1 = created(await initiate(p, id, { reference: "de", corridor: "DE-EUR-bank", amount: 50, purpose: "TRAVEL", beneficiary: de }))
    expect(de1).toMatchObject({ destinationCountry: "DE", destinationCurrency: "EUR", transferFee: 1, partnerFee: 2, assetAmount: 47, beneficiary: de })
    const noBic = { iban: de.iban, accountName: de.accountName }
    expect(created(await initiate(p, id, { reference: "de2", corridor: "DE-EUR-bank", amount: 10, purpose: "TRAVEL", beneficiary: noBic })).beneficiary).toEqual(noBic)
    const fr = { iban: "FR1420041010050500013M02606", accountName: "Marie Dubois" }
    expect(created(await initiate(p, id, { reference: "fr", corridor: "FR-EUR-bank", amount: 4, purpose: "GIFT", beneficiary: fr }))).toMatchObject({
      transferFee: 1, partnerFee: 2, assetAmount: 1
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 586, held: 414 })
    const before = await snapshot(p, id)
    const low = await refused(p, id, before, await initiate(p, id, { corridor: "US-USD-bank", amount: 3.999999, purpose: "GIFT", beneficiary: us }),
      400, "GLOBAL_SEND_BELOW_MINIMUM")
    expect(low.details).toEqual({ minimumAmount: 4, asset: "USDT" })
    await refused(p, id, before, await initiate(p, id, { corridor: "DE-EUR-bank", amount: 10, purpose: "GIFT", beneficiary: { ...de, iban: "DE8937040044053201300" } }),
      400, "INVALID_BENEFICIARY", /^beneficiary\.iban: must be DE and 20 digits, capital letters, no spaces, e\.g\. DE89370400440532013000 \(got "DE8937040044053201300"\)$/)
    await refused(p, id, before, await initiate(p, id, { corridor: "DE-EUR-bank", amount: 10, purpose: "GIFT", beneficiary: { ...de, bic: "cobadeff" } }),
      400, "INVALID_BENEFICIARY", /^beneficiary\.bic: /)
    await refused(p, id, before, await initiate(p, id, { corridor: "GB-GBP-bank", amount: 10, purpose: "GIFT", beneficiary: { ...gb, sortCode: "20-00-00" } }),
      400, "INVALID_BENEFICIARY", /^beneficiary\.sortCode: /)
    // The beneficiary is checked before eligibility (China is not enrolled).
    const china = await refused(p, id, before, await initiate(p, id, { corridor: "CN-CNY-bank", amount: 100, purpose: "GOODS_PAYMENT", beneficiary: {} }),
      400, "INVALID_BENEFICIARY", /^beneficiary\.accountName: is required/)
    expect(china.details).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("refusals move nothing", () => {
  it("unknown corridor, the body's schema, purpose, purposeNote, fundingCurrency, decimals, balance", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100, NGN: 1000 })
    const before = await snapshot(p, id)
    await refused(p, id, before, await initiate(p, id, ke(10, { corridor: "XX-XXX-mobile" })), 400, "BAD_REQUEST",
      /^corridor: no corridor "XX-XXX-mobile"; GET \.\.\.\/global-send\/corridors lists them$/)
    await refused(p, id, before, await initiate(p, id, ke(10, { corridor: "ke-kes-mobile" })), 400, "BAD_REQUEST", /^corridor: /)
    await refused(p, id, before, await initiate(p, id, ke(10, { corridor: "" })), 400, "BAD_REQUEST", /corridor/)
    await refused(p, id, before, await initiate(p, id, ke(10, { purpose: "CHARITY" })), 400, "BAD_REQUEST", /^purpose: must be one of FAMILY_SUPPORT, /)
    await refused(p, id, before, await initiate(p, id, { corridor: "KE-KES-mobile", amount: 10, beneficiary: kenya }), 400, "BAD_REQUEST", /purpose/)
    await refused(p, id, before, await initiate(p, id, ke(10, { purpose: "OTHER" })), 400, "BAD_REQUEST",
      /^purposeNote: is required when purpose is OTHER$/)
    await refused(p, id, before, await initiate(p, id, ke(10, { purpose: "OTHER", purposeNote: "   " })), 400, "BAD_REQUEST", /purposeNote/)
    await refused(p, id, before, await initiate(p, id, ke(10, { purposeNote: "x".repeat(201) })), 400, "BAD_REQUEST", /purposeNote/)
    await refused(p, id, before, await initiate(p, id, ke(10, { fundingCurrency: "EUR" })), 400, "BAD_REQUEST",
      /^fundingCurrency: must be USDT or NGN \(got "EUR"\)$/)
    await refused(p, id, before, await initiate(p, id, ke(10, { fundingCurrency: "KES" })), 400, "BAD_REQUEST", /^fundingCurrency: must be USDT or NGN/)
    await refused(p, id, before, await initiate(p, id, ke(10, { fundingCurrency: "usdt" })), 400, "BAD_REQUEST", /^fundingCurrency: /)
    await refused(p, id, before, await initiate(p, id, ke(10.1234567)), 400, "BAD_REQUEST", /^amount: USDT allows at most 6 decimal places/)
    await refused(p, id, before, await initiate(p, id, ke(0)), 400, "BAD_REQUEST", /amount/)
    await refused(p, id, before, await initiate(p, id, ke(-5)), 400, "BAD_REQUEST", /amount/)
    await refused(p, id, before, await initiate(p, id, { ...ke(10), amount: "10" }), 400, "BAD_REQUEST", /amount/)
    await refused(p, id, before, await initiate(p, id, ke(10, { reference: "has space" })), 400, "BAD_REQUEST", /reference/)
    await refused(p, id, before, await initiate(p, id, ke(10, { reference: ".." })), 400, "BAD_REQUEST", /^reference: /)
    await refused(p, id, before, await initiate(p, id, ke(10, { beneficiary: "+254712345678" })), 400, "BAD_REQUEST", /beneficiary/)
    const short = await refused(p, id, before, await initiate(p, id, ke(100.000001)), 400, "INSUFFICIENT_BALANCE")
    expect(short.message).toMatch(/USDT/)
    // Funded from NGN at 1600 per USDT: 1 USDT is 1600 NGN, more than the 1000 NGN held.
    await setRates(p, 1600, 1500)
    await refused(p, id, before, await initiate(p, id, ke(10, { fundingCurrency: "NGN" })), 400, "INSUFFICIENT_BALANCE", /NGN/)
    // The alias refuses alike.
    await refused(p, id, before, await initiate(p, id, ke(10, { corridor: "XX-XXX-mobile" }), true), 400, "BAD_REQUEST", /^corridor: no corridor "XX-XXX-mobile"/)
    await refused(p, id, before, await initiate(p, id, ke(100.5), true), 400, "INSUFFICIENT_BALANCE")
    // OTHER with a note is accepted, the note trimmed.
    const other = created(await initiate(p, id, ke(10, { purpose: "OTHER", purposeNote: "  school trip  ", reference: "other" })))
    expect(other).toMatchObject({ purpose: "OTHER", purposeNote: "school trip" })
    const [initiated] = await events(p, id, "global_send.initiated")
    expect(initiated.data).toMatchObject({ reference: "other", purpose: "OTHER", purposeNote: "school trip" })
  })

  it("a bad beneficiary is 400 INVALID_BENEFICIARY with the rule's message (the rules: above), checked before eligibility, nothing moved", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const before = await snapshot(p, id)
    const bad = (beneficiary: Record<string, unknown>, corridor = "KE-KES-mobile") => initiate(p, id, { corridor, amount: 10, purpose: "GIFT", beneficiary })
    await refused(p, id, before, await bad({}), 400, "INVALID_BENEFICIARY", /^beneficiary\.phone: is required \(Mobile money number\)$/)
    await refused(p, id, before, await bad({ ...kenya, network: "Safaricom" }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.network: must be one of M-PESA, Airtel Money \(got "Safaricom"\)$/)
    const { branchCode: _b, ...noBranch } = southAfrica
    await refused(p, id, before, await bad(noBranch, "ZA-ZAR-bank"), 400, "INVALID_BENEFICIARY", /^beneficiary\.branchCode: is required/)
    // NG-NGN-bank's form applies before the name enquiry (NG customer: domestic).
    await refused(p, id, before, await bad({ bankCode: "58", accountNumber: "0123456789" }, "NG-NGN-bank"), 400, "INVALID_BENEFICIARY", /^beneficiary\.bankCode: /)
    // The beneficiary is checked before eligibility: a group corridor's bad form is refused as such.
    await refused(p, id, before, await bad({ ...us, accountType: "business" }, "US-USD-bank"), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.accountType: must be one of checking, savings \(got "business"\)$/)
  })

  it("the destination group NOT_STARTED, PENDING or REJECTED: 400 GLOBAL_SEND_NOT_ENABLED with details { group, status }", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 103 })
    const send = () => initiate(p, id, { corridor: "US-USD-bank", amount: 50, purpose: "GIFT", beneficiary: us })
    const notStarted = await refused(p, id, await snapshot(p, id), await send(), 400, "GLOBAL_SEND_NOT_ENABLED", /americas_europe/)
    expect(notStarted.details).toEqual({ group: "americas_europe", status: "NOT_STARTED" })
    // China too, before the minimum (the amount is far too low) is looked at.
    const cn = await initiate(p, id, {
      corridor: "CN-CNY-bank", amount: 1, purpose: "GOODS_PAYMENT",
      beneficiary: { accountName: "Wang Xiaoming", accountNumber: "6222021234567890123", bankCode: "102100099996", nameInLocalLanguage: "王小明", nationalIdNumber: "11010519491231002X", logisticsTracking: [{ trackingNumber: "SF1", carrierName: "SF" }], documents: [] }
    })
    expect(cn.status).toBe(400)
    expect(cn.body.code).toBe("INVALID_BENEFICIARY")

    expect((await tier3(p, id, { dateOfBirth: "1990-04-12", address, destinationCountry: "US" })).status).toBe(201)
    const pending = await refused(p, id, await snapshot(p, id), await send(), 400, "GLOBAL_SEND_NOT_ENABLED")
    expect(pending.details).toEqual({ group: "americas_europe", status: "PENDING" })
    // Even an amount below the minimum or beyond the balance is refused for eligibility first.
    const pendingLow = await initiate(p, id, { corridor: "US-USD-bank", amount: 1, purpose: "GIFT", beneficiary: us })
    expect(pendingLow.body.code).toBe("GLOBAL_SEND_NOT_ENABLED")

    const q = await newPartner()
    const rejectedId = await verifiedCustomer(q, { USDT: 103 })
    expect((await tier3(q, rejectedId, { dateOfBirth: "1990-04-12", address: { ...address, postalCode: "00003" }, destinationCountry: "GB" })).status).toBe(201)
    await advance(q)
    const rejected = await refused(q, rejectedId, await snapshot(q, rejectedId),
      await initiate(q, rejectedId, { corridor: "GB-GBP-bank", amount: 50, purpose: "GIFT", beneficiary: gb }), 400, "GLOBAL_SEND_NOT_ENABLED")
    expect(rejected.details).toEqual({ group: "americas_europe", status: "REJECTED" })
    // African corridors need no group.
    expect(created(await initiate(q, rejectedId, ke(10)))).toMatchObject({ status: "PROCESSING" })
  })

  it("below the minimum: the smallest amount by the fee rules is named and accepted, one unit less is refused (KE: 2.5)", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 10 })
    const before = await snapshot(p, id)
    const low = await refused(p, id, before, await initiate(p, id, ke(2.499999)), 400, "GLOBAL_SEND_BELOW_MINIMUM",
      /^amount: 2\.499999 USDT leaves 0\.999999 USDT after the fees \(transfer 1, payout partner 0\.5\).*The smallest amount that works is 2\.5 USDT$/)
    expect(low.details).toEqual({ minimumAmount: 2.5, asset: "USDT" })
    const tiny = await refused(p, id, before, await initiate(p, id, ke(0.000001)), 400, "GLOBAL_SEND_BELOW_MINIMUM")
    expect(tiny.details).toEqual({ minimumAmount: 2.5, asset: "USDT" })
    // Below the minimum is refused before the balance is looked at.
    const both = await refused(p, id, before, await initiate(p, id, { corridor: "GH-GHS-mobile", amount: 1, purpose: "GIFT", beneficiary: ghana }),
      400, "GLOBAL_SEND_BELOW_MINIMUM")
    expect(both.details).toEqual({ minimumAmount: 2.5, asset: "USDT" })
    expect(created(await initiate(p, id, ke(2.5)))).toMatchObject({ amount: 2.5, transferFee: 1, partnerFee: 0.5, assetAmount: 1 })
    expect(await money(p, id, "USDT")).toEqual({ available: 7.5, held: 2.5 })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("China", () => {
  const chinaCustomer = async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 103 })
    expect((await tier3(p, id, { dateOfBirth: "1990-04-12", address, destinationCountry: "CN" })).status).toBe(201)
    expect((await app.request("POST", `/sandbox/customers/${id}/international/china/approve`, { apiKey: p.apiKey })).status).toBe(200)
    const invoice = await upload(p, id, samples.pdf(), "invoice.pdf")
    const contract = await upload(p, id, samples.pdf(), "contract.pdf")
    const beneficiary = {
      accountName: "Wang Xiaoming", accountNumber: "6222021234567890123", bankCode: "102100099996", nameInLocalLanguage: "王小明",
      nationalIdNumber: "11010519491231002X",
      logisticsTracking: [{ trackingNumber: " SF123 ", carrierName: "SF Express", carrierCode: "SF" }, { trackingNumber: "YT9", carrierName: "YTO" }],
      documents: [{ type: "invoice", url: invoice }, { type: "contract", url: contract }]
    }
    return { p, id, beneficiary, invoice, contract }
  }
  const cn = (beneficiary: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    corridor: "CN-CNY-bank", amount: 100, purpose: "GOODS_PAYMENT", beneficiary, ...extra
  })

  it("purpose, logistics, documents and the form's keys: each refused naming the field, nothing moved", async () => {
    const { p, id, beneficiary, invoice, contract } = await chinaCustomer()
    const before = await snapshot(p, id)
    const send = (b: Record<string, unknown>, extra: Record<string, unknown> = {}) => initiate(p, id, cn(b, extra))
    await refused(p, id, before, await send(beneficiary, { purpose: "GIFT" }), 400, "BAD_REQUEST",
      /^purpose: must be GOODS_PAYMENT on the CN-CNY-bank corridor \(got GIFT\)$/)
    await refused(p, id, before, await send(beneficiary, { purpose: "OTHER", purposeNote: "machines" }), 400, "BAD_REQUEST", /^purpose: must be GOODS_PAYMENT/)
    const { logisticsTracking: _l, ...noLogistics } = beneficiary
    await refused(p, id, before, await send(noLogistics), 400, "INVALID_BENEFICIARY", /^beneficiary\.logisticsTracking: is required on the China corridor/)
    await refused(p, id, before, await send({ ...beneficiary, logisticsTracking: [] }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.logisticsTracking: must list at least one shipment/)
    await refused(p, id, before, await send({ ...beneficiary, logisticsTracking: { trackingNumber: "SF1", carrierName: "SF" } }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.logisticsTracking: must list at least one shipment/)
    await refused(p, id, before, await send({ ...beneficiary, logisticsTracking: [{ carrierName: "SF Express" }] }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.logisticsTracking\.0\.trackingNumber: is required$/)
    await refused(p, id, before, await send({ ...beneficiary, logisticsTracking: [{ trackingNumber: "SF1", carrierName: "SF" }, { trackingNumber: "  ", carrierName: "SF" }] }),
      400, "INVALID_BENEFICIARY", /^beneficiary\.logisticsTracking\.1\.trackingNumber: must be 1 to 100 characters$/)
    await refused(p, id, before, await send({ ...beneficiary, logisticsTracking: [{ trackingNumber: "SF1" }] }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.logisticsTracking\.0\.carrierName: is required$/)
    await refused(p, id, before, await send({ ...beneficiary, logisticsTracking: ["SF1"] }), 400, "INVALID_BENEFICIARY", /^beneficiary\.logisticsTracking\.0: must be an object/)
    const { documents: _d, ...noDocuments } = beneficiary
    await refused(p, id, before, await send(noDocuments), 400, "INVALID_BENEFICIARY", /^beneficiary\.documents: is required on the CN-CNY-bank corridor/)
    await refused(p, id, before, await send({ ...beneficiary, documents: [] }), 400, "INVALID_BENEFICIARY", /^beneficiary\.documents: must include an invoice/)
    await refused(p, id, before, await send({ ...beneficiary, documents: [{ type: "contract", url: contract }] }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.documents: must include an invoice/)
    await refused(p, id, before, await send({ ...beneficiary, documents: [{ type: "invoice", url: invoice }] }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.documents: must include .*contract/)
    await refused(p, id, before, await send({ ...beneficiary, documents: [{ type: "invoice", url: invoice }, { type: "receipt", url: contract }] }), 400,
      "INVALID_BENEFICIARY", /^beneficiary\.documents\.1\.type: must be one of invoice, contract \(got "receipt"\)$/)
    await refused(p, id, before, await send({ ...beneficiary, documents: [{ type: "invoice" }, { type: "contract", url: contract }] }), 400,
      "INVALID_BENEFICIARY", /^beneficiary\.documents\.0\.url: /)
    await refused(p, id, before, await send({ ...beneficiary, documents: { invoice, contract } }), 400, "INVALID_BENEFICIARY", /^beneficiary\.documents: must be a list/)
    // Another customer's upload, and a url of no upload at all.
    const other = await verifiedCustomer(p, {}, false)
    const foreign = await upload(p, other, samples.pdf(), "contract.pdf")
    await refused(p, id, before, await send({ ...beneficiary, documents: [{ type: "invoice", url: invoice }, { type: "contract", url: foreign }] }), 400,
      "KYC_DOCUMENT_NOT_FOUND", /^beneficiary\.documents\.1\.url: is not a document uploaded for this customer$/)
    await refused(p, id, before, await send({ ...beneficiary, documents: [{ type: "invoice", url: "https://example.com/invoice.pdf" }, { type: "contract", url: contract }] }),
      400, "KYC_DOCUMENT_NOT_FOUND", /^beneficiary\.documents\.0\.url: is not a document uploaded for this customer$/)
    // The form's keys.
    await refused(p, id, before, await send({ ...beneficiary, bankCode: "10210009999" }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.bankCode: must be the branch's 12-digit CNAPS code, e\.g\. 102100099996 \(got "10210009999"\)$/)
    await refused(p, id, before, await send({ ...beneficiary, bankCode: "1021000999961" }), 400, "INVALID_BENEFICIARY", /^beneficiary\.bankCode: /)
    await refused(p, id, before, await send({ ...beneficiary, nameInLocalLanguage: "Wang Xiaoming" }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.nameInLocalLanguage: must be 2 to 30 Chinese characters/)
    await refused(p, id, before, await send({ ...beneficiary, nationalIdNumber: "11010519491231002" }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.nationalIdNumber: must be 18 characters: 17 digits and a digit or X/)
    await refused(p, id, before, await send({ ...beneficiary, nationalIdNumber: "11010519491231002x" }), 400, "INVALID_BENEFICIARY", /^beneficiary\.nationalIdNumber: /)
    await refused(p, id, before, await send({ ...beneficiary, accountNumber: "622202123456789" }), 400, "INVALID_BENEFICIARY", /^beneficiary\.accountNumber: /)
    // The purpose comes before the beneficiary.
    await refused(p, id, before, await send({}, { purpose: "GIFT" }), 400, "BAD_REQUEST", /^purpose: /)
  })

  it("26 USDT after fees: 29.99 refused with minimumAmount 30, 30 accepted; the stored beneficiary", async () => {
    const { p, id, beneficiary, invoice, contract } = await chinaCustomer()
    expect(await money(p, id, "USDT")).toEqual({ available: 100, held: 0 })
    const before = await snapshot(p, id)
    const low = await refused(p, id, before, await initiate(p, id, cn(beneficiary, { amount: 29.99 })), 400, "GLOBAL_SEND_BELOW_MINIMUM",
      /the CN-CNY-bank corridor needs at least 26 USDT after fees/)
    expect(low.details).toEqual({ minimumAmount: 30, asset: "USDT" })
    const edge = await refused(p, id, before, await initiate(p, id, cn(beneficiary, { amount: 29.999999 })), 400, "GLOBAL_SEND_BELOW_MINIMUM")
    expect(edge.details).toEqual({ minimumAmount: 30, asset: "USDT" })
    const send = created(await initiate(p, id, cn({ ...beneficiary, extra: "dropped" }, { amount: 30, reference: "cn-30" })))
    expect(send).toMatchObject({
      corridor: "CN-CNY-bank", destinationCountry: "CN", destinationCurrency: "CNY", amount: 30, transferFee: 1, partnerFee: 3, assetAmount: 26,
      purpose: "GOODS_PAYMENT", settledBy: "USDT_BALANCE"
    })
    expect(send.beneficiary).toEqual({
      accountName: "Wang Xiaoming", accountNumber: "6222021234567890123", bankCode: "102100099996", nameInLocalLanguage: "王小明",
      nationalIdNumber: "11010519491231002X",
      logisticsTracking: [{ trackingNumber: "SF123", carrierName: "SF Express", carrierCode: "SF" }, { trackingNumber: "YT9", carrierName: "YTO" }],
      documents: [{ type: "invoice", url: invoice }, { type: "contract", url: contract }]
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 70, held: 30 })
    // The rest of the balance: 70 -> fee 1 (0.7 is under the minimum), partner 3, 66.
    expect(created(await initiate(p, id, cn(beneficiary, { amount: 70 })))).toMatchObject({ transferFee: 1, partnerFee: 3, assetAmount: 66 })
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 100 })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("fee arithmetic", () => {
  it("the stored send and its global_send.initiated event carry the rule's split (the rule: above); the amount is held", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 2000 })
    const cases: Array<[number, number, number]> = [
      [123.456789, 1.234568, 121.722221],
      [100.000001, 1.000001, 98.5],
      [500.000099, 5.000001, 494.500098]
    ]
    let total = 0
    for (const [index, [amount, transferFee, assetAmount]] of cases.entries()) {
      const send = created(await initiate(p, id, ke(amount, { reference: `fee-${index}` })))
      expect(send, String(amount)).toMatchObject({ amount, transferFee, partnerFee: 0.5, assetAmount, fundingAmount: amount })
      const [initiated] = await events(p, id, "global_send.initiated")
      expect(initiated.data).toMatchObject({ reference: `fee-${index}`, transferFee, partnerFee: 0.5, assetAmount })
      total += Math.round(amount * 1e6)
    }
    expect(await money(p, id, "USDT")).toEqual({ available: (2000e6 - total) / 1e6, held: total / 1e6 })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("idempotency", () => {
  it("a repeated reference answers the original on both paths, whatever the body, and moves nothing", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const original = created(await initiate(p, id, ke(50, { reference: "same" })))
    const before = await snapshot(p, id)
    for (const alias of [false, true]) {
      for (const body of [
        ke(50, { reference: "same" }),
        ke(10, { reference: "same" }),
        { reference: "same", corridor: "XX", amount: 1, purpose: "GIFT", beneficiary: {} },
        { reference: "same", corridor: "ZA-ZAR-bank", amount: 99, purpose: "OTHER", beneficiary: southAfrica },
        ke(5000, { reference: "same", fundingCurrency: "EUR" })
      ]) {
        const again = created(await initiate(p, id, body, alias))
        expect(again).toEqual(original)
      }
    }
    expect(await snapshot(p, id)).toEqual(before)
    expect((await events(p, id, "global_send.initiated")).length).toBe(1)
    // After completion a retry answers the send as it is now.
    expect((await control(p, id, "same", "complete")).status).toBe(200)
    const now = created(await initiate(p, id, ke(1, { reference: "same" }), true))
    expect(now).toMatchObject({ id: original.id, status: "COMPLETED", amount: 50 })
    // A send without a reference gets a fresh one each time.
    const a = created(await initiate(p, id, ke(10)))
    const b = created(await initiate(p, id, ke(10)))
    expect(a.reference).toMatch(/^ref_[0-9a-f]{24}$/)
    expect(b.reference).not.toBe(a.reference)
    expect(await money(p, id, "USDT")).toEqual({ available: 30, held: 20 })
  })

  it("10 concurrent requests with one reference, on both paths: one send, one reservation, one event", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => initiate(p, id, ke(30, { reference: "race" }), i % 2 === 1)))
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(new Set(replies.map((r) => r.body.data.id)).size).toBe(1)
    expect(await money(p, id, "USDT")).toEqual({ available: 70, held: 30 })
    expect((await events(p, id, "global_send.initiated")).length).toBe(1)
    expect((await listSends(p, id)).body.data.length).toBe(1)
    const entries = (await transactions(p, id)).filter((t) => t.reason === "global_send")
    expect(entries.map((t) => [t.type, t.amount, t.reference])).toEqual([["DEBIT", 30, "race"]])
  })

  it("a refused request leaves its reference free: the same reference later succeeds (cross-border, domestic, another customer)", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 10, NGN: 1000 })
    const before = await snapshot(p, id)
    // Refusals after the reference is claimed in the customer's transaction: eligibility, minimum, balance.
    await refused(p, id, before, await initiate(p, id, { reference: "free", corridor: "US-USD-bank", amount: 5, purpose: "GIFT", beneficiary: us }),
      400, "GLOBAL_SEND_NOT_ENABLED")
    await refused(p, id, before, await initiate(p, id, ke(2, { reference: "free" })), 400, "GLOBAL_SEND_BELOW_MINIMUM")
    await refused(p, id, before, await initiate(p, id, ke(11, { reference: "free" }), true), 400, "INSUFFICIENT_BALANCE")
    await refused(p, id, before, await initiate(p, id, { reference: "free", corridor: "NG-NGN-bank", amount: 100, purpose: "GIFT", beneficiary: nigeria }),
      400, "GLOBAL_SEND_BELOW_MINIMUM")
    await refused(p, id, before, await initiate(p, id, { reference: "free", corridor: "NG-NGN-bank", amount: 2000, purpose: "GIFT", beneficiary: nigeria }),
      400, "INSUFFICIENT_BALANCE")
    expect((await getSend(p, id, "free")).status).toBe(404)
    const domestic = created(await initiate(p, id, { reference: "free", corridor: "NG-NGN-bank", amount: 500, purpose: "GIFT", beneficiary: nigeria }))
    expect(domestic).toMatchObject({ reference: "free", asset: "NGN", amount: 500, partnerFee: 12.5, assetAmount: 487.5 })
    expect(await money(p, id, "NGN")).toEqual({ available: 500, held: 500 })
    // Cross-border, after a refusal with another customer's would-be reference.
    await refused(p, id, await snapshot(p, id), await initiate(p, id, ke(20, { reference: "free-2" })), 400, "INSUFFICIENT_BALANCE")
    const other = await verifiedCustomer(p, { USDT: 50 })
    expect(created(await initiate(p, other, ke(20, { reference: "free-2" })))).toMatchObject({ reference: "free-2", customerId: other })
    expect(created(await initiate(p, id, ke(10, { reference: "free-3" })))).toMatchObject({ amount: 10, assetAmount: 8.5 })
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 10 })
  })

  it("the same reference for another customer of the partner: 409 REFERENCE_IN_USE, nothing moved", async () => {
    const p = await newPartner({ mode: "manual" })
    const first = await verifiedCustomer(p, { USDT: 100 })
    const second = await verifiedCustomer(p, { USDT: 100 })
    created(await initiate(p, first, ke(20, { reference: "shared" })))
    const before = await snapshot(p, second)
    await refused(p, second, before, await initiate(p, second, ke(20, { reference: "shared" })), 409, "REFERENCE_IN_USE", /shared/)
    await refused(p, second, before, await initiate(p, second, ke(20, { reference: "shared" }), true), 409, "REFERENCE_IN_USE")
    // Another partner's customer may use it.
    const q = await newPartner({ mode: "manual" })
    const elsewhere = await verifiedCustomer(q, { USDT: 100 })
    expect(created(await initiate(q, elsewhere, ke(20, { reference: "shared" }))).reference).toBe("shared")
    expect(await money(p, first, "USDT")).toEqual({ available: 80, held: 20 })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("completion and failure", () => {
  it("USDT funding: complete posts the hold (available unchanged); a second control is 400 GLOBAL_SEND_STATE_CONFLICT", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const send = created(await initiate(p, id, ke(40, { reference: "done" })))
    expect(await money(p, id, "USDT")).toEqual({ available: 60, held: 40 })
    const done = await control(p, id, "done", "complete")
    expect(done.status, JSON.stringify(done.body)).toBe(200)
    expect(done.body.data).toMatchObject({ id: send.id, status: "COMPLETED", failureReason: null, transferFee: 1, partnerFee: 0.5, assetAmount: 38.5 })
    expect(await money(p, id, "USDT")).toEqual({ available: 60, held: 0 })
    const [completed] = await events(p, id, "global_send.completed")
    expect(completed.data).toEqual({
      customerId: id, reference: "done", corridor: "KE-KES-mobile", status: "COMPLETED", destinationCurrency: "KES", asset: "USDT",
      assetAmount: 38.5, partnerFee: 0.5, transferFee: 1, settledBy: "USDT_BALANCE", purpose: "FAMILY_SUPPORT", purposeNote: null
    })
    const before = await snapshot(p, id)
    await refused(p, id, before, await control(p, id, "done", "complete"), 400, "GLOBAL_SEND_STATE_CONFLICT", /COMPLETED/)
    await refused(p, id, before, await control(p, id, "done", "fail", { reason: "late" }), 400, "GLOBAL_SEND_STATE_CONFLICT", /COMPLETED/)
    await refused(p, id, before, await control(p, id, "nope", "complete"), 404, "GLOBAL_SEND_NOT_FOUND")
    await refused(p, id, before, await control(p, id, "nope", "fail", { reason: "x" }), 404, "GLOBAL_SEND_NOT_FOUND")
    expect((await getSend(p, id, "done")).body.data.status).toBe("COMPLETED")
    // Only the reservation's debit shows on the available balance.
    expect((await transactions(p, id)).filter((t) => t.reference === "done").map((t) => [t.type, t.reason, t.amount, t.currency])).toEqual([
      ["DEBIT", "global_send", 40, "USDT"]
    ])
  })

  it("USDT funding: fail with a reason returns everything; the reason is kept; then any control conflicts", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const send = created(await initiate(p, id, ke(40, { reference: "nope" })))
    const before = await snapshot(p, id)
    await refused(p, id, before, await control(p, id, "nope", "fail", {}), 400, "BAD_REQUEST", /reason/)
    await refused(p, id, before, await control(p, id, "nope", "fail", { reason: "   " }), 400, "BAD_REQUEST", /reason/)
    const failed = await control(p, id, "nope", "fail", { reason: "  Wallet suspended  " })
    expect(failed.status, JSON.stringify(failed.body)).toBe(200)
    expect(failed.body.data).toMatchObject({ id: send.id, status: "FAILED", failureReason: "Wallet suspended" })
    expect(await money(p, id, "USDT")).toEqual({ available: 100, held: 0 })
    const [failedEvent] = await events(p, id, "global_send.failed")
    expect(failedEvent.data).toMatchObject({ reference: "nope", status: "FAILED", assetAmount: 38.5 })
    expect((await getSend(p, id, "nope")).body.data).toMatchObject({ status: "FAILED", failureReason: "Wallet suspended" })
    expect((await transactions(p, id)).filter((t) => t.reference === "nope").map((t) => [t.type, t.reason, t.amount, t.resourceType, t.resourceId])).toEqual([
      ["CREDIT", "global_send_refund", 40, "global_send", send.id],
      ["DEBIT", "global_send", 40, "global_send", send.id]
    ])
    const after = await snapshot(p, id)
    await refused(p, id, after, await control(p, id, "nope", "complete"), 400, "GLOBAL_SEND_STATE_CONFLICT", /FAILED/)
    await refused(p, id, after, await control(p, id, "nope", "fail", { reason: "again" }), 400, "GLOBAL_SEND_STATE_CONFLICT")
    // A retry with the reference answers the failed send; it does not try again.
    expect(created(await initiate(p, id, ke(40, { reference: "nope" })))).toMatchObject({ id: send.id, status: "FAILED" })
    expect(await snapshot(p, id)).toEqual(after)
  })

  it("local-currency funding: complete takes the NGN hold, fail returns it; USDT untouched", async () => {
    const p = await newPartner({ mode: "manual" })
    await setRates(p, 1600, 1500)
    const id = await verifiedCustomer(p, { NGN: 100_000, USDT: 5 })
    const first = created(await initiate(p, id, ke(20, { reference: "l-1", fundingCurrency: "NGN" })))
    expect(first).toMatchObject({
      asset: "USDT", amount: 20, transferFee: 1, partnerFee: 0.5, assetAmount: 18.5, settledBy: "LOCAL_CONVERSION",
      fundingCurrency: "NGN", fundingAmount: 32000, rate: 1600
    })
    // 12.345678 USDT x 1600 = 19753.0848 NGN, rounded up to the kobo.
    const second = created(await initiate(p, id, ke(12.345678, { reference: "l-2", fundingCurrency: "NGN" }), true))
    expect(second).toMatchObject({ fundingAmount: 19753.09, transferFee: 1, assetAmount: 10.845678, settledBy: "LOCAL_CONVERSION" })
    expect(await money(p, id, "NGN")).toEqual({ available: 48246.91, held: 51753.09 })
    expect(await money(p, id, "USDT")).toEqual({ available: 5, held: 0 })
    // The rate of a new send does not change a locked one.
    await setRates(p, 1700, 1500)
    expect((await control(p, id, "l-1", "complete")).body.data).toMatchObject({ status: "COMPLETED", fundingAmount: 32000, rate: 1600 })
    expect(await money(p, id, "NGN")).toEqual({ available: 48246.91, held: 19753.09 })
    const failed = await control(p, id, "l-2", "fail", { reason: "Rejected by the wallet" })
    expect(failed.body.data).toMatchObject({ status: "FAILED", failureReason: "Rejected by the wallet" })
    expect(await money(p, id, "NGN")).toEqual({ available: 68000, held: 0 })
    expect(await money(p, id, "USDT")).toEqual({ available: 5, held: 0 })
    expect((await events(p, id, "global_send.completed")).map((e) => e.data.settledBy)).toEqual(["LOCAL_CONVERSION"])
    expect((await transactions(p, id)).filter((t) => t.reference === "l-2").map((t) => [t.type, t.reason, t.amount, t.currency])).toEqual([
      ["CREDIT", "global_send_refund", 19753.09, "NGN"],
      ["DEBIT", "global_send", 19753.09, "NGN"]
    ])
  })

  it("the auto rail: the job after a control does nothing; policy failure and magic names fail with their reasons", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 100 })
    created(await initiate(p, id, ke(10, { reference: "ctl-fail" })))
    created(await initiate(p, id, ke(10, { reference: "ctl-done", beneficiary: { ...kenya, accountName: "Closed Account" } })))
    created(await initiate(p, id, ke(10, { reference: "magic-1", beneficiary: { ...kenya, accountName: "  name   MISMATCH " } })))
    created(await initiate(p, id, ke(10, { reference: "magic-2", beneficiary: { ...kenya, accountName: "Limit Exceeded" } })))
    created(await initiate(p, id, ke(10, { reference: "plain" })))
    expect(await money(p, id, "USDT")).toEqual({ available: 50, held: 50 })
    expect((await control(p, id, "ctl-fail", "fail", { reason: "operator" })).status).toBe(200)
    expect((await control(p, id, "ctl-done", "complete")).status).toBe(200)
    expect(await money(p, id, "USDT")).toEqual({ available: 60, held: 30 })
    await advance(p, 899)
    expect((await getSend(p, id, "plain")).body.data.status).toBe("PROCESSING")
    await advance(p, 1)
    expect((await getSend(p, id, "ctl-fail")).body.data).toMatchObject({ status: "FAILED", failureReason: "operator" })
    expect((await getSend(p, id, "ctl-done")).body.data).toMatchObject({ status: "COMPLETED", failureReason: null })
    expect((await getSend(p, id, "magic-1")).body.data).toMatchObject({ status: "FAILED", failureReason: "The recipient's name does not match the account holder's" })
    expect((await getSend(p, id, "magic-2")).body.data).toMatchObject({
      status: "FAILED", failureReason: "The recipient's account cannot receive this amount (limit exceeded)"
    })
    expect((await getSend(p, id, "plain")).body.data.status).toBe("COMPLETED")
    // ctl-done and plain posted (20), the rest returned.
    expect(await money(p, id, "USDT")).toEqual({ available: 80, held: 0 })
    expect((await events(p, id, "global_send.completed")).map((e) => e.data.reference).sort()).toEqual(["ctl-done", "plain"])
    expect((await events(p, id, "global_send.failed")).map((e) => e.data.reference).sort()).toEqual(["ctl-fail", "magic-1", "magic-2"])

    const q = await newPartner({ mode: "auto", outcome: "failure", delaySeconds: 30 })
    const other = await verifiedCustomer(q, { USDT: 10 })
    created(await initiate(q, other, ke(10, { reference: "policy" })))
    await advance(q, 30)
    expect((await getSend(q, other, "policy")).body.data).toMatchObject({ status: "FAILED", failureReason: payoutPolicyFailureReason })
    expect(await money(q, other, "USDT")).toEqual({ available: 10, held: 0 })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("domestic NG", () => {
  const withdrawalOf = async (p: Partner, id: string, reference: string) => {
    const found = (await withdrawals(p, id)).filter((w) => w.reference === reference)
    expect(found.length).toBe(1)
    return found[0]
  }

  it("a withdrawal under the same reference: withdrawal fee as partnerFee, no transfer fee, the bank's name; completed by the bank", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { NGN: 10_000 })
    const send = created(await initiate(p, id, {
      reference: "ng-1", corridor: "NG-NGN-bank", amount: 5000, purpose: "FAMILY_SUPPORT", fundingCurrency: "USDT",
      beneficiary: { ...nigeria, extra: "dropped" }
    }))
    const accountName = accountNameFor("NG", "0123456789")
    expect(send).toMatchObject({
      reference: "ng-1", corridor: "NG-NGN-bank", status: "PROCESSING", destinationCountry: "NG", destinationCurrency: "NGN", asset: "NGN",
      amount: 5000, transferFee: 0, partnerFee: 35, assetAmount: 4965, settledBy: "LOCAL_BALANCE", fundingCurrency: "NGN",
      fundingAmount: 5000, rate: null
    })
    expect(send.beneficiary).toEqual({ ...nigeria, accountName })
    expect(await money(p, id, "NGN")).toEqual({ available: 5000, held: 5000 })
    const withdrawal = await withdrawalOf(p, id, "ng-1")
    expect(withdrawal).toMatchObject({
      amount: "4965.00", fee: "35.00", totalDebited: "5000.00", currency: "NGN", status: "PROCESSING",
      bankAccount: { accountName, accountNumberLast4: "6789" }
    })
    expect((await events(p, id, "withdrawal.submitted")).map((e) => e.data.reference)).toEqual(["ng-1"])
    const [initiated] = await events(p, id, "global_send.initiated")
    expect(initiated.data).toEqual({
      customerId: id, reference: "ng-1", corridor: "NG-NGN-bank", status: "PROCESSING", destinationCurrency: "NGN", asset: "NGN",
      assetAmount: 4965, partnerFee: 35, transferFee: 0, settledBy: "LOCAL_BALANCE", purpose: "FAMILY_SUPPORT", purposeNote: null
    })
    // Not the payout partner's to settle.
    const before = await snapshot(p, id)
    await refused(p, id, before, await control(p, id, "ng-1", "complete"), 400, "GLOBAL_SEND_STATE_CONFLICT", /withdrawal/)
    await refused(p, id, before, await control(p, id, "ng-1", "fail", { reason: "no" }), 400, "GLOBAL_SEND_STATE_CONFLICT", /withdrawal/)
    // Not among the payout rail's operations (it is the bank's withdrawal).
    const ops = await app.request("GET", `/sandbox/operations?rail=payout&customerId=${id}`, { apiKey: p.apiKey })
    expect(ops.body.data).toEqual([])
    await advance(p, 60)
    expect((await events(p, id, "withdrawal.completed")).map((e) => e.data.reference)).toEqual(["ng-1"])
    const [completed] = await events(p, id, "global_send.completed")
    expect(completed.data).toMatchObject({ reference: "ng-1", status: "COMPLETED", asset: "NGN", assetAmount: 4965, partnerFee: 35, transferFee: 0 })
    expect((await getSend(p, id, "ng-1")).body.data).toMatchObject({ status: "COMPLETED", failureReason: null })
    expect(await money(p, id, "NGN")).toEqual({ available: 5000, held: 0 })
    const after = await snapshot(p, id)
    await refused(p, id, after, await control(p, id, "ng-1", "complete"), 400, "GLOBAL_SEND_STATE_CONFLICT")
    // The reference is the withdrawal's too: POST .../withdraw with it answers this withdrawal.
    const again = await app.request("POST", `${base(id)}/withdraw`, { apiKey: p.apiKey, body: { amount: 100, reference: "ng-1" } })
    expect(again.status, JSON.stringify(again.body)).toBe(201)
    expect(again.body.data).toMatchObject({ id: withdrawal.id, amount: "4965.00", status: "COMPLETED" })
    expect(await snapshot(p, id)).toEqual(after)
  })

  it("below the withdrawal minimum (NGN 110.56), too many decimals, insufficient NGN, name enquiry failures: nothing moved", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { NGN: 1000 })
    const before = await snapshot(p, id)
    const send = (amount: number, beneficiary: Record<string, unknown> = nigeria) =>
      initiate(p, id, { corridor: "NG-NGN-bank", amount, purpose: "GIFT", beneficiary })
    const low = await refused(p, id, before, await send(110.55), 400, "GLOBAL_SEND_BELOW_MINIMUM", /110\.56/)
    expect(low.details).toEqual({ minimumAmount: 110.56, asset: "NGN" })
    await refused(p, id, before, await send(100.001), 400, "BAD_REQUEST", /^amount: NGN allows at most 2 decimal places/)
    await refused(p, id, before, await send(1000.01), 400, "INSUFFICIENT_BALANCE", /NGN/)
    await refused(p, id, before, await send(500, { bankCode: "999", accountNumber: "0123456789" }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.bankCode: no bank with code 999 in NG$/)
    await refused(p, id, before, await send(500, { bankCode: "058", accountNumber: "0000000001" }), 400, "INVALID_BENEFICIARY",
      /^beneficiary\.accountNumber: no account 0000000001 at bank 058$/)
    await refused(p, id, before, await send(500, { bankCode: "058", accountNumber: "0000000002" }), 503, "BANK_RAIL_UNAVAILABLE")
    const edge = created(await initiate(p, id, { reference: "min", corridor: "NG-NGN-bank", amount: 110.56, purpose: "GIFT", beneficiary: nigeria }))
    expect(edge).toMatchObject({ amount: 110.56, partnerFee: 10.56, assetAmount: 100, transferFee: 0 })
    expect(await money(p, id, "NGN")).toEqual({ available: 889.44, held: 110.56 })
  })

  it("a reference already used by a withdrawal: 409 REFERENCE_IN_USE, nothing moved", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { NGN: 10_000 })
    expect((await app.request("POST", `${base(id)}/accounts`, { apiKey: p.apiKey, body: { bankCode: "058", accountNumber: "1234567896" } })).status).toBe(201)
    const withdrawn = await app.request("POST", `${base(id)}/withdraw`, { apiKey: p.apiKey, body: { amount: 1000, reference: "wd-1" } })
    expect(withdrawn.status, JSON.stringify(withdrawn.body)).toBe(201)
    const before = await snapshot(p, id)
    await refused(p, id, before, await initiate(p, id, { reference: "wd-1", corridor: "NG-NGN-bank", amount: 500, purpose: "GIFT", beneficiary: nigeria }),
      409, "REFERENCE_IN_USE", /withdrawal/)
    await refused(p, id, before, await initiate(p, id, { reference: "wd-1", corridor: "NG-NGN-bank", amount: 500, purpose: "GIFT", beneficiary: nigeria }, true),
      409, "REFERENCE_IN_USE")
    // ... and another customer's domestic reference too.
    const other = await verifiedCustomer(p, { NGN: 10_000 })
    created(await initiate(p, other, { reference: "dom-shared", corridor: "NG-NGN-bank", amount: 500, purpose: "GIFT", beneficiary: nigeria }))
    await refused(p, id, before, await initiate(p, id, { reference: "dom-shared", corridor: "NG-NGN-bank", amount: 500, purpose: "GIFT", beneficiary: nigeria }),
      409, "REFERENCE_IN_USE")
  })

  it("the bank fails it (rail policy, the withdrawal control, a magic account) or returns it: global_send.failed and the money back", async () => {
    // Rail policy failure.
    const p = await newPartner()
    expect((await app.request("PUT", "/sandbox/rails/bank", { apiKey: p.apiKey, body: { mode: "auto", outcome: "failure" } })).status).toBe(200)
    const id = await verifiedCustomer(p, { NGN: 10_000 })
    created(await initiate(p, id, { reference: "bank-no", corridor: "NG-NGN-bank", amount: 2000, purpose: "GIFT", beneficiary: nigeria }))
    expect(await money(p, id, "NGN")).toEqual({ available: 8000, held: 2000 })
    await advance(p, 60)
    expect((await events(p, id, "withdrawal.failed")).map((e) => e.data.reference)).toEqual(["bank-no"])
    expect((await events(p, id, "global_send.failed")).map((e) => [e.data.reference, e.data.status])).toEqual([["bank-no", "FAILED"]])
    expect((await getSend(p, id, "bank-no")).body.data).toMatchObject({ status: "FAILED", failureReason: bankPolicyFailureReason })
    expect(await money(p, id, "NGN")).toEqual({ available: 10_000, held: 0 })
    expect((await events(p, id, "global_send.completed"))).toEqual([])

    // The withdrawal's sandbox control (manual bank rail).
    const q = await newPartner()
    expect((await app.request("PUT", "/sandbox/rails/bank", { apiKey: q.apiKey, body: { mode: "manual" } })).status).toBe(200)
    const other = await verifiedCustomer(q, { NGN: 10_000 })
    created(await initiate(q, other, { reference: "ctl", corridor: "NG-NGN-bank", amount: 3000, purpose: "GIFT", beneficiary: nigeria }))
    const withdrawal = await withdrawalOf(q, other, "ctl")
    const failed = await app.request("POST", `/sandbox/withdrawals/${withdrawal.id}/fail`, { apiKey: q.apiKey, body: { reason: "Account frozen" } })
    expect(failed.status, JSON.stringify(failed.body)).toBe(200)
    expect((await getSend(q, other, "ctl")).body.data).toMatchObject({ status: "FAILED", failureReason: "Account frozen" })
    expect(await money(q, other, "NGN")).toEqual({ available: 10_000, held: 0 })
    expect((await events(q, other, "global_send.failed")).map((e) => e.data.reference)).toEqual(["ctl"])
    const after = await snapshot(q, other)
    await refused(q, other, after, await control(q, other, "ctl", "complete"), 400, "GLOBAL_SEND_STATE_CONFLICT")

    // Magic accounts: 0000000003 fails, 0000000004 completes and is then returned by the bank.
    const r = await newPartner()
    const third = await verifiedCustomer(r, { NGN: 10_000 })
    created(await initiate(r, third, { reference: "m3", corridor: "NG-NGN-bank", amount: 1000, purpose: "GIFT", beneficiary: { bankCode: "058", accountNumber: "0000000003" } }))
    created(await initiate(r, third, { reference: "m4", corridor: "NG-NGN-bank", amount: 1000, purpose: "GIFT", beneficiary: { bankCode: "058", accountNumber: "0000000004" } }))
    await advance(r, 60)
    expect((await getSend(r, third, "m4")).body.data.status).toBe("COMPLETED")
    await advance(r, 60)
    expect((await getSend(r, third, "m3")).body.data).toMatchObject({ status: "FAILED", failureReason: magicFailureReason })
    expect((await getSend(r, third, "m4")).body.data).toMatchObject({ status: "FAILED", failureReason: bankReturnReason })
    expect((await events(r, third, "withdrawal.reversed")).map((e) => e.data.reference)).toEqual(["m4"])
    expect((await events(r, third, "global_send.completed")).map((e) => e.data.reference)).toEqual(["m4"])
    expect((await events(r, third, "global_send.failed")).map((e) => e.data.reference).sort()).toEqual(["m3", "m4"])
    // m3 whole back; m4's fee (15) kept by the bank return.
    expect(await money(r, third, "NGN")).toEqual({ available: 9985, held: 0 })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("reads and access", () => {
  it("the list is newest first with limit and cursor; one by reference; unknown 404", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    expect((await listSends(p, id)).body).toMatchObject({ data: [], meta: { nextCursor: null } })
    for (const reference of ["r-1", "r-2", "r-3"]) created(await initiate(p, id, ke(10, { reference })))
    const page1 = await listSends(p, id, "?limit=2")
    expect(page1.status).toBe(200)
    expect(page1.body.data.map((s: any) => s.reference)).toEqual(["r-3", "r-2"])
    expect(page1.body.meta.nextCursor).toEqual(expect.any(String))
    const page2 = await listSends(p, id, `?limit=2&cursor=${encodeURIComponent(page1.body.meta.nextCursor)}`)
    expect(page2.body.data.map((s: any) => s.reference)).toEqual(["r-1"])
    expect(page2.body.meta.nextCursor).toBeNull()
    expect((await listSends(p, id, "?limit=0")).status).toBe(400)
    expect((await listSends(p, id, "?cursor=garbage")).status).toBe(400)
    const one = await getSend(p, id, "r-2")
    expect(one.status).toBe(200)
    expect(one.body.data).toEqual(page1.body.data[1])
    const missing = await getSend(p, id, "r-9")
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("GLOBAL_SEND_NOT_FOUND")
    // Another customer of the same partner has none of them.
    const other = await verifiedCustomer(p, {})
    expect((await getSend(p, other, "r-2")).body.code).toBe("GLOBAL_SEND_NOT_FOUND")
    expect((await listSends(p, other)).body.data).toEqual([])
  })

  it("403 CUSTOMER_FORBIDDEN for another partner's customer on every route; nothing moved", async () => {
    const p = await newPartner({ mode: "manual" })
    const q = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    created(await initiate(p, id, ke(10, { reference: "mine" })))
    const before = await snapshot(p, id)
    const as = (reply: { status: number; body: any }) => {
      expect(reply.status, JSON.stringify(reply.body)).toBe(403)
      expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
    }
    as(await initiate(q, id, ke(10, { reference: "theirs" })))
    as(await initiate(q, id, ke(10, { reference: "mine" }), true))
    as(await listSends(q, id))
    as(await getSend(q, id, "mine"))
    as(await control(q, id, "mine", "complete"))
    as(await control(q, id, "mine", "fail", { reason: "x" }))
    expect(await snapshot(p, id)).toEqual(before)
  })

  it("GET .../transactions lists the reservation and the refund under the send's reference", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const send = created(await initiate(p, id, ke(25.5, { reference: "tx-1" })))
    const [debit] = await transactions(p, id)
    expect(debit).toMatchObject({
      type: "DEBIT", reason: "global_send", amount: 25.5, currency: "USDT", balanceAfter: 74.5, reference: "tx-1",
      resourceType: "global_send", resourceId: send.id
    })
    expect((await control(p, id, "tx-1", "fail", { reason: "gone" })).status).toBe(200)
    const [refund] = await transactions(p, id)
    expect(refund).toMatchObject({
      type: "CREDIT", reason: "global_send_refund", amount: 25.5, currency: "USDT", balanceAfter: 100, reference: "tx-1",
      resourceType: "global_send", resourceId: send.id
    })
    const filtered = await app.request("GET", `${base(id)}/transactions?currency=USDT&limit=2`, { apiKey: p.apiKey })
    expect(filtered.body.data.map((t: any) => t.reason)).toEqual(["global_send_refund", "global_send"])
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("sandbox operations", () => {
  it("GET /sandbox/operations?rail=payout lists PROCESSING cross-border sends with complete and fail actions that work", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const first = created(await initiate(p, id, ke(20, { reference: "op-1" })))
    // Newest first by (createdAt, id): a second apart on the frozen clock, so the order is not the ids'.
    await advance(p, 1)
    const second = created(await initiate(p, id, { reference: "op-2", corridor: "ZA-ZAR-bank", amount: 30, purpose: "GIFT", beneficiary: southAfrica }))
    const ops = await app.request("GET", "/sandbox/operations?rail=payout", { apiKey: p.apiKey })
    expect(ops.status).toBe(200)
    const items = ops.body.data as Array<any>
    expect(items.map((o) => [o.kind, o.rail, o.id, o.reference, o.status, o.customerId])).toEqual([
      ["global_send", "payout", second.id, "op-2", "PROCESSING", id],
      ["global_send", "payout", first.id, "op-1", "PROCESSING", id]
    ])
    expect(items[1]).toMatchObject({ summary: "USDT 18.5 to KES via KE-KES-mobile (Wanjiru Kamau)", dueAt: null })
    expect(items[0].summary).toBe("USDT 28 to ZAR via ZA-ZAR-bank (Thabo Nkosi)")
    const action = (item: any, name: string) => item.actions.find((a: any) => a.name === name)
    expect(action(items[1], "complete")).toMatchObject({
      method: "POST", path: `/api/v1/sandbox/customers/${id}/global-sends/op-1/complete`, body: null, reason: "none"
    })
    expect(action(items[1], "fail")).toMatchObject({ method: "POST", path: `/api/v1/sandbox/customers/${id}/global-sends/op-1/fail`, reason: "required" })
    const run = (a: any, body?: unknown) =>
      app.request(a.method, a.path.replace(/^\/api\/v1/, ""), { apiKey: p.apiKey, ...(body === undefined ? {} : { body }) })
    const done = await run(action(items[1], "complete"))
    expect(done.status, JSON.stringify(done.body)).toBe(200)
    expect(done.body.data).toMatchObject({ reference: "op-1", status: "COMPLETED" })
    const failed = await run(action(items[0], "fail"), { reason: "Beneficiary bank closed" })
    expect(failed.status, JSON.stringify(failed.body)).toBe(200)
    expect(failed.body.data).toMatchObject({ reference: "op-2", status: "FAILED", failureReason: "Beneficiary bank closed" })
    expect(await money(p, id, "USDT")).toEqual({ available: 80, held: 0 })
    expect((await app.request("GET", "/sandbox/operations?rail=payout", { apiKey: p.apiKey })).body.data).toEqual([])
    // Another partner sees none of them.
    const q = await newPartner()
    expect((await app.request("GET", "/sandbox/operations?rail=payout", { apiKey: q.apiKey })).body.data).toEqual([])
    // On the manual rail a magic name waits for a control like any other send.
    created(await initiate(p, id, ke(10, { reference: "op-3", beneficiary: { ...kenya, accountName: "Closed Account" } })))
    await advance(p, 900)
    const [waiting] = (await app.request("GET", "/sandbox/operations?rail=payout", { apiKey: p.apiKey })).body.data
    expect(waiting).toMatchObject({ reference: "op-3", status: "PROCESSING", dueAt: null, summary: "USDT 8.5 to KES via KE-KES-mobile (Closed Account)" })
    expect((await control(p, id, "op-3", "complete")).body.data.status).toBe("COMPLETED")
    expect(await money(p, id, "USDT")).toEqual({ available: 70, held: 0 })
  })

  it("on the auto rail the operation carries dueAt (created + delay) and disappears once the job answers", async () => {
    const p = await newPartner({ mode: "auto", delaySeconds: 120 })
    const id = await verifiedCustomer(p, { USDT: 100 })
    const send = created(await initiate(p, id, ke(20, { reference: "due" })))
    const [item] = (await app.request("GET", `/sandbox/operations?rail=payout&customerId=${id}`, { apiKey: p.apiKey })).body.data
    expect(item).toMatchObject({ id: send.id, kind: "global_send" })
    expect(new Date(item.dueAt).getTime() - new Date(send.createdAt).getTime()).toBe(120_000)
    const due = await app.request("GET", "/sandbox/clock/due?seconds=120&limit=100", { apiKey: p.apiKey })
    expect(due.status).toBe(200)
    const job = (due.body.data as Array<any>).find((d) => d.resourceId === send.id)
    expect(job).toMatchObject({ kind: "job", name: "payout.global_send_outcome", customerId: id, at: item.dueAt })
    await advance(p, 120)
    expect((await app.request("GET", `/sandbox/operations?rail=payout&customerId=${id}`, { apiKey: p.apiKey })).body.data).toEqual([])
    expect((await getSend(p, id, "due")).body.data.status).toBe("COMPLETED")
  })
})
