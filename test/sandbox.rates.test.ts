import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Exchange } from "../src/rails/Exchange.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The simulated exchange's sandbox controls over real HTTP: `GET /sandbox/rates`, `PUT /sandbox/rates/{currency}`
 * (docs/sandbox-rails.md "Exchange rail") and the `exchange` rail policy's own refusals.
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())

const defaults = [
  { currency: "NGN", buyRate: 1550, sellRate: 1520, exchangeFeeUsdt: 0.5, isDefault: true, updatedAt: null },
  { currency: "GHS", buyRate: 15.6, sellRate: 15.2, exchangeFeeUsdt: 0.5, isDefault: true, updatedAt: null },
  { currency: "KES", buyRate: 131.5, sellRate: 128.5, exchangeFeeUsdt: 0.5, isDefault: true, updatedAt: null },
  { currency: "ZAR", buyRate: 18.6, sellRate: 18.1, exchangeFeeUsdt: 0.5, isDefault: true, updatedAt: null },
  { currency: "UGX", buyRate: 3760, sellRate: 3680, exchangeFeeUsdt: 0.5, isDefault: true, updatedAt: null },
  { currency: "USD", buyRate: 1.01, sellRate: 0.99, exchangeFeeUsdt: 0.5, isDefault: true, updatedAt: null }
]

const pricesRows = (partnerId: string) =>
  app.query("SELECT currency, buy_rate::text AS buy, sell_rate::text AS sell, fee_usdt::text AS fee FROM exchange_prices WHERE partner_id = $1 ORDER BY currency", [partnerId])

describe("GET /sandbox/rates", () => {
  it("lists every fiat currency with the documented defaults, as a plain array", async () => {
    const { apiKey } = await app.newPartner()
    const reply = await app.request("GET", "/sandbox/rates", { apiKey })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ success: true, data: defaults })
  })

  it("requires a known API key", async () => {
    expect((await app.request("GET", "/sandbox/rates")).status).toBe(401)
    expect((await app.request("PUT", "/sandbox/rates/NGN", { body: { buyRate: 1600 } })).status).toBe(401)
  })
})

describe("PUT /sandbox/rates/{currency}", () => {
  it("sets one field and keeps the others; the list and the exchange rail read the new prices exactly", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const now = (await app.request("GET", "/sandbox/clock", { apiKey })).body.data.now
    const reply = await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body: { buyRate: 1600.25 } })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({ currency: "NGN", buyRate: 1600.25, sellRate: 1520, exchangeFeeUsdt: 0.5, isDefault: false, updatedAt: now })

    const fee = await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body: { exchangeFeeUsdt: 0.000001 } })
    expect(fee.body.data).toMatchObject({ buyRate: 1600.25, sellRate: 1520, exchangeFeeUsdt: 0.000001 })
    const sell = await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body: { sellRate: 1510.12345678 } })
    expect(sell.body.data).toMatchObject({ buyRate: 1600.25, sellRate: 1510.12345678, exchangeFeeUsdt: 0.000001 })
    expect(await pricesRows(partnerId)).toEqual([{ currency: "NGN", buy: "1600.25", sell: "1510.12345678", fee: "1" }])

    const list = await app.request("GET", "/sandbox/rates", { apiKey })
    expect(list.body.data[0]).toEqual({ currency: "NGN", buyRate: 1600.25, sellRate: 1510.12345678, exchangeFeeUsdt: 0.000001, isDefault: false, updatedAt: now })
    expect(list.body.data.slice(1)).toEqual(defaults.slice(1))

    const prices = await app.run(Effect.flatMap(Exchange, (exchange) => exchange.prices(partnerId, "NGN")))
    expect([prices.buyRate.toString(), prices.sellRate.toString(), prices.exchangeFeeUsdt]).toEqual([
      "BigDecimal(1600.25)",
      "BigDecimal(1510.12345678)",
      1n
    ])
  })

  it("takes every field at once; an empty body stores the current prices as set; equal rates are allowed", async () => {
    const { apiKey } = await app.newPartner()
    const all = await app.request("PUT", "/sandbox/rates/UGX", { apiKey, body: { buyRate: 4000, sellRate: 3900, exchangeFeeUsdt: 0 } })
    expect(all.body.data).toMatchObject({ currency: "UGX", buyRate: 4000, sellRate: 3900, exchangeFeeUsdt: 0, isDefault: false })
    const empty = await app.request("PUT", "/sandbox/rates/GHS", { apiKey, body: {} })
    expect(empty.status).toBe(200)
    expect(empty.body.data).toMatchObject({ currency: "GHS", buyRate: 15.6, sellRate: 15.2, exchangeFeeUsdt: 0.5, isDefault: false })
    const flat = await app.request("PUT", "/sandbox/rates/USD", { apiKey, body: { buyRate: 1, sellRate: 1 } })
    expect(flat.body.data).toMatchObject({ buyRate: 1, sellRate: 1 })
  })

  it("refuses a buyRate below the sellRate, merged with the current prices, naming both fields; nothing changes", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const cases: Array<Record<string, number>> = [{ buyRate: 1500 }, { sellRate: 1551 }, { buyRate: 10, sellRate: 11 }]
    for (const body of cases) {
      const reply = await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
      expect(reply.body.message).toMatch(/^buyRate: must be at least sellRate/)
      expect(reply.body.message).toContain("sellRate")
    }
    expect(await pricesRows(partnerId)).toEqual([])
    // After a change, the merge is with the changed prices.
    expect((await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body: { sellRate: 1000 } })).status).toBe(200)
    expect((await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body: { buyRate: 1100 } })).status).toBe(200)
    const inverted = await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body: { buyRate: 999.99 } })
    expect(inverted.status).toBe(400)
    expect(inverted.body.message).toContain("buyRate 999.99 is below sellRate 1000")
    expect(await pricesRows(partnerId)).toEqual([{ currency: "NGN", buy: "1100", sell: "1000", fee: "500000" }])
  })

  it("answers 400 naming the field for a bad value, and stores nothing", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const cases: Array<[string, unknown, string]> = [
      ["buyRate", 0, "buyRate"],
      ["buyRate", -1, "buyRate"],
      ["sellRate", 10_000_000_000, "sellRate"],
      ["buyRate", 1.123456789, "buyRate"],
      ["sellRate", "abc", "sellRate"],
      ["buyRate", "1600", "buyRate"],
      ["buyRate", null, "buyRate"],
      ["exchangeFeeUsdt", 101, "exchangeFeeUsdt"],
      ["exchangeFeeUsdt", 0.1234567, "exchangeFeeUsdt"],
      ["exchangeFeeUsdt", -0.5, "exchangeFeeUsdt"]
    ]
    for (const [field, value, named] of cases) {
      const reply = await app.request("PUT", "/sandbox/rates/NGN", { apiKey, body: { [field]: value } })
      expect({ field, value, status: reply.status, code: reply.body.code }).toEqual({ field, value, status: 400, code: "BAD_REQUEST" })
      expect(reply.body.message).toMatch(new RegExp(`^${named}: `))
    }
    // Numbers not written exactly are refused before the schema (src/http/JsonBody.ts).
    for (const rawBody of ['{"buyRate":1e10}', '{"sellRate":1.5e3}', '{"exchangeFeeUsdt":1e-7}', '{"buyRate":1600.0000000000000001}']) {
      const reply = await app.request("PUT", "/sandbox/rates/NGN", { apiKey, rawBody, headers: { "content-type": "application/json" } })
      expect(reply.status).toBe(400)
      expect(reply.body.message).toMatch(/^(buyRate|sellRate|exchangeFeeUsdt): must be written exactly/)
    }
    expect(await pricesRows(partnerId)).toEqual([])
  })

  it("answers 400 naming currency for a currency the exchange does not quote (USDT, lower case, unknown)", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    for (const currency of ["EUR", "ngn", "USDT", "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"]) {
      const reply = await app.request("PUT", `/sandbox/rates/${currency}`, { apiKey, body: { buyRate: 2000 } })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ code: "BAD_REQUEST" })
      expect(reply.body.message).toMatch(/^currency: .*NGN, GHS, KES, ZAR, UGX, USD/)
    }
    expect(await pricesRows(partnerId)).toEqual([])
  })

  it("changes the calling partner's prices only", async () => {
    const first = await app.newPartner()
    const second = await app.newPartner()
    expect((await app.request("PUT", "/sandbox/rates/KES", { apiKey: first.apiKey, body: { buyRate: 140, sellRate: 135 } })).status).toBe(200)
    const theirs = await app.request("GET", "/sandbox/rates", { apiKey: second.apiKey })
    expect(theirs.body.data).toEqual(defaults)
    const prices = await app.run(Effect.flatMap(Exchange, (exchange) => exchange.prices(second.partnerId, "KES")))
    expect(prices.buyRate.toString()).toBe("BigDecimal(131.5)")
  })
})

describe("the exchange rail policy", () => {
  it("is listed fifth with auto, success, no delay", async () => {
    const { apiKey } = await app.newPartner()
    const reply = await app.request("GET", "/sandbox/rails", { apiKey })
    expect(reply.body.data.map((policy: { rail: string }) => policy.rail)).toEqual(["bank", "chain", "payout", "identity", "exchange"])
    expect(reply.body.data[4]).toEqual({ rail: "exchange", mode: "auto", outcome: "success", delaySeconds: 0, isDefault: true, updatedAt: null })
  })

  it("accepts outcome failure (with no delay or 0)", async () => {
    const { apiKey } = await app.newPartner()
    for (const body of [{ mode: "auto", outcome: "failure" }, { mode: "auto", outcome: "failure", delaySeconds: 0 }]) {
      const reply = await app.request("PUT", "/sandbox/rails/exchange", { apiKey, body })
      expect(reply.status).toBe(200)
      expect(reply.body.data).toMatchObject({ rail: "exchange", mode: "auto", outcome: "failure", delaySeconds: 0, isDefault: false })
    }
    const back = await app.request("PUT", "/sandbox/rails/exchange", { apiKey, body: { mode: "auto" } })
    expect(back.body.data).toMatchObject({ outcome: "success", delaySeconds: 0 })
  })

  it("refuses manual mode and a delay other than 0, naming the field, and stores nothing", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const manual = await app.request("PUT", "/sandbox/rails/exchange", { apiKey, body: { mode: "manual" } })
    expect(manual.status).toBe(400)
    expect(manual.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
    expect(manual.body.message).toBe("mode: must be auto (the exchange fills at once: use outcome failure to make executions fail)")
    const delayed = await app.request("PUT", "/sandbox/rails/exchange", { apiKey, body: { mode: "auto", delaySeconds: 30 } })
    expect(delayed.status).toBe(400)
    expect(delayed.body.message).toMatch(/^delaySeconds: must be 0 or omitted/)
    expect(await app.query("SELECT * FROM rail_policies WHERE partner_id = $1", [partnerId])).toHaveLength(0)
  })

  it("GET /sandbox/operations takes rail=exchange (the exchange leaves nothing pending)", async () => {
    const { apiKey } = await app.newPartner()
    const reply = await app.request("GET", "/sandbox/operations?rail=exchange", { apiKey })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual([])
  })
})

describe("production mode", () => {
  it("has no /sandbox/rates: 404 NOT_FOUND, absent from the document", async () => {
    const prod = await startTestApp({ config: { mode: "production" } })
    try {
      for (const [method, path] of [["GET", "/sandbox/rates"], ["PUT", "/sandbox/rates/NGN"]] as const) {
        const reply = await prod.request(method, path, method === "PUT" ? { body: { buyRate: 2000 } } : {})
        expect(reply.status).toBe(404)
        expect(reply.body).toMatchObject({ success: false, statusCode: 404, code: "NOT_FOUND" })
      }
      const document = await prod.request("GET", "/openapi.json")
      expect(Object.keys(document.body.paths).filter((path) => path.includes("/sandbox/"))).toEqual([])
    } finally {
      await prod.close()
    }
  })
})
