import { Effect, Schema } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CustomerForbidden } from "../src/api/ApiError.js"
import { International } from "../src/international/International.js"
import { PayoutRailUnavailable } from "../src/rails/Errors.js"
import { Corridor, corridors, findCorridor, type RecipientField } from "../src/reference/Corridors.js"
import { supportedCountries } from "../src/reference/Countries.js"
import { destinationGroupOfCountry, destinationGroups } from "../src/reference/Groups.js"
import { asId, startServices, type ServiceHarness } from "./support/ServiceHarness.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The global-send corridors (docs/international.md): the reference data itself (src/reference/Corridors.ts and
 * Groups.ts: consistency, every pattern against its documented example and against bad values, the examples' own
 * check digits); the rules of the list at the service level (`International.corridors` over the services, no HTTP:
 * the same list for every customer, the customer check, production's PayoutRailUnavailable without a payout adapter
 * and a staging deployment's simulated list); then the contract of `GET .../global-send/corridors` over real HTTP
 * on one server: the exact list in the envelope, the literal corridors, the one 403 body, authentication, 405.
 */

// ---------------------------------------------------------------------------------------------------------------
// Reference data
// ---------------------------------------------------------------------------------------------------------------

const patterned = (corridor: Corridor) => corridor.recipientSchema.filter((field) => field.pattern !== undefined)

/**
 * Values each patterned field must refuse, per corridor and key. Every patterned field of the data has an entry
 * (a test checks it), so a new field cannot arrive without its bad values.
 */
const ibanBad = (example: string) => [example.slice(0, -1), `${example}0`, example.toLowerCase(), `${example.slice(0, 4)} ${example.slice(4)}`, `XX${example.slice(2)}`]
const bicBad = ["DEUTDEF", "deutdeff", "DEUT DEFF", "12345678", "DEUTDEFF5001"]
const badValues: Record<string, Record<string, ReadonlyArray<string>>> = {
  "NG-NGN-bank": { bankCode: ["58", "0580", "05a", ""], accountNumber: ["012345678", "01234567890", "012345678a", "0123 456789"] },
  "GH-GHS-mobile": { phone: ["0241234567", "+23324123456", "+2332412345678", "+233311234567", "+2348012345678", "233241234567"] },
  "KE-KES-mobile": { phone: ["0712345678", "+25471234567", "+2547123456789", "+254212345678", "+2348012345678"] },
  "UG-UGX-mobile": { phone: ["0772123456", "+25677212345", "+2567721234567", "+256412123456", "+2348012345678"] },
  "ZA-ZAR-bank": { branchCode: ["25065", "2506555", "25065a"], accountNumber: ["12345678", "123456789012", "6212345678a"] },
  "US-USD-bank": { routingNumber: ["02100002", "0210000210", "02100002a"], accountNumber: ["123", "123456789012345678", "00012345678a"] },
  "CA-CAD-bank": { institutionNumber: ["04", "0004", "0a4"], transitNumber: ["1234", "123456", "1234a"], accountNumber: ["123456", "1234567890123", "123456a"] },
  "MX-MXN-bank": { clabe: ["00201007777777777", "0020100777777777712", "00201007777777777a"] },
  "BR-BRL-bank": {
    pixKey: ["1234567890", "123456789012", "+5511", "5511987654321", "ada@", "ada@example", "123E4567-E89B-12D3-A456-426614174000", "not a key"],
    taxId: ["1234567890", "123.456.789-09", "123456789012"]
  },
  "AR-ARS-bank": { cbu: ["285059094009041813520", "28505909400904181352011", "285059094009041813520a"], taxId: ["20-12345678-6", "2012345678", "201234567861"] },
  "CO-COP-bank": { bankCode: ["100", "10070", "10a7"], accountNumber: ["12345", "123456789012345678", "1234567890a"], documentNumber: ["1234", "1234567890123456", "abc12345", "1020-304050"] },
  "CL-CLP-bank": {
    rut: ["12.345.678-5", "123456785", "12345678-k", "123456-5", "12345678-55"],
    bankCode: ["12", "0123", "01a"],
    accountNumber: ["12345", "123456789012345678901", "12345678a"]
  },
  "PE-PEN-bank": { cci: ["0021930012345678901", "002193001234567890123", "0021930012345678901a"], documentNumber: ["1234567", "1234567890123", "abcdefgh"] },
  "GB-GBP-bank": { sortCode: ["20-00-00", "20000", "2000000"], accountNumber: ["5577991", "557799112", "5577991a"] },
  "DE-EUR-bank": { iban: ibanBad("DE89370400440532013000"), bic: bicBad },
  "FR-EUR-bank": { iban: ibanBad("FR1420041010050500013M02606"), bic: bicBad },
  "ES-EUR-bank": { iban: ibanBad("ES9121000418450200051332"), bic: bicBad },
  "IT-EUR-bank": { iban: ibanBad("IT60X0542811101000000123456"), bic: bicBad },
  "NL-EUR-bank": { iban: ibanBad("NL91ABNA0417164300"), bic: bicBad },
  "PT-EUR-bank": { iban: ibanBad("PT50000201231234567890154"), bic: bicBad },
  "IE-EUR-bank": { iban: ibanBad("IE29AIBK93115212345678"), bic: bicBad },
  "BE-EUR-bank": { iban: ibanBad("BE68539007547034"), bic: bicBad },
  "AT-EUR-bank": { iban: ibanBad("AT611904300234573201"), bic: bicBad },
  "SE-SEK-bank": { iban: ibanBad("SE4550000000058398257466"), bic: bicBad },
  "PL-PLN-bank": { iban: ibanBad("PL61109010140000071219812874"), bic: bicBad },
  "CN-CNY-bank": {
    accountNumber: ["622202123456789", "62220212345678901234", "622202123456789012a"],
    bankCode: ["10210009999", "1021000999961", "10210009999a"],
    nameInLocalLanguage: ["王", "Wang Xiaoming", "王小明1", "王 小明", "ワンシャオミン"],
    nationalIdNumber: ["11010519491231002x", "1101051949123100", "110105194912310021X", "11010519491231002Y"]
  }
}

/** More values that must pass, beyond each field's placeholder. */
const goodValues: Record<string, Record<string, ReadonlyArray<string>>> = {
  "NG-NGN-bank": { bankCode: ["058", "000013", "999058"] },
  "GH-GHS-mobile": { phone: ["+233201234567", "+233551234567", "+233271234567"] },
  "KE-KES-mobile": { phone: ["+254722000000", "+254110123456", "+254101234567"] },
  "UG-UGX-mobile": { phone: ["+256701234567", "+256752345678"] },
  "US-USD-bank": { accountNumber: ["1234", "12345678901234567"] },
  "BR-BRL-bank": {
    pixKey: ["12345678909", "11222333000181", "+5511987654321", "+551132654321", "ada.obi@example.com.br", "123e4567-e89b-12d3-a456-426614174000"],
    taxId: ["11222333000181"]
  },
  "CL-CLP-bank": { rut: ["1234567-4", "11111111-1", "10000013-K"] },
  "DE-EUR-bank": { bic: ["COBADEFF", "COBADEFFXXX", "DEUTDEDB101"] },
  "CN-CNY-bank": { nameInLocalLanguage: ["李娜", "阿依古丽·买买提"], nationalIdNumber: ["110105194912310021"] }
}

/** Check digits of the documented examples: they are real-format values, not just pattern-shaped. */
const ibanValid = (iban: string) => {
  const digits = (iban.slice(4) + iban.slice(0, 4)).split("").map((c) => parseInt(c, 36).toString()).join("")
  return BigInt(digits) % 97n === 1n
}
const weighted = (digits: string, weights: ReadonlyArray<number>) =>
  digits.split("").reduce((sum, d, i) => sum + Number(d) * weights[i % weights.length]!, 0)

describe("reference data: destination groups (src/reference/Groups.ts)", () => {
  it("has americas_europe and china, with their payout partners and the SPEC's default fees read from the group", () => {
    expect(destinationGroups.map((group) => [group.key, group.payoutPartnerName, group.countries.length])).toEqual([
      ["americas_europe", "Meridian Payouts", 20],
      ["china", "Silk Road Pay", 1]
    ])
    for (const group of destinationGroups) {
      expect(group.registrationFee).toEqual({
        individual: { amount: "3", currency: "USDT" },
        business: { amount: "11", currency: "USDT" }
      })
    }
    expect(destinationGroups[1]!.countries).toEqual(["CN"])
  })

  it("lists ISO alpha-2 countries, each once and in one group at most", () => {
    const all = destinationGroups.flatMap((group) => group.countries)
    expect(new Set(all).size).toBe(all.length)
    for (const country of all) expect(country).toMatch(/^[A-Z]{2}$/)
    expect(destinationGroups[0]!.countries).toEqual(expect.arrayContaining(["US", "CA", "MX", "BR", "GB", "DE", "FR", "PL"]))
    expect(destinationGroupOfCountry("CN")?.key).toBe("china")
    expect(destinationGroupOfCountry("DE")?.key).toBe("americas_europe")
    expect(destinationGroupOfCountry("NG")).toBeUndefined()
  })
})

describe("reference data: corridors (src/reference/Corridors.ts)", () => {
  it("decodes with the contract's schema (what the route answers)", () => {
    expect(Schema.decodeUnknownSync(Schema.Array(Corridor))(corridors)).toEqual(corridors)
  })

  it("keys are unique and read <country>-<currency>-<bank|mobile>", () => {
    const keys = corridors.map((c) => c.corridor)
    expect(new Set(keys).size).toBe(keys.length)
    for (const c of corridors) {
      expect(c.corridor).toBe(`${c.country}-${c.currency}-${c.deliveryMethod === "bank" ? "bank" : "mobile"}`)
      expect(c.country).toMatch(/^[A-Z]{2}$/)
      expect(c.currency).toMatch(/^[A-Z]{3}$/)
      expect(findCorridor(c.corridor)).toBe(c)
    }
  })

  it("the African corridors need no enrolment; every other corridor's country is in its group, and every group country has a corridor", () => {
    for (const c of corridors) {
      if (c.region === "africa") {
        expect(c.group, c.corridor).toBeNull()
      } else {
        expect(c.group, c.corridor).not.toBeNull()
        expect(destinationGroupOfCountry(c.country)?.key, c.corridor).toBe(c.group)
      }
    }
    for (const group of destinationGroups) {
      for (const country of group.countries) {
        expect(corridors.some((c) => c.country === country && c.group === group.key), `${group.key} ${country}`).toBe(true)
      }
    }
  })

  it("serves every country a customer can be registered in (the domestic corridors included)", () => {
    for (const { country, currency } of supportedCountries) {
      expect(corridors.some((c) => c.country === country && c.currency === currency), country).toBe(true)
    }
    expect(corridors.filter((c) => c.deliveryMethod === "mobile_money").map((c) => c.corridor)).toEqual(["GH-GHS-mobile", "KE-KES-mobile", "UG-UGX-mobile"])
  })

  it("recipient forms: unique keys; a pattern always comes with a hint and a placeholder; options without a pattern", () => {
    for (const c of corridors) {
      const keys = c.recipientSchema.map((f) => f.key)
      expect(new Set(keys).size, c.corridor).toBe(keys.length)
      expect(c.recipientSchema.some((f) => f.required), c.corridor).toBe(true)
      for (const field of c.recipientSchema) {
        const where = `${c.corridor} ${field.key}`
        expect(field.label.length, where).toBeGreaterThan(0)
        if (field.pattern !== undefined) {
          expect(field.patternHint, where).toBeDefined()
          expect(field.placeholder, where).toBeDefined()
          expect(field.options, where).toBeUndefined()
        }
        if (field.options !== undefined) {
          expect(field.options.length, where).toBeGreaterThan(1)
          expect(new Set(field.options).size, where).toBe(field.options.length)
        }
      }
    }
    const mobile = findCorridor("KE-KES-mobile")!.recipientSchema
    expect(mobile.map((f) => f.key)).toEqual(["phone", "network", "accountName"])
  })

  it("every pattern is an anchored regular expression that compiles with and without the u flag, and only uses ASCII", () => {
    for (const c of corridors) {
      for (const field of patterned(c)) {
        const pattern = field.pattern!
        expect(pattern.startsWith("^") && pattern.endsWith("$"), `${c.corridor} ${field.key}`).toBe(true)
        expect(() => new RegExp(pattern)).not.toThrow()
        expect(() => new RegExp(pattern, "u")).not.toThrow()
        expect(pattern, `${c.corridor} ${field.key}`).toMatch(/^[\x20-\x7e]+$/)
      }
    }
  })

  it("every pattern accepts its placeholder (the documented example) and the other good values, with or without the u flag", () => {
    for (const c of corridors) {
      for (const field of patterned(c)) {
        const values = [field.placeholder!, ...(goodValues[c.corridor]?.[field.key] ?? [])]
        for (const value of values) {
          for (const flags of ["", "u"]) {
            expect(new RegExp(field.pattern!, flags).test(value), `${c.corridor} ${field.key} ${JSON.stringify(value)} /${flags}`).toBe(true)
          }
        }
      }
    }
    for (const [corridor, fields] of Object.entries(goodValues)) {
      for (const key of Object.keys(fields)) expect(findCorridor(corridor)?.recipientSchema.find((f) => f.key === key)?.pattern, `${corridor} ${key}`).toBeDefined()
    }
  })

  it("every pattern refuses obvious bad values, and every patterned field has some", () => {
    const listed = new Set<string>()
    for (const c of corridors) {
      for (const field of patterned(c)) {
        const where = `${c.corridor} ${field.key}`
        const bad = badValues[c.corridor]?.[field.key]
        expect(bad, `${where}: no bad values listed`).toBeDefined()
        expect(bad!.length, where).toBeGreaterThan(0)
        listed.add(where)
        for (const value of [...bad!, "", " ", `${field.placeholder} `, ` ${field.placeholder}`, `${field.placeholder}\n`]) {
          expect(new RegExp(field.pattern!).test(value), `${where} accepted ${JSON.stringify(value)}`).toBe(false)
        }
      }
    }
    // No stale entries: every listed field exists and has a pattern.
    for (const [corridor, fields] of Object.entries(badValues)) {
      for (const key of Object.keys(fields)) expect(listed.has(`${corridor} ${key}`), `${corridor} ${key}`).toBe(true)
    }
  })

  it("the examples carry valid check digits (IBAN mod 97, ABA, CLABE, CPF, CUIT, CBU, RUT, Chinese ID)", () => {
    const placeholder = (corridor: string, key: string) => findCorridor(corridor)!.recipientSchema.find((f) => f.key === key)!.placeholder!
    for (const c of corridors.filter((x) => x.recipientSchema.some((f) => f.key === "iban"))) {
      expect(ibanValid(placeholder(c.corridor, "iban")), c.corridor).toBe(true)
      expect(placeholder(c.corridor, "iban").slice(0, 2)).toBe(c.country)
      expect(placeholder(c.corridor, "bic").slice(4, 6)).toBe(c.country)
    }
    expect(weighted(placeholder("US-USD-bank", "routingNumber"), [3, 7, 1]) % 10).toBe(0)
    const clabe = placeholder("MX-MXN-bank", "clabe")
    const clabeSum = clabe.slice(0, 17).split("").reduce((sum, d, i) => sum + (Number(d) * [3, 7, 1][i % 3]!) % 10, 0)
    expect((10 - clabeSum % 10) % 10).toBe(Number(clabe[17]))
    const cpf = placeholder("BR-BRL-bank", "taxId").split("").map(Number)
    const cpfDigit = (n: number) => ((cpf.slice(0, n).reduce((sum, d, i) => sum + d * (n + 1 - i), 0) * 10) % 11) % 10
    expect([cpfDigit(9), cpfDigit(10)]).toEqual([cpf[9], cpf[10]])
    const cuit = placeholder("AR-ARS-bank", "taxId")
    const cuitRest = 11 - weighted(cuit.slice(0, 10), [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) % 11
    expect(cuitRest === 11 ? 0 : cuitRest === 10 ? 9 : cuitRest).toBe(Number(cuit[10]))
    const cbu = placeholder("AR-ARS-bank", "cbu")
    expect((10 - weighted(cbu.slice(0, 7), [7, 1, 3, 9]) % 10) % 10).toBe(Number(cbu[7]))
    expect((10 - weighted(cbu.slice(8, 21), [3, 9, 7, 1]) % 10) % 10).toBe(Number(cbu[21]))
    const [rutNumber, rutDigit] = placeholder("CL-CLP-bank", "rut").split("-")
    const rutSum = rutNumber!.split("").reverse().reduce((sum, d, i) => sum + Number(d) * (2 + (i % 6)), 0)
    const rutExpected = 11 - rutSum % 11
    expect(rutExpected === 11 ? "0" : rutExpected === 10 ? "K" : String(rutExpected)).toBe(rutDigit)
    const id = placeholder("CN-CNY-bank", "nationalIdNumber")
    expect("10X98765432"[weighted(id.slice(0, 17), [7, 9, 10, 5, 8, 4, 2, 1, 6, 3]) % 11]).toBe(id[17])
  })

  it("the China corridor carries recipientFields, requiredDocuments, allowedPurposes and minAssetAmount 26; no other corridor does", () => {
    const china = findCorridor("CN-CNY-bank")!
    expect(china).toMatchObject({ country: "CN", currency: "CNY", region: "asia", group: "china", deliveryMethod: "bank" })
    expect(china.recipientFields).toEqual(["accountName", "accountNumber", "bankCode", "nameInLocalLanguage", "nationalIdNumber", "logisticsTracking", "documents"])
    // Every form field is a recipient field; the structured ones are what the form cannot describe.
    expect(china.recipientFields!.filter((key) => !china.recipientSchema.some((f) => f.key === key))).toEqual(["logisticsTracking", "documents"])
    expect(china.requiredDocuments).toEqual(["invoice", "contract"])
    expect(china.allowedPurposes).toEqual(["GOODS_PAYMENT"])
    expect(china.minAssetAmount).toBe(26)
    const field = (key: string): RecipientField => china.recipientSchema.find((f) => f.key === key)!
    expect(new RegExp(field("bankCode").pattern!).test("123456789012")).toBe(true)
    expect(new RegExp(field("nationalIdNumber").pattern!).test("11010519491231002X")).toBe(true)
    for (const c of corridors.filter((x) => x !== china)) {
      expect(Object.keys(c).filter((k) => ["recipientFields", "requiredDocuments", "allowedPurposes", "minAssetAmount"].includes(k)), c.corridor).toEqual([])
    }
  })
})

describe("docs/international.md", () => {
  const doc = NodeFs.readFileSync(new URL("../docs/international.md", import.meta.url), "utf8")
  const cells = (line: string) => line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim())

  it("lists every corridor, in the list's order, with its region, group, delivery method and recipient fields", () => {
    const rows = doc.split("\n").filter((line) => /^\| `[A-Z]{2}-[A-Z]{3}-(bank|mobile)` \|/.test(line)).map(cells)
    expect(rows).toEqual(corridors.map((c) => [
      `\`${c.corridor}\``,
      c.region,
      c.group === null ? "—" : `\`${c.group}\``,
      c.deliveryMethod,
      c.recipientSchema.map((f) => `\`${f.key}\`${f.required ? "" : " (optional)"}`).join(", ")
    ]))
  })

  it("lists each group's payout partner, countries and fees", () => {
    for (const group of destinationGroups) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${group.key}\` |`))
      expect(row, group.key).toBeDefined()
      expect(cells(row!)).toEqual([
        `\`${group.key}\``,
        group.payoutPartnerName,
        group.countries.join(", "),
        `${group.registrationFee.individual.amount} / ${group.registrationFee.business.amount} USDT`
      ])
    }
  })
})

// ---------------------------------------------------------------------------------------------------------------
// GET /partner/v1/customers/{customerId}/global-send/corridors
// ---------------------------------------------------------------------------------------------------------------

const expectedKeys = [
  "NG-NGN-bank", "GH-GHS-mobile", "KE-KES-mobile", "UG-UGX-mobile", "ZA-ZAR-bank",
  "US-USD-bank", "CA-CAD-bank", "MX-MXN-bank",
  "BR-BRL-bank", "AR-ARS-bank", "CO-COP-bank", "CL-CLP-bank", "PE-PEN-bank",
  "GB-GBP-bank", "DE-EUR-bank", "FR-EUR-bank", "ES-EUR-bank", "IT-EUR-bank", "NL-EUR-bank", "PT-EUR-bank", "IE-EUR-bank",
  "BE-EUR-bank", "AT-EUR-bank", "SE-SEK-bank", "PL-PLN-bank",
  "CN-CNY-bank"
]

const forbidden = {
  success: false,
  statusCode: 403,
  code: "CUSTOMER_FORBIDDEN",
  error: "CustomerForbidden",
  message: expect.any(String),
  timestamp: expect.any(String),
  path: expect.any(String)
}

const newCustomer = async (on: TestApp, apiKey: string, overrides: Record<string, unknown> = {}) => {
  const reply = await on.request("POST", "/partner/v1/customers", { apiKey, body: customerBody(overrides) })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

const corridorsPath = (customerId: string) => `/partner/v1/customers/${customerId}/global-send/corridors`

describe("GET .../global-send/corridors (sandbox)", () => {
  let app: TestApp
  let apiKey: string
  let customerId: string

  beforeAll(async () => {
    app = await startTestApp()
    apiKey = (await app.newPartner()).apiKey
    customerId = await newCustomer(app, apiKey)
  })
  afterAll(() => app?.close())

  it("answers the whole list as a plain array without meta, exactly the reference data, in order", async () => {
    const reply = await app.request("GET", corridorsPath(customerId), { apiKey })
    expect(reply.status).toBe(200)
    expect(Object.keys(reply.body).sort()).toEqual(["data", "success"])
    expect(reply.body.success).toBe(true)
    expect(reply.body.data.map((c: Corridor) => c.corridor)).toEqual(expectedKeys)
    expect(reply.body.data).toEqual(JSON.parse(JSON.stringify(corridors)))
  })

  it("a mobile-money corridor, literally", async () => {
    const reply = await app.request("GET", corridorsPath(customerId), { apiKey })
    expect(reply.body.data.find((c: Corridor) => c.corridor === "KE-KES-mobile")).toEqual({
      corridor: "KE-KES-mobile",
      country: "KE",
      currency: "KES",
      region: "africa",
      group: null,
      deliveryMethod: "mobile_money",
      recipientSchema: [
        {
          key: "phone",
          label: "Mobile money number",
          required: true,
          pattern: "^\\+254(7\\d|1[01])\\d{7}$",
          patternHint: "+254 and the 9-digit mobile number (7XX or 1XX), e.g. +254712345678",
          keyboard: "phone",
          placeholder: "+254712345678"
        },
        { key: "network", label: "Mobile network", required: true, options: ["M-PESA", "Airtel Money"] },
        { key: "accountName", label: "Recipient's full name", required: true, keyboard: "text", placeholder: "Ada Obi" }
      ]
    })
  })

  it("the China corridor, literally: recipientFields, requiredDocuments, allowedPurposes and minAssetAmount as a number", async () => {
    const reply = await app.request("GET", corridorsPath(customerId), { apiKey })
    const china = reply.body.data.find((c: Corridor) => c.corridor === "CN-CNY-bank")
    expect(china).toEqual({
      corridor: "CN-CNY-bank",
      country: "CN",
      currency: "CNY",
      region: "asia",
      group: "china",
      deliveryMethod: "bank",
      recipientSchema: [
        { key: "accountName", label: "Account holder's name in Latin letters (pinyin)", required: true, keyboard: "text", placeholder: "Wang Xiaoming" },
        { key: "accountNumber", label: "Bank card or account number", required: true, pattern: "^\\d{16,19}$", patternHint: "16 to 19 digits", keyboard: "numeric", placeholder: "6222021234567890123" },
        { key: "bankCode", label: "Bank code (CNAPS)", required: true, pattern: "^\\d{12}$", patternHint: "the branch's 12-digit CNAPS code", keyboard: "numeric", placeholder: "102100099996" },
        {
          key: "nameInLocalLanguage",
          label: "Account holder's name in Chinese characters",
          required: true,
          pattern: "^[\\u3400-\\u4DBF\\u4E00-\\u9FFF\\u00B7]{2,30}$",
          patternHint: "2 to 30 Chinese characters",
          keyboard: "text",
          placeholder: "王小明"
        },
        { key: "nationalIdNumber", label: "Resident identity card number", required: true, pattern: "^\\d{17}[\\dX]$", patternHint: "18 characters: 17 digits and a digit or X", keyboard: "text", placeholder: "11010519491231002X" }
      ],
      recipientFields: ["accountName", "accountNumber", "bankCode", "nameInLocalLanguage", "nationalIdNumber", "logisticsTracking", "documents"],
      requiredDocuments: ["invoice", "contract"],
      allowedPurposes: ["GOODS_PAYMENT"],
      minAssetAmount: 26
    })
    // Patterns travel as JSON text and compile on the client as they do here.
    for (const field of china.recipientSchema.filter((f: RecipientField) => f.pattern !== undefined)) {
      expect(new RegExp(field.pattern).test(field.placeholder), field.key).toBe(true)
    }
  })

  it("answers 403 CUSTOMER_FORBIDDEN, one body, for another partner's, an unknown and a malformed customer id", async () => {
    const other = await app.newPartner()
    const foreign = await newCustomer(app, other.apiKey)
    const messages = new Set<string>()
    for (const id of [foreign, NodeCrypto.randomUUID(), "not-a-uuid", foreign.toUpperCase().replace(/-/g, ""), "%zz", "x".repeat(150)]) {
      const reply = await app.request("GET", corridorsPath(id), { apiKey })
      expect({ id, status: reply.status }).toEqual({ id, status: 403 })
      expect(reply.body).toEqual(forbidden)
      messages.add(reply.body.message)
    }
    expect(messages.size).toBe(1)
    // The owner still reads it.
    expect((await app.request("GET", corridorsPath(foreign), { apiKey: other.apiKey })).status).toBe(200)
  })

  it("needs an approved partner's key", async () => {
    const none = await app.request("GET", corridorsPath(customerId))
    expect({ status: none.status, code: none.body.code }).toEqual({ status: 401, code: "UNAUTHORIZED" })
    const pending = await app.newPartner("PENDING")
    const reply = await app.request("GET", corridorsPath(customerId), { apiKey: pending.apiKey })
    expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 403, code: "PARTNER_NOT_APPROVED" })
  })

  it("is a read: 405 for other methods, and nothing is written", async () => {
    const before = await app.query<{ n: string }>("SELECT count(*)::text AS n FROM events")
    await app.request("GET", corridorsPath(customerId), { apiKey })
    expect(await app.query<{ n: string }>("SELECT count(*)::text AS n FROM events")).toEqual(before)
    const post = await app.request("POST", corridorsPath(customerId), { apiKey, body: {} })
    expect({ status: post.status, code: post.body.code }).toEqual({ status: 405, code: "METHOD_NOT_ALLOWED" })
    expect(post.headers.get("allow")).toBe("GET")
  })
})

// ---------------------------------------------------------------------------------------------------------------
// International.corridors (the services, no HTTP)
// ---------------------------------------------------------------------------------------------------------------

const corridorsOf = (on: ServiceHarness, partnerId: string, customerId: string) =>
  on.attempt(partnerId, Effect.flatMap(International, (international) => international.corridors(asId(partnerId), asId(customerId))))

describe("International.corridors (sandbox: the simulated payout partners)", () => {
  let services: ServiceHarness

  beforeAll(async () => {
    services = await startServices()
  })
  afterAll(() => services?.close())

  it("is the same list for every customer of every partner, the customer's own domestic corridor included: the reference data", async () => {
    const { partnerId } = await services.newPartner()
    const nigerian = await services.newCustomer(partnerId)
    const kenyan = await services.newCustomer(partnerId, { country: "KE", phoneNumber: "+254712345678" })
    const other = await services.newPartner()
    const american = await services.newCustomer(other.partnerId, { country: "US", phoneNumber: "+12025550123" })
    for (const [partner, id] of [[partnerId, nigerian], [partnerId, kenyan], [other.partnerId, american]] as const) {
      const outcome = await corridorsOf(services, partner, id)
      expect(outcome).toEqual({ ok: true, value: corridors })
    }
    expect(corridors.map((c) => c.corridor)).toEqual(expect.arrayContaining(["NG-NGN-bank", "KE-KES-mobile", "US-USD-bank"]))
  })

  // Ids that are not canonical uuids never reach the service (the route's decoding answers them the same 403: the
  // HTTP test below sends them); the service is asked about well-formed ids.
  it("refuses another partner's and an unknown customer id with the one CustomerForbidden", async () => {
    const { partnerId } = await services.newPartner()
    const other = await services.newPartner()
    const foreign = await services.newCustomer(other.partnerId)
    const messages = new Set<string>()
    for (const id of [foreign, NodeCrypto.randomUUID()]) {
      const outcome = await corridorsOf(services, partnerId, id)
      if (outcome.ok) throw new Error(`${id}: answered corridors`)
      expect(outcome.error, id).toBeInstanceOf(CustomerForbidden)
      expect({ id, code: outcome.code, status: (outcome.error as CustomerForbidden).statusCode }).toEqual({ id, code: "CUSTOMER_FORBIDDEN", status: 403 })
      messages.add((outcome.error as CustomerForbidden).message)
    }
    expect(messages.size).toBe(1)
    // The owner still reads it.
    expect((await corridorsOf(services, other.partnerId, foreign)).ok).toBe(true)
  })
})

describe("International.corridors in production", () => {
  let services: ServiceHarness
  let partnerId: string

  beforeAll(async () => {
    services = await startServices({ config: { mode: "production" } })
    partnerId = (await services.newPartner()).partnerId
  })
  afterAll(() => services?.close())

  it("fails with PayoutRailUnavailable (503 PAYOUT_RAIL_UNAVAILABLE) without a payout adapter, and writes nothing", async () => {
    const customerId = await services.newCustomer(partnerId)
    const events = async () => services.query("SELECT type FROM events WHERE customer_id = $1 ORDER BY seq", [customerId])
    const before = await events()
    const outcome = await corridorsOf(services, partnerId, customerId)
    if (outcome.ok) throw new Error("answered corridors in production")
    expect(outcome.error).toBeInstanceOf(PayoutRailUnavailable)
    expect(outcome.error).toMatchObject({
      statusCode: 503,
      code: "PAYOUT_RAIL_UNAVAILABLE",
      error: "PayoutRailUnavailable",
      message: expect.stringMatching(/payout rail/)
    })
    expect(await events()).toEqual(before)
  })

  it("checks the customer first: another partner's or an unknown id is still CustomerForbidden", async () => {
    const other = await services.newPartner()
    const foreign = await services.newCustomer(other.partnerId)
    for (const id of [NodeCrypto.randomUUID(), foreign]) {
      const outcome = await corridorsOf(services, partnerId, id)
      expect(outcome.ok ? undefined : outcome.error, id).toBeInstanceOf(CustomerForbidden)
    }
  })

  it("a staging deployment that opts in (SIMULATED_RAILS=true) lists the simulated corridors", async () => {
    const staging = await startServices({ config: { mode: "production", simulatedRails: true } })
    try {
      const { partnerId: live } = await staging.newPartner()
      const id = await staging.newCustomer(live)
      const outcome = await corridorsOf(staging, live, id)
      expect(outcome.ok && outcome.value.map((c) => c.corridor)).toEqual(expectedKeys)
    } finally {
      await staging.close()
    }
  })
})
