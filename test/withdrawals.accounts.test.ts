import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreateCustomer } from "../src/customers/Api.js"
import { fixtures } from "./support/Fixtures.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
const fx = fixtures(() => app)
let apiKey: string

beforeAll(async () => {
  app = await startTestApp()
  ;({ apiKey } = await fx.partner())
})
afterAll(() => app?.close())

const newCustomer = async (country: CreateCustomer["country"] = "NG") => (await fx.customer({ apiKey }, { country })).id

const gtb = "058"
// Literal NUBANs with their CBN check digit for the bank (worked out by hand; test/simulators.vectors.test.ts
// pins the algorithm), so these tests read as realistic numbers. A check digit is not required to resolve.
const gtb123456789 = "1234567896"

describe("GET /customers/{id}/banks", () => {
  it("lists the country's banks as a plain array of { code, name, country, currency }", async () => {
    const customer = await newCustomer()
    const reply = await app.request("GET", `/partner/v1/customers/${customer}/banks?country=GH`, { apiKey })
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toBeUndefined()
    expect(reply.body.data).toContainEqual({ code: "040100", name: "GCB Bank", country: "GH", currency: "GHS" })
    expect(reply.body.data.every((bank: any) => bank.country === "GH" && bank.currency === "GHS")).toBe(true)
    const ng = await app.request("GET", `/partner/v1/customers/${customer}/banks?country=NG`, { apiKey })
    expect(ng.body.data).toContainEqual({ code: "058", name: "Guaranty Trust Bank", country: "NG", currency: "NGN" })
  })

  it("answers 400 naming country when it is missing or unsupported", async () => {
    const customer = await newCustomer()
    for (const query of ["", "?country=FR", "?country=ng"]) {
      const reply = await app.request("GET", `/partner/v1/customers/${customer}/banks${query}`, { apiKey })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain("country")
    }
  })

  it("answers 403 for another partner's customer", async () => {
    const customer = await newCustomer()
    const other = await app.newPartner()
    const reply = await app.request("GET", `/partner/v1/customers/${customer}/banks?country=NG`, { apiKey: other.apiKey })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
  })
})

describe("POST /customers/{id}/bank/verify-account", () => {
  it("resolves a realistic name, the same every time, in the customer's country by default", async () => {
    const customer = await newCustomer()
    const accountNumber = gtb123456789
    const body = { bankCode: gtb, accountNumber }
    const first = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, { apiKey, body })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({
      bankCode: gtb,
      bankName: "Guaranty Trust Bank",
      accountNumber,
      accountName: "OGUNLEYE CHINEDU AISHA",
      country: "NG",
      currency: "NGN"
    })
    expect(first.body.data.accountName).toMatch(/^[A-Z]+( [A-Z]+){1,2}$/)
    const again = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, { apiKey, body })
    expect(again.body.data.accountName).toBe(first.body.data.accountName)
    const other = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, {
      apiKey,
      body: { bankCode: gtb, accountNumber: "9876543216" }
    })
    expect(other.status).toBe(200)
  })

  it("resolves in another country when country is given", async () => {
    const customer = await newCustomer()
    const reply = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, {
      apiKey,
      body: { bankCode: "68", accountNumber: "123456789012", country: "KE" }
    })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ bankName: "Equity Bank Kenya", country: "KE", currency: "KES" })
  })

  it("resolves a number without a valid NUBAN check digit (sandbox test data is forgiving)", async () => {
    const customer = await newCustomer()
    // GTBank 058, serial 123456789: the check digit is 6 (1234567896); 1234567890 carries 0 and still resolves.
    const reply = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, {
      apiKey,
      body: { bankCode: gtb, accountNumber: "1234567890" }
    })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ accountNumber: "1234567890", accountName: "OKAFOR AISHA OLUWASEUN" })
  })

  it("refuses a wrong length, non-digits and an unknown bank, naming the field", async () => {
    const customer = await newCustomer()
    const good = gtb123456789
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ bankCode: gtb, accountNumber: "12345678" }, "accountNumber"],
      [{ bankCode: gtb, accountNumber: "12345678901" }, "accountNumber"],
      [{ bankCode: gtb, accountNumber: "12345abcde" }, "accountNumber"],
      [{ bankCode: "999", accountNumber: good }, "bankCode"],
      [{ accountNumber: good }, "bankCode"],
      [{ bankCode: gtb, accountNumber: good, country: "FR" }, "country"]
    ]
    for (const [body, field] of cases) {
      const reply = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, { apiKey, body })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain(field)
    }
  })

  it("answers the magic numbers: not found (400 BANK_ACCOUNT_NOT_FOUND) and bank unavailable (503 BANK_UNAVAILABLE)", async () => {
    const customer = await newCustomer()
    const notFound = "0000000001"
    const missing = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, {
      apiKey,
      body: { bankCode: gtb, accountNumber: notFound }
    })
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe("BANK_ACCOUNT_NOT_FOUND")
    const down = await app.request("POST", `/partner/v1/customers/${customer}/bank/verify-account`, {
      apiKey,
      body: { bankCode: gtb, accountNumber: "0000000002" }
    })
    expect(down.status).toBe(503)
    expect(down.body.code).toBe("BANK_UNAVAILABLE")
  })
})

describe("saved bank accounts", () => {
  const save = (customer: string, body: Record<string, unknown>) =>
    app.request("POST", `/partner/v1/customers/${customer}/accounts`, { apiKey, body })

  it("saves a verified account masked; the first is the default, a later one only when asked", async () => {
    const customer = await newCustomer()
    const firstNumber = "1112223333"
    const first = await save(customer, { bankCode: gtb, accountNumber: firstNumber })
    expect(first.status).toBe(201)
    expect(first.body.data).toMatchObject({
      customerId: customer,
      bankCode: gtb,
      bankName: "Guaranty Trust Bank",
      accountName: "ABUBAKAR OLUWASEUN AISHA",
      accountNumberLast4: firstNumber.slice(-4),
      accountNumberMasked: `******${firstNumber.slice(-4)}`,
      country: "NG",
      currency: "NGN",
      isDefault: true
    })
    expect(JSON.stringify(first.body)).not.toContain(firstNumber)

    const second = await save(customer, { bankCode: "057", accountNumber: "4445556669" })
    expect(second.status).toBe(201)
    expect(second.body.data.isDefault).toBe(false)

    const third = await save(customer, { bankCode: "044", accountNumber: "7778889998", isDefault: true })
    expect(third.body.data.isDefault).toBe(true)

    const list = await app.request("GET", `/partner/v1/customers/${customer}/accounts`, { apiKey })
    expect(list.status).toBe(200)
    expect(list.body.meta).toBeUndefined()
    expect(list.body.data.map((a: any) => [a.id, a.isDefault])).toEqual([
      [first.body.data.id, false],
      [second.body.data.id, false],
      [third.body.data.id, true]
    ])
    expect(JSON.stringify(list.body)).not.toContain(firstNumber)

    const made = await app.request("POST", `/partner/v1/customers/${customer}/accounts/${second.body.data.id}/default`, { apiKey })
    expect(made.status).toBe(200)
    expect(made.body.data).toMatchObject({ id: second.body.data.id, isDefault: true })
    const got = await app.request("GET", `/partner/v1/customers/${customer}/accounts/${third.body.data.id}`, { apiKey })
    expect(got.status).toBe(200)
    expect(got.body.data).toMatchObject({ id: third.body.data.id, isDefault: false })
    const defaults = await app.query("SELECT id FROM bank_accounts WHERE customer_id = $1 AND is_default", [customer])
    expect(defaults).toEqual([{ id: second.body.data.id }])
  })

  it("refuses an account the bank cannot resolve, a duplicate, and stores nothing for a refusal", async () => {
    const customer = await newCustomer()
    const missing = await save(customer, { bankCode: gtb, accountNumber: "0000000001" })
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe("BANK_ACCOUNT_NOT_FOUND")
    const down = await save(customer, { bankCode: gtb, accountNumber: "0000000002" })
    expect(down.status).toBe(503)
    const invalid = await save(customer, { bankCode: gtb, accountNumber: "012345678" })
    expect(invalid.status).toBe(400)
    expect(invalid.body.message).toContain("accountNumber")
    expect(await app.query("SELECT id FROM bank_accounts WHERE customer_id = $1", [customer])).toHaveLength(0)

    const number = "2223334444"
    expect((await save(customer, { bankCode: gtb, accountNumber: number })).status).toBe(201)
    const duplicate = await save(customer, { bankCode: gtb, accountNumber: number, isDefault: true })
    expect(duplicate.status).toBe(409)
    expect(duplicate.body.code).toBe("BANK_ACCOUNT_ALREADY_SAVED")
    expect(await app.query("SELECT id FROM bank_accounts WHERE customer_id = $1", [customer])).toHaveLength(1)
  })

  it("saves in the customer's own country: a Kenyan customer's account is KES", async () => {
    const customer = await newCustomer("KE")
    const reply = await save(customer, { bankCode: "01", accountNumber: "000123456789" })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ country: "KE", currency: "KES", bankName: "Kenya Commercial Bank", accountNumberMasked: "********6789" })
    const nigerian = await save(customer, { bankCode: gtb, accountNumber: gtb123456789 })
    expect(nigerian.status).toBe(400)
    expect(nigerian.body.message).toContain("bankCode")
  })

  it("answers 404 for an unknown or malformed account id (and leaves the default alone), 403 for a foreign customer", async () => {
    const customer = await newCustomer()
    const saved = await save(customer, { bankCode: gtb, accountNumber: "5556667777" })
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const get = await app.request("GET", `/partner/v1/customers/${customer}/accounts/${id}`, { apiKey })
      expect(get.status).toBe(404)
      expect(get.body.code).toBe("NOT_FOUND")
      const made = await app.request("POST", `/partner/v1/customers/${customer}/accounts/${id}/default`, { apiKey })
      expect(made.status).toBe(404)
    }
    const still = await app.request("GET", `/partner/v1/customers/${customer}/accounts/${saved.body.data.id}`, { apiKey })
    expect(still.body.data.isDefault).toBe(true)
    const other = await app.newPartner()
    const foreign = await app.request("GET", `/partner/v1/customers/${customer}/accounts`, { apiKey: other.apiKey })
    expect(foreign.status).toBe(403)
    const otherCustomer = await newCustomer()
    const crossed = await app.request("GET", `/partner/v1/customers/${otherCustomer}/accounts/${saved.body.data.id}`, { apiKey })
    expect(crossed.status).toBe(404)
  })
})
