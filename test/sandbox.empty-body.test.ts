import * as Net from "node:net"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { fundingSupport } from "./funding.support.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * DESIGN "Sandbox control API": a control POST that needs no input works with no body and no content type. An
 * absent body reads as `{}`: a payload with only optional fields decodes, one with a required field answers 400
 * naming it. A body that is present but not JSON is still refused.
 */
let app: TestApp
const f = fundingSupport(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())
afterEach(() => f.expectLedgerClean())

interface RawReply {
  readonly status: number
  readonly body: any
}

/**
 * A POST written on a socket by hand: no body, no Content-Type and no Content-Length header at all (fetch always
 * sends `content-length: 0` on a POST without a body).
 */
const postWithoutHeaders = (path: string, apiKey?: string): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const url = new URL(app.baseUrl + path)
    const socket = Net.connect(Number(url.port), url.hostname)
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const split = text.indexOf("\r\n\r\n")
      const head = text.slice(0, split)
      let payload = text.slice(split + 4)
      if (/^transfer-encoding:\s*chunked/im.test(head)) {
        let decoded = ""
        for (let size = parseInt(payload, 16); size > 0; size = parseInt(payload, 16)) {
          const start = payload.indexOf("\r\n") + 2
          decoded += payload.slice(start, start + size)
          payload = payload.slice(start + size + 2)
        }
        payload = decoded
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: payload === "" ? undefined : JSON.parse(payload) })
    })
    socket.write(
      `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        (apiKey === undefined ? "" : `x-api-key: ${apiKey}\r\n`) +
        "Connection: close\r\n\r\n"
    )
  })

/** Both ways a client sends "nothing": fetch's `content-length: 0`, and no length header at all. */
const bodiless = async (path: string, apiKey?: string): Promise<ReadonlyArray<RawReply>> => {
  const viaFetch = await app.request("POST", path, apiKey === undefined ? {} : { apiKey })
  return [viaFetch, await postWithoutHeaders(path, apiKey)]
}

const chargePath = (customerId: string) => `/partner/v1/customers/${customerId}/funding/charge`

const pendingCharge = async (apiKey: string, customerId: string, amount: number) => {
  const reply = await app.request("POST", chargePath(customerId), { apiKey, body: { amount } })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

/** A customer funded through a charge paid with no body, with a saved account, on a manual bank rail. */
const fundedCustomer = async () => {
  const { apiKey, customerId } = await f.newCustomer("NG")
  expect((await f.setBank(apiKey, { mode: "manual" })).status).toBe(200)
  const chargeId = await pendingCharge(apiKey, customerId, 10_000)
  const paid = await postWithoutHeaders(`/sandbox/funding/charges/${chargeId}/pay`, apiKey)
  expect(paid.status).toBe(200)
  await f.fx.saveAccount({ apiKey }, customerId, { bankCode: "058", accountNumber: "1234567890" })
  return { apiKey, customerId }
}

const withdraw = async (apiKey: string, customerId: string, amount: number) => {
  const reply = await app.request("POST", `/partner/v1/customers/${customerId}/withdraw`, { apiKey, body: { amount } })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

describe("sandbox controls that need no input work with no body", () => {
  it("POST /sandbox/funding/charges/{id}/pay with no body pays the full amount: 200, PAID", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    await f.setBank(apiKey, { mode: "manual" })
    const viaFetch = await pendingCharge(apiKey, customerId, 750.25)
    const paid = await app.request("POST", `/sandbox/funding/charges/${viaFetch}/pay`, { apiKey })
    expect(paid.status, JSON.stringify(paid.body)).toBe(200)
    expect(paid.body.data).toMatchObject({ id: viaFetch, status: "PAID", amount: 750.25, amountPaid: 750.25 })

    const viaSocket = await pendingCharge(apiKey, customerId, 100)
    const raw = await postWithoutHeaders(`/sandbox/funding/charges/${viaSocket}/pay`, apiKey)
    expect(raw.status, JSON.stringify(raw.body)).toBe(200)
    expect(raw.body.data).toMatchObject({ id: viaSocket, status: "PAID", amountPaid: 100 })
    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(850.25)
  })

  it("POST /sandbox/withdrawals/{id}/complete then /reverse with no body: COMPLETED, then REVERSED", async () => {
    const { apiKey, customerId } = await fundedCustomer()
    const first = await withdraw(apiKey, customerId, 1000)
    const completed = await app.request("POST", `/sandbox/withdrawals/${first}/complete`, { apiKey })
    expect(completed.status, JSON.stringify(completed.body)).toBe(200)
    expect(completed.body.data).toMatchObject({ id: first, status: "COMPLETED" })
    const reversed = await postWithoutHeaders(`/sandbox/withdrawals/${first}/reverse`, apiKey)
    expect(reversed.status, JSON.stringify(reversed.body)).toBe(200)
    expect(reversed.body.data).toMatchObject({ id: first, status: "REVERSED", failureReason: "Reversed by an operator" })

    const second = await withdraw(apiKey, customerId, 500)
    const raw = await postWithoutHeaders(`/sandbox/withdrawals/${second}/complete`, apiKey)
    expect(raw.status, JSON.stringify(raw.body)).toBe(200)
    expect(raw.body.data).toMatchObject({ id: second, status: "COMPLETED" })
  })

  it("POST /sandbox/partners with no body at all creates an APPROVED partner", async () => {
    for (const reply of await bodiless("/sandbox/partners")) {
      expect(reply.status).toBe(201)
      expect(reply.body.data).toMatchObject({ kybStatus: "APPROVED", name: "Sandbox Partner" })
    }
  })
})

describe("sandbox controls with a required field still answer 400 naming it", () => {
  it("POST /sandbox/clock/advance with no body: 400 naming seconds, and the clock does not move", async () => {
    const { apiKey } = await f.fx.partner()
    const before = (await app.request("GET", "/sandbox/clock", { apiKey })).body.data
    for (const reply of await bodiless("/sandbox/clock/advance", apiKey)) {
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
      expect(reply.body.message).toContain("seconds")
    }
    expect((await app.request("GET", "/sandbox/clock", { apiKey })).body.data).toEqual(before)
  })

  it("fail a withdrawal, credit a virtual account, a deposit, a KYB decision, a rail policy: each names its field", async () => {
    const { apiKey, customerId } = await fundedCustomer()
    const withdrawal = await withdraw(apiKey, customerId, 500)
    const cases: Array<[string, string]> = [
      [`/sandbox/withdrawals/${withdrawal}/fail`, "reason"],
      [`/sandbox/customers/${customerId}/virtual-account/credit`, "amount"],
      [`/sandbox/customers/${customerId}/deposits`, "asset"],
      ["/sandbox/partner/kyb", "status"],
      [`/sandbox/customers/${customerId}/kyc/1/decision`, "status"]
    ]
    for (const [path, field] of cases) {
      for (const reply of await bodiless(path, apiKey)) {
        expect(reply.status, path).toBe(400)
        expect(reply.body.code, path).toBe("BAD_REQUEST")
        expect(reply.body.message, path).toContain(field)
      }
    }
    const rail = await app.request("PUT", "/sandbox/rails/bank", { apiKey })
    expect(rail.status).toBe(400)
    expect(rail.body.message).toContain("mode")
    const still = await app.request("GET", `/partner/v1/customers/${customerId}/withdrawals/${withdrawal}`, { apiKey })
    expect(still.body.data.status).toBe("PROCESSING")
  })
})

describe("a body that is present is checked as before", () => {
  it("a non-JSON body is refused: 415 without a JSON content type, 400 MALFORMED_JSON with one", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    await f.setBank(apiKey, { mode: "manual" })
    const chargeId = await pendingCharge(apiKey, customerId, 100)
    const path = `/sandbox/funding/charges/${chargeId}/pay`
    const plain = await app.request("POST", path, { apiKey, rawBody: "pay it", headers: { "content-type": "text/plain" } })
    expect(plain.status).toBe(415)
    const untyped = await app.request("POST", path, { apiKey, rawBody: "pay it" })
    expect(untyped.status).toBe(415)
    const malformed = await app.request("POST", path, { apiKey, rawBody: "{amount", headers: { "content-type": "application/json" } })
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe("MALFORMED_JSON")
    const nullBody = await app.request("POST", path, { apiKey, rawBody: "null", headers: { "content-type": "application/json" } })
    expect(nullBody.status).toBe(400)
    expect((await app.request("GET", `${chargePath(customerId)}s/${chargeId}`, { apiKey })).body.data.status).toBe("PENDING")
  })

  it("partner routes keep refusing an absent body (only sandbox controls read it as {})", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    for (const reply of await bodiless(chargePath(customerId), apiKey)) {
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
    }
  })
})
