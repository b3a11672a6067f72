import * as NodeCrypto from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { replayableOperations } from "../src/api/Replays.js"
import { tronAddress } from "../simulators/chain/Addresses.js"
import { harness } from "./support/LedgerHarness.js"
import { customerBody, type Reply, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Replays are marked (docs/reference.md "Idempotency"): a money-moving request repeated with its `reference` is answered with
 * the original record, the same status, and `Idempotent-Replayed: true`; the first answer has no such header and
 * the repeat moves nothing.
 */
let app: TestApp
let apiKey: string
let partnerId: string

beforeAll(async () => {
  app = await startTestApp()
  ;({ apiKey, partnerId } = await app.newPartner())
})
afterAll(() => app?.close())

const newCustomer = async () => {
  const reply = await app.request<{ data: { id: string } }>("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
  expect(reply.status).toBe(201)
  return reply.body.data.id
}

const post = (path: string, body: Record<string, unknown>) => app.request<{ data: Record<string, unknown> }>("POST", path, { apiKey, body })

const replayed = (reply: Reply) => reply.headers.get("idempotent-replayed")

/** The first answer unmarked, the repeat marked with the same status and body, and the row counts unchanged. */
const expectReplay = async (path: string, body: Record<string, unknown>, rows: () => Promise<number>) => {
  const first = await post(path, body)
  expect(first.status, JSON.stringify(first.body)).toBe(201)
  expect(replayed(first)).toBeNull()
  const before = await rows()
  const again = await post(path, body)
  expect(again.status).toBe(201)
  expect(replayed(again)).toBe("true")
  expect(again.body.data).toEqual(first.body.data)
  expect(await rows()).toBe(before)
  // Another reference is a new record, answered unmarked.
  const other = await post(path, { ...body, reference: `${String(body.reference)}-2` })
  expect(other.status).toBe(201)
  expect(replayed(other)).toBeNull()
  expect(other.body.data.id).not.toBe(first.body.data.id)
}

const count = (table: string, customerId: string) => async () =>
  Number((await app.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} WHERE customer_id = $1`, [customerId]))[0]!.n)

describe("Idempotent-Replayed", () => {
  it("marks a repeated withdrawal (and on the wallet path, the same scope), never the first answer", async () => {
    const customerId = await newCustomer()
    expect((await harness(app, partnerId).credit(customerId, "NGN", 10_000_00n)).ok).toBe(true)
    expect((await post(`/partner/v1/customers/${customerId}/accounts`, { bankCode: "058", accountNumber: "1234567896" })).status).toBe(201)
    await expectReplay(`/partner/v1/customers/${customerId}/withdraw`, { amount: 1000, reference: "replay-wd" }, count("withdrawals", customerId))
    const wallet = await post(`/partner/v1/customers/${customerId}/wallet/withdraw`, { amount: 1000, reference: "replay-wd" })
    expect(wallet.status).toBe(201)
    expect(replayed(wallet)).toBe("true")
  })

  it("marks a repeated crypto send", async () => {
    const customerId = await newCustomer()
    const deposit = await app.request("POST", `/sandbox/customers/${customerId}/deposits`, { apiKey, body: { asset: "USDT", network: "TRON", amount: 100 } })
    expect(deposit.status).toBe(201)
    const toAddress = tronAddress(NodeCrypto.randomBytes(20))
    await expectReplay(`/partner/v1/customers/${customerId}/send`, { asset: "USDT", amount: 10, network: "TRON", toAddress, reference: "replay-send" }, count("sends", customerId))
  })

  it("marks a repeated funding charge", async () => {
    const customerId = await newCustomer()
    await expectReplay(`/partner/v1/customers/${customerId}/funding/charge`, { amount: 5000, reference: "replay-charge" }, count("funding_charges", customerId))
  })

  it("the OpenAPI document lists the header on the 201 of every operation answered by reference", async () => {
    const document = await app.request<{
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, { headers?: Record<string, unknown> }> }>>
    }>("GET", "/openapi.json")
    const operations = Object.values(document.body.paths).flatMap((item) => Object.values(item))
    for (const id of replayableOperations) {
      const operation = operations.find((op) => op.operationId === id)
      expect(operation, id).toBeDefined()
      expect(Object.keys(operation!.responses["201"]?.headers ?? {}), id).toEqual(["Idempotent-Replayed"])
    }
    const others = operations.filter((op) => !replayableOperations.includes(op.operationId))
    expect(others.filter((op) => Object.values(op.responses).some((r) => r.headers?.["Idempotent-Replayed"] !== undefined))).toEqual([])
  })
})
