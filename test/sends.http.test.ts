import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { Partners } from "../src/partners/Partners.js"
import { failureReasons } from "../src/sends/Sends.js"
import {
  type AddressFormat,
  evmAddress,
  isValidTxHash,
  solanaAddress,
  tronAddress
} from "../simulators/chain/Addresses.js"
import { magicAddress } from "../simulators/chain/ChainSimulator.js"
import { harness } from "./support/LedgerHarness.js"
import { fixtures, type Partner, type RailPolicy } from "./support/Fixtures.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Crypto sends over real HTTP (docs/contract.md "Send network", "Send quote", "Send", "Crypto send", send.* events): networks,
 * quotes, the send and its refusals, idempotency, concurrency, the chain's outcomes on the auto and manual rail,
 * reads, pending operations, and production without a chain adapter.
 */
let app: TestApp
const fx = fixtures(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
// The ledger checker once, over everything the file's tests moved (each invariant is over the whole ledger; a
// violation names its transactions): after each test it read the whole, growing ledger again, a tenth of the file's CPU.
afterAll(async () => {
  if (app !== undefined) expect((await app.run(checkLedger)).violations).toEqual([])
  await app?.close()
})

const newPartner = (chain?: RailPolicy): Promise<Partner> => fx.partner(chain === undefined ? {} : { rails: { chain } })

const base = (customerId: string) => `/partner/v1/customers/${customerId}`

/** A customer with the given stablecoin deposits (USDT arrives on TRON, USDC on POLYGON). */
const newCustomer = async (p: Partner, funds: { USDT?: number; USDC?: number } = {}) => {
  const { id } = await fx.customer(p)
  await fx.fund(p, id, funds)
  return id
}

const send = (p: Partner, customerId: string, body: Record<string, unknown>) =>
  app.request("POST", `${base(customerId)}/send`, { apiKey: p.apiKey, body })

const quote = (p: Partner, customerId: string, body: Record<string, unknown>) =>
  app.request("POST", `${base(customerId)}/send/quote`, { apiKey: p.apiKey, body })

const getSend = (p: Partner, customerId: string, reference: string) =>
  app.request("GET", `${base(customerId)}/sends/${encodeURIComponent(reference)}`, { apiKey: p.apiKey })

const control = (p: Partner, customerId: string, reference: string, move: "confirm" | "fail", reason?: string) =>
  app.request("POST", `/sandbox/customers/${customerId}/sends/${encodeURIComponent(reference)}/${move}`, {
    apiKey: p.apiKey,
    ...(reason === undefined ? {} : { body: { reason } })
  })

const advance = (p: Partner, seconds: number) => fx.advance(p, seconds)

/** Available (GET .../balance) and held (GET /sandbox/balances) of one asset, in major units. */
const money = async (p: Partner, customerId: string, currency: string) => {
  const balance = await app.request("GET", `${base(customerId)}/balance`, { apiKey: p.apiKey })
  expect(balance.status).toBe(200)
  const sandbox = await app.request("GET", `/sandbox/balances?customerId=${customerId}`, { apiKey: p.apiKey })
  expect(sandbox.status).toBe(200)
  const row = (sandbox.body.data[0].balances as Array<any>).find((b) => b.currency === currency)
  const available = (balance.body.data as Array<any>).find((b) => b.currency === currency)?.balance ?? 0
  expect(row?.available ?? 0).toBe(available)
  return { available, held: row?.held ?? 0 }
}

const events = async (p: Partner, customerId: string, type?: string) => {
  const reply = await app.request("GET", `/sandbox/events?customerId=${customerId}${type === undefined ? "" : `&type=${type}`}&limit=100`, {
    apiKey: p.apiKey
  })
  expect(reply.status).toBe(200)
  return reply.body.data as Array<{ id: string; type: string; data: any }>
}

const sendEvents = async (p: Partner, customerId: string) =>
  (await events(p, customerId)).filter((e) => e.type.startsWith("send."))

const listSends = async (p: Partner, customerId: string, query = "") => {
  const reply = await app.request("GET", `${base(customerId)}/sends${query}`, { apiKey: p.apiKey })
  expect(reply.status).toBe(200)
  return reply.body
}

const transactions = async (p: Partner, customerId: string) => {
  const reply = await app.request("GET", `${base(customerId)}/transactions?limit=100`, { apiKey: p.apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data as Array<any>
}

/** Everything a refused send could have changed. */
const footprint = async (p: Partner, customerId: string) => ({
  balance: (await app.request("GET", `${base(customerId)}/balance`, { apiKey: p.apiKey })).body.data,
  sandbox: (await app.request("GET", `/sandbox/balances?customerId=${customerId}`, { apiKey: p.apiKey })).body.data,
  sends: (await listSends(p, customerId)).data,
  events: (await events(p, customerId)).map((e) => e.id),
  transactions: (await transactions(p, customerId)).map((t) => t.id),
  rows: (await app.query("SELECT id FROM sends WHERE customer_id = $1", [customerId])).length,
  jobs: (await app.query("SELECT id FROM jobs WHERE customer_id = $1", [customerId])).length,
  keys: (await app.query("SELECT reference FROM idempotency_keys WHERE customer_id = $1", [customerId])).length
})

const randomAddress = (format: AddressFormat) =>
  format === "evm"
    ? evmAddress(NodeCrypto.randomBytes(20))
    : format === "TRON"
    ? tronAddress(NodeCrypto.randomBytes(20))
    : solanaAddress(NodeCrypto.randomBytes(32))

const formatOfNetwork = (network: string): AddressFormat =>
  network === "TRON" ? "TRON" : network === "SOLANA" ? "SOLANA" : "evm"

const txHashPattern: Record<AddressFormat, RegExp> = {
  evm: /^0x[0-9a-f]{64}$/,
  TRON: /^[0-9a-f]{64}$/,
  SOLANA: /^[1-9A-HJ-NP-Za-km-z]{64,88}$/
}

const expectTxHash = (network: string, txHash: unknown) => {
  const format = formatOfNetwork(network)
  expect(txHash).toMatch(txHashPattern[format])
  expect(isValidTxHash(format, txHash as string)).toBe(true)
}

/** Sum of the entries the send's journal transactions put on a house account (minor units, as text). */
const houseTotal = async (sendId: string, code: string) =>
  (await app.query<{ total: string }>(
    `SELECT coalesce(sum(e.amount), 0)::text AS total FROM ledger_entries e
     JOIN ledger_accounts a ON a.id = e.account_id JOIN ledger_transactions t ON t.id = e.transaction_id
     WHERE a.kind = 'house' AND a.code = $1 AND t.resource_type = 'send' AND t.resource_id = $2`,
    [code, sendId]
  ))[0]!.total

describe("GET .../send/networks", () => {
  it("lists the five networks with fees, minimums and assets; exactly one recommended, the cheapest (POLYGON)", async () => {
    const p = await newPartner()
    const id = await newCustomer(p)
    const reply = await app.request("GET", `${base(id)}/send/networks`, { apiKey: p.apiKey })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual([
      { network: "TRON", displayName: "Tron (TRC-20)", evm: false, flatFeeUsdt: 1, minSendUsdt: 5, recommended: false, assets: ["USDT"] },
      {
        network: "ETHEREUM", displayName: "Ethereum (ERC-20)", evm: true, flatFeeUsdt: 4, minSendUsdt: 10, recommended: false,
        assets: ["USDT", "USDC"]
      },
      {
        network: "BSC", displayName: "BNB Smart Chain (BEP-20)", evm: true, flatFeeUsdt: 0.3, minSendUsdt: 5, recommended: false,
        assets: ["USDT", "USDC"]
      },
      { network: "POLYGON", displayName: "Polygon (PoS)", evm: true, flatFeeUsdt: 0.2, minSendUsdt: 5, recommended: true, assets: ["USDT", "USDC"] },
      { network: "SOLANA", displayName: "Solana (SPL)", evm: false, flatFeeUsdt: 0.5, minSendUsdt: 5, recommended: false, assets: ["USDC", "USDT"] }
    ])
    expect((reply.body.data as Array<any>).filter((n) => n.recommended)).toHaveLength(1)
    expect(reply.body.meta).toBeUndefined()
  })

  it("answers 403 CUSTOMER_FORBIDDEN for another partner's customer", async () => {
    const p = await newPartner()
    const q = await newPartner()
    const id = await newCustomer(p)
    const reply = await app.request("GET", `${base(id)}/send/networks`, { apiKey: q.apiKey })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
  })
})

describe("POST .../send/quote", () => {
  it("answers the fee, net amount and the three booleans, and moves nothing", async () => {
    const p = await newPartner()
    const id = await newCustomer(p, { USDT: 20, USDC: 8 })
    const before = await footprint(p, id)
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      // below the minimum (5) with enough balance
      [{ asset: "USDT", amount: 4.999999, network: "TRON" }, {
        asset: "USDT", network: "TRON", amount: 4.999999, fee: 1, netAmount: 3.999999, minSendUsdt: 5, balance: 20,
        meetsMin: false, sufficientBalance: true, valid: false
      }],
      // insufficient: 8 USDC, 10 asked
      [{ asset: "USDC", amount: 10, network: "BSC" }, {
        asset: "USDC", network: "BSC", amount: 10, fee: 0.3, netAmount: 9.7, minSendUsdt: 5, balance: 8,
        meetsMin: true, sufficientBalance: false, valid: false
      }],
      // both wrong: ETHEREUM's minimum is 10
      [{ asset: "USDC", amount: 9, network: "ETHEREUM" }, {
        asset: "USDC", network: "ETHEREUM", amount: 9, fee: 4, netAmount: 5, minSendUsdt: 10, balance: 8,
        meetsMin: false, sufficientBalance: false, valid: false
      }],
      // valid: exactly the minimum; exactly the whole balance
      [{ asset: "USDT", amount: 5, network: "SOLANA" }, {
        asset: "USDT", network: "SOLANA", amount: 5, fee: 0.5, netAmount: 4.5, minSendUsdt: 5, balance: 20,
        meetsMin: true, sufficientBalance: true, valid: true
      }],
      [{ asset: "USDT", amount: 20, network: "POLYGON" }, {
        asset: "USDT", network: "POLYGON", amount: 20, fee: 0.2, netAmount: 19.8, minSendUsdt: 5, balance: 20,
        meetsMin: true, sufficientBalance: true, valid: true
      }]
    ]
    for (const [body, expected] of cases) {
      const reply = await quote(p, id, body)
      expect(reply.status, JSON.stringify(body)).toBe(200)
      expect(reply.body.data).toEqual(expected)
    }
    expect(await footprint(p, id)).toEqual(before)
  })

  it("answers 400 naming the field for an unknown network, an asset the network does not carry and bad amounts", async () => {
    const p = await newPartner()
    const id = await newCustomer(p, { USDT: 20 })
    const before = await footprint(p, id)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ asset: "USDT", amount: 10, network: "ARBITRUM" }, "network"],
      [{ asset: "USDT", amount: 10, network: "tron" }, "network"],
      [{ asset: "USDC", amount: 10, network: "TRON" }, "asset"],
      [{ asset: "DAI", amount: 10, network: "ETHEREUM" }, "asset"],
      [{ asset: "USDT", amount: 0, network: "TRON" }, "amount"],
      [{ asset: "USDT", amount: -1, network: "TRON" }, "amount"],
      [{ asset: "USDT", amount: 1.0000001, network: "TRON" }, "amount"],
      [{ asset: "USDT", amount: "10", network: "TRON" }, "amount"],
      [{ asset: "USDT", network: "TRON" }, "amount"]
    ]
    for (const [body, field] of cases) {
      const reply = await quote(p, id, body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toMatch(new RegExp(`^${field}`))
    }
    expect(await footprint(p, id)).toEqual(before)
    const foreign = await quote(await newPartner(), id, { asset: "USDT", amount: 10, network: "TRON" })
    expect(foreign.status).toBe(403)
    expect(foreign.body.code).toBe("CUSTOMER_FORBIDDEN")
  })
})

describe("POST .../send", () => {
  it("answers 201 PENDING with no txHash, reserves the amount and emits send.pending once (USDC on BSC pays its fee in USDC)", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDC: 25 })
    const toAddress = randomAddress("evm")
    const reply = await send(p, id, { asset: "USDC", amount: 10, network: "BSC", toAddress, reference: "send-1" })
    expect(reply.status).toBe(201)
    const created = reply.body.data
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      reference: "send-1",
      asset: "USDC",
      network: "BSC",
      amount: 10,
      fee: 0.3,
      netAmount: 9.7,
      toAddress,
      txHash: null,
      status: "PENDING",
      failureReason: null,
      createdAt: expect.any(String),
      updatedAt: created.createdAt
    })
    expect(await money(p, id, "USDC")).toEqual({ available: 15, held: 10 })
    const pending = await events(p, id, "send.pending")
    expect(pending).toHaveLength(1)
    expect(pending[0]!.data).toEqual({ customerId: id, ...created })
    expect(await sendEvents(p, id)).toHaveLength(1)
    const [entry] = await transactions(p, id)
    expect(entry).toMatchObject({
      type: "DEBIT", reason: "send", amount: 10, currency: "USDC", balanceAfter: 15, reference: "send-1",
      resourceType: "send", resourceId: created.id
    })
    expect((await getSend(p, id, "send-1")).body.data).toEqual(created)
  })

  it("generates a reference when none is given, so a retry without one is a second send", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 30 })
    const body = { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON") }
    const first = await send(p, id, body)
    const second = await send(p, id, body)
    expect([first.status, second.status]).toEqual([201, 201])
    expect(first.body.data.reference).toMatch(/^ref_[0-9a-f]{24}$/)
    expect(second.body.data.reference).not.toBe(first.body.data.reference)
    expect(await money(p, id, "USDT")).toEqual({ available: 10, held: 20 })
  })

  it("refuses invalid addresses per network with 400 INVALID_ADDRESS; an all-lower-case EVM address is accepted", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const before = await footprint(p, id)
    const valid = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
    const refusals: Array<[string, string]> = [
      ["ETHEREUM", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"], // the last letter's case breaks EIP-55
      ["BSC", "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
      ["POLYGON", valid.slice(0, 41)], // 39 hex digits
      ["POLYGON", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"], // no 0x
      ["ETHEREUM", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"], // a TRON address on an EVM network
      ["TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"], // one character changed: base58check fails
      ["TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6"],
      ["TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t "], // no trimming
      ["TRON", "0x" + "0".repeat(40)],
      ["TRON", valid],
      ["SOLANA", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v".slice(0, 31)], // too short
      ["SOLANA", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" + "11"], // too long
      ["SOLANA", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10"] // 0 is not base58
    ]
    for (const [network, toAddress] of refusals) {
      const reply = await send(p, id, { asset: "USDT", amount: 10, network, toAddress, reference: `bad-address-${network}` })
      expect({ network, toAddress, status: reply.status, code: reply.body.code }).toEqual({ network, toAddress, status: 400, code: "INVALID_ADDRESS" })
      expect(reply.body.message).toMatch(/^toAddress/)
    }
    const missing = await send(p, id, { asset: "USDT", amount: 10, network: "TRON", toAddress: "" })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toMatch(/^toAddress/)
    expect(await footprint(p, id)).toEqual(before)

    // Valid forms: EIP-55 mixed case, all lower case, all upper case; TRON and Solana real addresses.
    const accepted: Array<[string, string]> = [
      ["ETHEREUM", valid],
      ["BSC", valid.toLowerCase()],
      ["POLYGON", "0x" + valid.slice(2).toUpperCase()],
      ["TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
      ["SOLANA", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"]
    ]
    for (const [network, toAddress] of accepted) {
      const reply = await send(p, id, { asset: "USDT", amount: 10, network, toAddress })
      expect({ network, status: reply.status }).toEqual({ network, status: 201 })
      expect(reply.body.data.toAddress).toBe(toAddress)
    }
    expect(await money(p, id, "USDT")).toEqual({ available: 50, held: 50 })
  })

  it("refuses below the network's minimum (SEND_BELOW_MINIMUM with details) and insufficient balance, moving nothing", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 12, USDC: 30 })
    const before = await footprint(p, id)
    const below = await send(p, id, { asset: "USDC", amount: 9.999999, network: "ETHEREUM", toAddress: randomAddress("evm"), reference: "min-1" })
    expect(below.status).toBe(400)
    expect(below.body.code).toBe("SEND_BELOW_MINIMUM")
    expect(below.body.details).toEqual({ minimumAmount: 10, asset: "USDC", network: "ETHEREUM" })
    expect(below.body.message).toMatch(/^amount/)
    const belowTron = await send(p, id, { asset: "USDT", amount: 4.99, network: "TRON", toAddress: randomAddress("TRON") })
    expect(belowTron.body).toMatchObject({ statusCode: 400, code: "SEND_BELOW_MINIMUM", details: { minimumAmount: 5, asset: "USDT", network: "TRON" } })

    const short = await send(p, id, { asset: "USDT", amount: 12.000001, network: "TRON", toAddress: randomAddress("TRON"), reference: "short-1" })
    expect(short.status).toBe(400)
    expect(short.body.code).toBe("INSUFFICIENT_BALANCE")
    const none = await send(p, id, { asset: "USDT", amount: 5, network: "SOLANA", toAddress: randomAddress("SOLANA") })
    expect(none.status).toBe(201) // 12 - 5 = 7 left
    const tooMuch = await send(p, id, { asset: "USDT", amount: 7.5, network: "SOLANA", toAddress: randomAddress("SOLANA"), reference: "short-2" })
    expect(tooMuch.body.code).toBe("INSUFFICIENT_BALANCE")
    const after = await footprint(p, id)
    expect(after.sends).toHaveLength(1)
    expect(after.rows).toBe(before.rows + 1)
    expect(await money(p, id, "USDT")).toEqual({ available: 7, held: 5 })
    expect((await sendEvents(p, id)).map((e) => e.type)).toEqual(["send.pending"])

    // A refused reference kept nothing: it can be used again.
    const retried = await send(p, id, { asset: "USDT", amount: 7, network: "SOLANA", toAddress: randomAddress("SOLANA"), reference: "short-2" })
    expect(retried.status).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 12 })
  })

  it("refuses the customer's own deposit addresses (SEND_TO_OWN_ADDRESS), EVM in any letter case", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const addresses = await app.request("GET", `${base(id)}/addresses`, { apiKey: p.apiKey })
    expect(addresses.status).toBe(200)
    const by = Object.fromEntries((addresses.body.data as Array<any>).map((a) => [a.network, a.address as string]))
    const before = await footprint(p, id)
    const evm = by.ETHEREUM!
    const cases: Array<[string, string]> = [
      ["TRON", by.TRON!],
      ["SOLANA", by.SOLANA!],
      ["ETHEREUM", evm],
      ["BSC", evm.toLowerCase()],
      ["POLYGON", "0x" + evm.slice(2).toUpperCase()]
    ]
    for (const [network, toAddress] of cases) {
      const reply = await send(p, id, { asset: "USDT", amount: 20, network, toAddress })
      expect({ network, status: reply.status, code: reply.body.code }).toEqual({ network, status: 400, code: "SEND_TO_OWN_ADDRESS" })
      expect(reply.body.message).toMatch(/^toAddress/)
    }
    expect(await footprint(p, id)).toEqual(before)
    // Another customer's deposit address is an ordinary destination.
    const other = await newCustomer(p)
    const theirs = (await app.request("GET", `${base(other)}/addresses`, { apiKey: p.apiKey })).body.data[0].address
    expect((await send(p, id, { asset: "USDT", amount: 20, network: "TRON", toAddress: theirs })).status).toBe(201)
  })

  it("refuses bad amounts, assets and networks with 400 naming the field", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const before = await footprint(p, id)
    const toAddress = randomAddress("TRON")
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ asset: "USDT", amount: 0, network: "TRON", toAddress }, "amount"],
      [{ asset: "USDT", amount: -1, network: "TRON", toAddress }, "amount"],
      [{ asset: "USDT", amount: 1.0000001, network: "TRON", toAddress }, "amount"],
      [{ asset: "USDT", amount: 10.0000001, network: "TRON", toAddress }, "amount"],
      [{ asset: "USDT", amount: "10", network: "TRON", toAddress }, "amount"],
      [{ asset: "USDT", amount: 100000001, network: "TRON", toAddress }, "amount"],
      [{ asset: "USDT", network: "TRON", toAddress }, "amount"],
      [{ asset: "USDC", amount: 10, network: "TRON", toAddress }, "asset"],
      [{ asset: "USDT", amount: 10, network: "GOERLI", toAddress }, "network"],
      [{ asset: "USDT", amount: 10, network: "TRON", toAddress, reference: "bad ref" }, "reference"]
    ]
    for (const [body, field] of cases) {
      const reply = await send(p, id, body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toMatch(new RegExp(`^${field}`))
    }
    expect(await footprint(p, id)).toEqual(before)
  })

  it("answers 403 for another partner's customer", async () => {
    const p = await newPartner()
    const id = await newCustomer(p, { USDT: 100 })
    const q = await newPartner()
    const reply = await send(q, id, { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON") })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
    expect(await money(p, id, "USDT")).toEqual({ available: 100, held: 0 })
  })
})

describe("idempotency", () => {
  it("the same reference again answers the original (201) and moves nothing twice, whatever the repeat carries", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const body = { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON"), reference: "idem-1" }
    const first = await send(p, id, body)
    expect(first.status).toBe(201)
    const again = await send(p, id, body)
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    const different = await send(p, id, { ...body, amount: 50, network: "POLYGON", toAddress: randomAddress("evm") })
    expect(different.status).toBe(201)
    expect(different.body.data).toEqual(first.body.data)
    expect(await money(p, id, "USDT")).toEqual({ available: 90, held: 10 })
    expect(await sendEvents(p, id)).toHaveLength(1)
    expect((await listSends(p, id)).data).toHaveLength(1)
    // Settled, the repeat answers the send as it is now.
    expect((await control(p, id, "idem-1", "confirm")).status).toBe(200)
    const settled = await send(p, id, body)
    expect(settled.status).toBe(201)
    expect(settled.body.data).toMatchObject({ id: first.body.data.id, status: "CONFIRMED" })
    expect(await money(p, id, "USDT")).toEqual({ available: 90, held: 0 })
  })

  it("10 racing requests with one reference make one send, one reservation and one send.pending", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDC: 100 })
    const body = { asset: "USDC", amount: 12.5, network: "SOLANA", toAddress: randomAddress("SOLANA"), reference: "race-1" }
    const replies = await Promise.all(Array.from({ length: 10 }, () => send(p, id, body)))
    for (const reply of replies) {
      expect(reply.status).toBe(201)
      expect(reply.body).toEqual(replies[0]!.body)
    }
    expect(await app.query("SELECT id FROM sends WHERE partner_id = $1 AND reference = 'race-1'", [p.partnerId])).toHaveLength(1)
    expect(await app.query("SELECT id FROM ledger_reservations WHERE customer_id = $1", [id])).toHaveLength(1)
    expect(await events(p, id, "send.pending")).toHaveLength(1)
    expect(await money(p, id, "USDC")).toEqual({ available: 87.5, held: 12.5 })
  })

  it("the same reference for another customer of the partner is 409 REFERENCE_IN_USE; another partner may use it", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const other = await newCustomer(p, { USDT: 100 })
    expect((await send(p, id, { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON"), reference: "shared-1" })).status)
      .toBe(201)
    const before = await footprint(p, other)
    const taken = await send(p, other, { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON"), reference: "shared-1" })
    expect(taken.status).toBe(409)
    expect(taken.body.code).toBe("REFERENCE_IN_USE")
    expect(await footprint(p, other)).toEqual(before)
    const q = await newPartner({ mode: "manual" })
    const theirs = await newCustomer(q, { USDT: 100 })
    expect((await send(q, theirs, { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON"), reference: "shared-1" })).status)
      .toBe(201)
    // Two customers racing for one new reference: one send, the other 409, nothing reserved for it.
    const racers = [await newCustomer(p, { USDT: 50 }), await newCustomer(p, { USDT: 50 })]
    const raced = await Promise.all(racers.flatMap((c) =>
      [1, 2, 3].map(() => send(p, c, { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON"), reference: "shared-race" }))))
    const winner = raced.findIndex((r) => r.status === 201) < 3 ? 0 : 1
    expect(raced.slice(winner * 3, winner * 3 + 3).map((r) => r.status)).toEqual([201, 201, 201])
    expect(raced.slice((1 - winner) * 3, (1 - winner) * 3 + 3).map((r) => r.body.code)).toEqual(Array(3).fill("REFERENCE_IN_USE"))
    expect(await money(p, racers[winner]!, "USDT")).toEqual({ available: 40, held: 10 })
    expect(await money(p, racers[1 - winner]!, "USDT")).toEqual({ available: 50, held: 0 })
    expect(await app.query("SELECT id FROM sends WHERE partner_id = $1 AND reference = 'shared-race'", [p.partnerId])).toHaveLength(1)
    // The scope is the endpoint: a withdrawal may carry the same reference (it fails for its own reasons, not 409).
    const withdrawal = await app.request("POST", `${base(id)}/withdraw`, { apiKey: p.apiKey, body: { amount: 2000, reference: "shared-1" } })
    expect(withdrawal.body.code).not.toBe("REFERENCE_IN_USE")
  })
})

describe("concurrency", () => {
  it("20 concurrent sends worth more than the balance never overdraw", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      send(p, id, { asset: "USDT", amount: 7, network: "POLYGON", toAddress: randomAddress("evm"), reference: `burst-${i}` })))
    const accepted = replies.filter((r) => r.status === 201)
    const refused = replies.filter((r) => r.status !== 201)
    expect(accepted).toHaveLength(14) // 14 x 7 = 98 <= 100; a 15th would need 105
    for (const reply of refused) {
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("INSUFFICIENT_BALANCE")
    }
    expect(await money(p, id, "USDT")).toEqual({ available: 2, held: 98 })
    expect(await events(p, id, "send.pending")).toHaveLength(14)
    expect(await app.query("SELECT id FROM sends WHERE customer_id = $1", [id])).toHaveLength(14)
    const listed = await listSends(p, id, "?limit=100")
    expect((listed.data as Array<any>).map((s) => s.reference).sort()).toEqual(accepted.map((r) => r.body.data.reference).sort())
  })
})

describe("outcomes on the auto chain rail", () => {
  it("confirms after the chain delay (180 s): txHash in the network's format, send.confirmed, the reservation posted", async () => {
    const p = await newPartner()
    const id = await newCustomer(p, { USDT: 100, USDC: 100 })
    const cases: Array<[string, string, number, number]> = [
      ["ETHEREUM", "USDC", 10, 4],
      ["BSC", "USDC", 10, 0.3],
      ["POLYGON", "USDT", 5, 0.2],
      ["TRON", "USDT", 6, 1],
      ["SOLANA", "USDT", 7.5, 0.5]
    ]
    const created: Array<any> = []
    for (const [network, asset, amount] of cases) {
      const reply = await send(p, id, { asset, amount, network, toAddress: randomAddress(formatOfNetwork(network)), reference: `ok-${network}` })
      expect(reply.status).toBe(201)
      created.push(reply.body.data)
    }
    const reserved = { USDT: await money(p, id, "USDT"), USDC: await money(p, id, "USDC") }
    expect(reserved).toEqual({ USDT: { available: 81.5, held: 18.5 }, USDC: { available: 80, held: 20 } })

    await advance(p, 179)
    for (const s of created) expect((await getSend(p, id, s.reference)).body.data.status).toBe("PENDING")
    expect(await events(p, id, "send.confirmed")).toHaveLength(0)
    await advance(p, 1)

    for (const [i, [network, asset, amount, fee]] of cases.entries()) {
      const reply = await getSend(p, id, `ok-${network}`)
      const s = reply.body.data
      expect(s).toMatchObject({ status: "CONFIRMED", failureReason: null, amount, fee, network, asset })
      expect(s.updatedAt > s.createdAt).toBe(true)
      expectTxHash(network, s.txHash)
      const net = BigInt(Math.round(amount * 1e6)) - BigInt(Math.round(fee * 1e6))
      expect(await houseTotal(created[i].id, `chain_omnibus:${network}`)).toBe(String(net))
      expect(await houseTotal(created[i].id, "fee_revenue")).toBe(String(BigInt(Math.round(fee * 1e6))))
    }
    expect(await money(p, id, "USDT")).toEqual({ available: 81.5, held: 0 })
    expect(await money(p, id, "USDC")).toEqual({ available: 80, held: 0 })
    const confirmed = await events(p, id, "send.confirmed")
    expect(confirmed).toHaveLength(5)
    for (const event of confirmed) {
      const s = (await getSend(p, id, event.data.reference)).body.data
      expect(event.data).toEqual({ customerId: id, ...s })
    }
    expect(await events(p, id, "send.broadcast")).toHaveLength(0)
    expect(await events(p, id, "send.failed")).toHaveLength(0)
    // No movement on the available balance at confirmation: the transactions list shows only the 5 reservations.
    const sendEntries = (await transactions(p, id)).filter((t) => t.resourceType === "send")
    expect(sendEntries.map((t) => [t.type, t.reason])).toEqual(Array.from({ length: 5 }, () => ["DEBIT", "send"]))
  })

  it("each magic address fails its send with the documented reason per network family; the whole amount returns", async () => {
    const p = await newPartner()
    const id = await newCustomer(p, { USDT: 1000 })
    const causes = ["rejected", "reverted", "dropped", "undeliverable"] as const
    const families: Array<[AddressFormat, string]> = [["evm", "BSC"], ["evm", "ETHEREUM"], ["TRON", "TRON"], ["SOLANA", "SOLANA"]]
    const expected: Array<[string, string, typeof causes[number]]> = []
    for (const [format, network] of families) {
      for (const [i, cause] of causes.entries()) {
        const n = i + 1
        const reference = `magic-${network}-${n}`
        const toAddress = magicAddress(format, n)
        const reply = await send(p, id, { asset: "USDT", amount: 10, network, toAddress, reference })
        expect(reply.status).toBe(201)
        expect(reply.body.data.status).toBe("PENDING")
        expected.push([reference, network, cause])
      }
    }
    expect(await money(p, id, "USDT")).toEqual({ available: 840, held: 160 })
    await advance(p, 180)
    for (const [reference, network, cause] of expected) {
      const s = (await getSend(p, id, reference)).body.data
      expect({ reference, status: s.status, failureReason: s.failureReason }).toEqual({
        reference,
        status: "FAILED",
        failureReason: failureReasons[cause]
      })
      if (cause === "rejected") expect(s.txHash).toBeNull()
      else expectTxHash(network, s.txHash)
      expect(await houseTotal(s.id, `chain_omnibus:${network}`)).toBe("0")
    }
    expect(failureReasons).toEqual({
      rejected: "Rejected by the network before broadcast: nothing was sent",
      reverted: "Reverted on chain: the transaction was mined but failed",
      dropped: "Dropped from the mempool: the transaction was never mined",
      undeliverable: "Undeliverable: the receiving exchange could not credit the transfer and returned it"
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 1000, held: 0 })
    const failed = await events(p, id, "send.failed")
    expect(failed).toHaveLength(16)
    for (const event of failed) expect(event.data).toEqual({ customerId: id, ...(await getSend(p, id, event.data.reference)).body.data })
    expect(await events(p, id, "send.confirmed")).toHaveLength(0)
    expect(await events(p, id, "send.broadcast")).toHaveLength(0)
    const refunds = (await transactions(p, id)).filter((t) => t.reason === "send_refund")
    expect(refunds).toHaveLength(16)
    for (const refund of refunds) {
      expect(refund).toMatchObject({ type: "CREDIT", amount: 10, currency: "USDT", resourceType: "send", reference: expect.stringMatching(/^magic-/) })
    }
  })

  it("on the manual rail a magic address decides nothing by itself: the send waits for a control", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    expect((await send(p, id, { asset: "USDT", amount: 10, network: "TRON", toAddress: magicAddress("TRON", 2), reference: "m-1" })).status).toBe(201)
    await advance(p, 3600)
    expect((await getSend(p, id, "m-1")).body.data.status).toBe("PENDING")
    const confirmed = await control(p, id, "m-1", "confirm")
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.data.status).toBe("CONFIRMED")
  })

  it("the policy's outcome failure fails a send as rejected (no txHash) after its delay", async () => {
    const p = await newPartner({ mode: "auto", outcome: "failure", delaySeconds: 30 })
    const id = await newCustomer(p, { USDC: 50 })
    const reply = await send(p, id, { asset: "USDC", amount: 20, network: "POLYGON", toAddress: randomAddress("evm"), reference: "policy-fail" })
    expect(reply.status).toBe(201)
    await advance(p, 29)
    expect((await getSend(p, id, "policy-fail")).body.data.status).toBe("PENDING")
    expect(await money(p, id, "USDC")).toEqual({ available: 30, held: 20 })
    await advance(p, 1)
    const s = (await getSend(p, id, "policy-fail")).body.data
    expect(s).toMatchObject({ status: "FAILED", txHash: null, failureReason: failureReasons.rejected })
    expect(await money(p, id, "USDC")).toEqual({ available: 50, held: 0 })
    expect((await sendEvents(p, id)).map((e) => e.type)).toEqual(["send.failed", "send.pending"]) // newest first
    // A magic address decides whatever the policy says: 0x..04 is undeliverable, with a hash.
    const magic = await send(p, id, { asset: "USDC", amount: 20, network: "POLYGON", toAddress: magicAddress("evm", 4), reference: "policy-magic" })
    expect(magic.status).toBe(201)
    await advance(p, 30)
    const m = (await getSend(p, id, "policy-magic")).body.data
    expect(m).toMatchObject({ status: "FAILED", failureReason: failureReasons.undeliverable })
    expectTxHash("POLYGON", m.txHash)
  })
})

describe("sandbox controls on the manual chain rail", () => {
  it("nothing happens on the clock; confirm and fail with each cause settle the send once", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const networksOf = ["TRON", "BSC", "SOLANA", "ETHEREUM", "POLYGON"]
    for (const [i, network] of networksOf.entries()) {
      const reply = await send(p, id, { asset: "USDT", amount: 10, network, toAddress: randomAddress(formatOfNetwork(network)), reference: `manual-${i}` })
      expect(reply.status).toBe(201)
    }
    await advance(p, 86_400)
    for (let i = 0; i < 5; i++) expect((await getSend(p, id, `manual-${i}`)).body.data.status).toBe("PENDING")
    expect(await money(p, id, "USDT")).toEqual({ available: 50, held: 50 })

    const confirmed = await control(p, id, "manual-0", "confirm")
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.data).toMatchObject({ reference: "manual-0", status: "CONFIRMED", failureReason: null })
    expectTxHash("TRON", confirmed.body.data.txHash)
    expect(await money(p, id, "USDT")).toEqual({ available: 50, held: 40 })

    const causes = ["rejected", "reverted", "dropped", "undeliverable"] as const
    for (const [i, cause] of causes.entries()) {
      const reference = `manual-${i + 1}`
      const reply = await control(p, id, reference, "fail", cause)
      expect(reply.status).toBe(200)
      expect(reply.body.data).toMatchObject({ reference, status: "FAILED", failureReason: failureReasons[cause] })
      if (cause === "rejected") expect(reply.body.data.txHash).toBeNull()
      else expectTxHash(networksOf[i + 1]!, reply.body.data.txHash)
      expect(reply.body.data).toEqual((await getSend(p, id, reference)).body.data)
    }
    expect(await money(p, id, "USDT")).toEqual({ available: 90, held: 0 })
    expect((await sendEvents(p, id)).map((e) => e.type).reverse()).toEqual([
      ...Array.from({ length: 5 }, () => "send.pending"),
      "send.confirmed",
      ...Array.from({ length: 4 }, () => "send.failed")
    ])

    // A second control: 400 SEND_STATE_CONFLICT, nothing moves.
    const before = await footprint(p, id)
    for (const [reference, move, reason] of [
      ["manual-0", "confirm", undefined],
      ["manual-0", "fail", "dropped"],
      ["manual-1", "confirm", undefined],
      ["manual-2", "fail", "reverted"]
    ] as const) {
      const reply = await control(p, id, reference, move, reason)
      expect({ reference, move, status: reply.status, code: reply.body.code }).toEqual({ reference, move, status: 400, code: "SEND_STATE_CONFLICT" })
    }
    expect(await footprint(p, id)).toEqual(before)
  })

  it("answers 404 for an unknown reference, 403 for another partner's customer, 400 naming reason for a bad one", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    expect((await send(p, id, { asset: "USDT", amount: 10, network: "TRON", toAddress: randomAddress("TRON"), reference: "ctl-1" })).status).toBe(201)
    const before = await footprint(p, id)
    const unknown = await control(p, id, "no-such-send", "confirm")
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("SEND_NOT_FOUND")
    expect((await control(p, id, "no-such-send", "fail", "dropped")).body.code).toBe("SEND_NOT_FOUND")
    // Another customer of the same partner does not own the reference.
    const other = await newCustomer(p)
    expect((await control(p, other, "ctl-1", "confirm")).body.code).toBe("SEND_NOT_FOUND")
    const q = await newPartner()
    const foreign = await control(q, id, "ctl-1", "confirm")
    expect(foreign.status).toBe(403)
    expect(foreign.body.code).toBe("CUSTOMER_FORBIDDEN")
    expect((await control(q, id, "ctl-1", "fail", "dropped")).status).toBe(403)
    for (const body of [{ reason: "lost" }, { reason: "REJECTED" }, {}]) {
      const reply = await app.request("POST", `/sandbox/customers/${id}/sends/ctl-1/fail`, { apiKey: p.apiKey, body })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toMatch(/^reason/)
    }
    const noKey = await app.request("POST", `/sandbox/customers/${id}/sends/ctl-1/confirm`)
    expect(noKey.status).toBe(401)
    expect(await footprint(p, id)).toEqual(before)
  })

  it("a control after the auto rail answered is a conflict; the auto job after a control does nothing", async () => {
    const p = await newPartner() // auto, success, 180 s
    const id = await newCustomer(p, { USDT: 100 })
    const toAddress = randomAddress("TRON")
    expect((await send(p, id, { asset: "USDT", amount: 10, network: "TRON", toAddress, reference: "auto-first" })).status).toBe(201)
    await advance(p, 180)
    const settled = (await getSend(p, id, "auto-first")).body.data
    expect(settled.status).toBe("CONFIRMED")
    const afterAuto = await footprint(p, id)
    for (const [move, reason] of [["confirm", undefined], ["fail", "undeliverable"]] as const) {
      const reply = await control(p, id, "auto-first", move, reason)
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("SEND_STATE_CONFLICT")
    }
    expect(await footprint(p, id)).toEqual(afterAuto)
    expect((await getSend(p, id, "auto-first")).body.data).toEqual(settled)

    // The operator answers first (fail), then the chain's job comes due with "confirmed": it finds the send settled.
    expect((await send(p, id, { asset: "USDT", amount: 20, network: "TRON", toAddress, reference: "control-first" })).status).toBe(201)
    const failed = await control(p, id, "control-first", "fail", "dropped")
    expect(failed.status).toBe(200)
    expect(await money(p, id, "USDT")).toEqual({ available: 90, held: 0 })
    const beforeJob = await footprint(p, id)
    await advance(p, 180)
    expect(await footprint(p, id)).toEqual(beforeJob)
    expect((await getSend(p, id, "control-first")).body.data).toEqual(failed.body.data)
    // Both outcome jobs ran to the end, the second finding nothing to do (not failed, not retrying).
    const jobs = await app.query("SELECT status, last_error FROM jobs WHERE customer_id = $1 AND kind = 'chain.send_outcome' ORDER BY seq", [id])
    expect(jobs).toEqual([{ status: "DONE", lastError: null }, { status: "DONE", lastError: null }])
    expect((await sendEvents(p, id)).map((e) => e.type).reverse()).toEqual(["send.pending", "send.confirmed", "send.pending", "send.failed"])
  })
})

describe("reads", () => {
  it("lists sends newest first with limit and cursor; reads one by reference; 404 for unknown or another customer's", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    for (let i = 0; i < 5; i++) {
      expect((await send(p, id, { asset: "USDT", amount: 5 + i, network: "TRON", toAddress: randomAddress("TRON"), reference: `list-${i}` })).status)
        .toBe(201)
    }
    const all = await listSends(p, id)
    expect((all.data as Array<any>).map((s) => s.reference)).toEqual(["list-4", "list-3", "list-2", "list-1", "list-0"])
    expect(all.meta).toEqual({ nextCursor: null })
    const page1 = await listSends(p, id, "?limit=2")
    expect((page1.data as Array<any>).map((s) => s.reference)).toEqual(["list-4", "list-3"])
    expect(page1.meta.nextCursor).toEqual(expect.any(String))
    // A send created while paging does not shift the pages.
    expect((await send(p, id, { asset: "USDT", amount: 5, network: "TRON", toAddress: randomAddress("TRON"), reference: "list-5" })).status).toBe(201)
    const page2 = await listSends(p, id, `?limit=2&cursor=${encodeURIComponent(page1.meta.nextCursor)}`)
    expect((page2.data as Array<any>).map((s) => s.reference)).toEqual(["list-2", "list-1"])
    const page3 = await listSends(p, id, `?limit=2&cursor=${encodeURIComponent(page2.meta.nextCursor)}`)
    expect((page3.data as Array<any>).map((s) => s.reference)).toEqual(["list-0"])
    expect(page3.meta.nextCursor).toBeNull()
    for (const query of ["?limit=0", "?limit=101", "?limit=x"]) {
      const reply = await app.request("GET", `${base(id)}/sends${query}`, { apiKey: p.apiKey })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
    }
    const other = await newCustomer(p)
    const stolen = await app.request("GET", `${base(other)}/sends?limit=2&cursor=${encodeURIComponent(page1.meta.nextCursor)}`, { apiKey: p.apiKey })
    expect(stolen.status).toBe(400)
    expect(stolen.body.code).toBe("INVALID_CURSOR")
    expect((await listSends(p, other)).data).toEqual([])

    const one = await getSend(p, id, "list-3")
    expect(one.status).toBe(200)
    expect(one.body.data).toEqual((all.data as Array<any>)[1])
    for (const [customer, reference] of [[id, "nope"], [other, "list-3"]] as const) {
      const reply = await getSend(p, customer, reference)
      expect(reply.status).toBe(404)
      expect(reply.body.code).toBe("SEND_NOT_FOUND")
    }
    const foreign = await getSend(await newPartner(), id, "list-3")
    expect(foreign.status).toBe(403)
    expect((await app.request("GET", `${base(id)}/sends`, { apiKey: (await newPartner()).apiKey })).status).toBe(403)
  })

  it("GET .../transactions shows the send debit and the send_refund credit with the reference", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDC: 40 })
    const created = (await send(p, id, { asset: "USDC", amount: 15, network: "BSC", toAddress: randomAddress("evm"), reference: "tx-1" })).body.data
    expect((await control(p, id, "tx-1", "fail", "reverted")).status).toBe(200)
    const entries = await transactions(p, id)
    expect(entries.map((t) => ({ type: t.type, reason: t.reason, amount: t.amount, balanceAfter: t.balanceAfter, reference: t.reference }))).toEqual([
      { type: "CREDIT", reason: "send_refund", amount: 15, balanceAfter: 40, reference: "tx-1" },
      { type: "DEBIT", reason: "send", amount: 15, balanceAfter: 25, reference: "tx-1" },
      { type: "CREDIT", reason: "deposit", amount: 40, balanceAfter: 40, reference: expect.any(String) }
    ])
    expect(entries[0]).toMatchObject({ currency: "USDC", resourceType: "send", resourceId: created.id })
    expect(entries[1]).toMatchObject({ currency: "USDC", resourceType: "send", resourceId: created.id })
    expect(entries[0].transactionId).not.toBe(entries[1].transactionId)
  })
})

describe("GET /sandbox/operations?rail=chain", () => {
  it("lists pending sends with their confirm and fail actions; each action works as listed", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await newCustomer(p, { USDT: 100 })
    const toAddress = randomAddress("TRON")
    for (let i = 0; i < 5; i++) {
      expect((await send(p, id, { asset: "USDT", amount: 10, network: "TRON", toAddress, reference: `op-${i}` })).status).toBe(201)
      // Operations are newest first by (createdAt, id): a second apart, the order is the creation order.
      await advance(p, 1)
    }
    const list = await app.request("GET", `/sandbox/operations?rail=chain&customerId=${id}`, { apiKey: p.apiKey })
    expect(list.status).toBe(200)
    const items = list.body.data as Array<any>
    expect(items.map((o) => o.reference)).toEqual(["op-4", "op-3", "op-2", "op-1", "op-0"])
    const first = items[0]
    const path = `/api/v1/sandbox/customers/${id}/sends/op-4`
    expect(first).toMatchObject({
      kind: "send",
      rail: "chain",
      customerId: id,
      status: "PENDING",
      reference: "op-4",
      summary: `USDT 10 on TRON to ${toAddress}`,
      dueAt: null
    })
    expect(first.actions).toEqual([
      { name: "confirm", label: expect.any(String), method: "POST", path: `${path}/confirm`, body: null, reason: "none" },
      { name: "fail-rejected", label: expect.any(String), method: "POST", path: `${path}/fail`, body: { reason: "rejected" }, reason: "none" },
      { name: "fail-reverted", label: expect.any(String), method: "POST", path: `${path}/fail`, body: { reason: "reverted" }, reason: "none" },
      { name: "fail-dropped", label: expect.any(String), method: "POST", path: `${path}/fail`, body: { reason: "dropped" }, reason: "none" },
      { name: "fail-undeliverable", label: expect.any(String), method: "POST", path: `${path}/fail`, body: { reason: "undeliverable" }, reason: "none" }
    ])
    // Each pending send settled by a different action, called exactly as listed.
    const expectedStatus = ["CONFIRMED", "FAILED", "FAILED", "FAILED", "FAILED"]
    for (const [i, item] of items.entries()) {
      const action = item.actions[i]
      const reply = await app.request(action.method, action.path.replace(/^\/api\/v1/, ""), {
        apiKey: p.apiKey,
        ...(action.body === null ? {} : { body: action.body })
      })
      expect({ action: action.name, status: reply.status }).toEqual({ action: action.name, status: 200 })
      expect(reply.body.data).toMatchObject({ reference: item.reference, status: expectedStatus[i] })
    }
    expect(await money(p, id, "USDT")).toEqual({ available: 90, held: 0 })
    const after = await app.request("GET", `/sandbox/operations?rail=chain&customerId=${id}`, { apiKey: p.apiKey })
    expect(after.body.data).toEqual([])
  })

  it("shows when the auto rail answers (dueAt) and only the calling partner's sends", async () => {
    const p = await newPartner({ mode: "auto", delaySeconds: 600 })
    const id = await newCustomer(p, { USDT: 100 })
    const created = (await send(p, id, { asset: "USDT", amount: 10, network: "SOLANA", toAddress: randomAddress("SOLANA"), reference: "due-1" })).body.data
    const list = await app.request("GET", `/sandbox/operations?rail=chain&customerId=${id}`, { apiKey: p.apiKey })
    expect(list.body.data).toHaveLength(1)
    expect(list.body.data[0]).toMatchObject({ id: created.id, reference: "due-1", createdAt: created.createdAt })
    expect(new Date(list.body.data[0].dueAt).getTime() - new Date(created.createdAt).getTime()).toBe(600_000)
    const bank = await app.request("GET", `/sandbox/operations?rail=bank&customerId=${id}`, { apiKey: p.apiKey })
    expect(bank.body.data).toEqual([])
    const q = await newPartner()
    expect((await app.request("GET", `/sandbox/operations?rail=chain&customerId=${id}`, { apiKey: q.apiKey })).body.data).toEqual([])
    await advance(p, 600)
    expect((await app.request("GET", `/sandbox/operations?rail=chain&customerId=${id}`, { apiKey: p.apiKey })).body.data).toEqual([])
  })
})

describe("production without a chain adapter", () => {
  it("a send answers 503 CHAIN_RAIL_UNAVAILABLE and writes nothing; the reference stays unused", async () => {
    const prod = await startTestApp({ config: { mode: "production" } })
    try {
      const created = await prod.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Partner", kybStatus: "APPROVED" })))
      const apiKey = created.apiKey
      const { id } = await fixtures(prod).customer({ apiKey })
      expect((await harness(prod, created.partner.id).credit(id, "USDT", 50_000_000n)).ok).toBe(true)
      const footprintOf = async () => ({
        balance: (await prod.request("GET", `${base(id)}/balance`, { apiKey })).body.data,
        sends: (await prod.query("SELECT id FROM sends WHERE customer_id = $1", [id])).length,
        keys: (await prod.query("SELECT reference FROM idempotency_keys WHERE customer_id = $1", [id])).length,
        jobs: (await prod.query("SELECT id FROM jobs WHERE customer_id = $1", [id])).length,
        reservations: (await prod.query("SELECT id FROM ledger_reservations WHERE customer_id = $1", [id])).length,
        events: (await prod.query<{ type: string }>("SELECT type FROM events WHERE customer_id = $1 ORDER BY seq", [id])).map((r) => r.type)
      })
      const before = await footprintOf()
      expect(before.balance).toEqual([{ currency: "NGN", balance: 0 }, { currency: "USDT", balance: 50 }])
      for (const [network, toAddress] of [
        ["TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
        ["ETHEREUM", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
        ["SOLANA", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"]
      ] as const) {
        const reply = await prod.request("POST", `${base(id)}/send`, {
          apiKey,
          body: { asset: "USDT", amount: 20, network, toAddress, reference: "prod-send-1" }
        })
        expect({ network, status: reply.status, code: reply.body.code }).toEqual({ network, status: 503, code: "CHAIN_RAIL_UNAVAILABLE" })
        expect(reply.body).toMatchObject({ success: false, statusCode: 503, message: expect.stringMatching(/chain rail/) })
      }
      expect(await footprintOf()).toEqual(before)
      expect((await prod.request("GET", `${base(id)}/sends`, { apiKey })).body.data).toEqual([])
      expect((await prod.run(checkLedger)).violations).toEqual([])
    } finally {
      await prod.close()
    }
  })
})
