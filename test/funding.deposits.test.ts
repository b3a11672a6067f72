import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { isValidEvmAddress, isValidSolanaAddress, isValidTronAddress } from "../simulators/chain/Addresses.js"
import { fundingSupport } from "./funding.support.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
const f = fundingSupport(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())
afterEach(() => f.expectLedgerClean())

const addressesPath = (customerId: string) => `/partner/v1/customers/${customerId}/addresses`
const depositPath = (customerId: string) => `/sandbox/customers/${customerId}/deposits`

describe("chain address formats", () => {
  it("checks real checksums: EIP-55 and TRON base58check", () => {
    expect(isValidEvmAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")).toBe(true)
    expect(isValidEvmAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")).toBe(false)
    expect(isValidTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe(true)
    expect(isValidTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u")).toBe(false)
    expect(isValidSolanaAddress("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")).toBe(true)
  })
})

describe("deposit addresses", () => {
  it("one valid address per network, stable across reads, one EVM address shared by every EVM network", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    const replies = await Promise.all([1, 2].map(() => app.request("GET", addressesPath(customerId), { apiKey })))
    expect(replies[0]!.status).toBe(200)
    expect(replies[1]!.body).toEqual(replies[0]!.body)
    const list = replies[0]!.body.data as Array<any>
    expect(list.map((a) => a.network)).toEqual(["TRON", "ETHEREUM", "BSC", "POLYGON", "SOLANA"])
    const by = Object.fromEntries(list.map((a) => [a.network, a]))
    expect(by.TRON).toMatchObject({ displayName: "Tron (TRC-20)", assets: ["USDT"], confirmations: 20 })
    expect(isValidTronAddress(by.TRON.address)).toBe(true)
    for (const evm of ["ETHEREUM", "BSC", "POLYGON"]) {
      expect(isValidEvmAddress(by[evm].address)).toBe(true)
      expect(by[evm].address).not.toBe(by[evm].address.toLowerCase())
      expect(by[evm].address).toBe(by.ETHEREUM.address)
    }
    expect(isValidSolanaAddress(by.SOLANA.address)).toBe(true)
    expect((await app.request("GET", addressesPath(customerId), { apiKey })).body).toEqual(replies[0]!.body)
    const other = await f.newCustomer("NG", apiKey)
    const theirs = (await app.request("GET", addressesPath(other.customerId), { apiKey })).body.data
    expect(theirs[0].address).not.toBe(by.TRON.address)
    expect((await app.request("GET", addressesPath(other.customerId), { apiKey: (await app.newPartner()).apiKey })).status).toBe(403)
  })
})

describe("stablecoin deposits (sandbox)", () => {
  it("credits USDT on TRON: balance, transactions, deposit.received with the customer's address", async () => {
    const { apiKey, customerId } = await f.newCustomer("KE")
    const tron = (await app.request("GET", addressesPath(customerId), { apiKey })).body.data[0].address
    const reply = await app.request("POST", depositPath(customerId), { apiKey, body: { asset: "USDT", network: "TRON", amount: 25.5 } })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({
      customerId, asset: "USDT", network: "TRON", amount: 25.5, address: tron, status: "CREDITED",
      txHash: expect.stringMatching(/^[0-9a-f]{64}$/)
    })
    expect(await f.balances(apiKey, customerId)).toEqual([{ currency: "KES", balance: 0 }, { currency: "USDT", balance: 25.5 }])
    const [entry] = await f.transactions(apiKey, customerId)
    expect(entry).toMatchObject({ type: "CREDIT", reason: "deposit", amount: 25.5, currency: "USDT", reference: reply.body.data.txHash })
    const [event] = await f.events(apiKey, customerId, "deposit.received")
    expect(event!.data).toEqual({ customerId, asset: "USDT", network: "TRON", amount: 25.5, txHash: reply.body.data.txHash, address: tron })
    const house = await app.query<{ sum: string }>(
      `SELECT sum(e.amount)::text AS sum FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
       JOIN ledger_transactions t ON t.id = e.transaction_id
       WHERE a.code = 'chain_omnibus:TRON' AND t.customer_id = $1`, [customerId])
    expect(house[0]!.sum).toBe("-25500000")
  })

  it("credits USDC on an EVM network with a given hash once: a repeated txHash returns the original", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    const txHash = "0x" + "ab".repeat(32)
    const body = { asset: "USDC", network: "POLYGON", amount: 10.123456, txHash }
    const replies = await Promise.all([1, 2, 3].map(() => app.request("POST", depositPath(customerId), { apiKey, body })))
    for (const reply of replies) {
      expect(reply.status).toBe(201)
      expect(reply.body).toEqual(replies[0]!.body)
    }
    const again = await app.request("POST", depositPath(customerId), { apiKey, body: { ...body, amount: 99 } })
    expect(again.body.data).toEqual(replies[0]!.body.data)
    expect(await f.balanceOf(apiKey, customerId, "USDC")).toBe(10.123456)
    expect(await f.events(apiKey, customerId, "deposit.received")).toHaveLength(1)
    const other = await f.newCustomer("NG", apiKey)
    const clash = await app.request("POST", depositPath(other.customerId), { apiKey, body })
    expect(clash.status).toBe(409)
    expect(clash.body.code).toBe("TX_HASH_IN_USE")
    const sameHashOtherNetwork = await app.request("POST", depositPath(customerId), { apiKey, body: { ...body, network: "BSC" } })
    expect(sameHashOtherNetwork.status).toBe(201)
    expect(await f.balanceOf(apiKey, customerId, "USDC")).toBe(20.246912)
  })

  it("refuses unsupported pairs, bad amounts and malformed hashes with 400, and nothing moves", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ asset: "USDC", network: "TRON", amount: 5 }, "asset"],
      [{ asset: "DAI", network: "ETHEREUM", amount: 5 }, "asset"],
      [{ asset: "USDT", network: "ARBITRUM", amount: 5 }, "network"],
      [{ asset: "USDT", network: "TRON", amount: "5" }, "amount"],
      [{ asset: "USDT", network: "TRON", amount: 0 }, "amount"],
      [{ asset: "USDT", network: "TRON", amount: -1 }, "amount"],
      [{ asset: "USDT", network: "TRON", amount: 1.1234567 }, "amount"],
      [{ asset: "USDT", network: "TRON", amount: 1, txHash: "0x" + "a".repeat(64) }, "txHash"],
      [{ asset: "USDT", network: "ETHEREUM", amount: 1, txHash: "a".repeat(64) }, "txHash"],
      [{ asset: "USDT", network: "TRON", amount: 1, unsupported: true }, "unsupported"],
      [{ asset: "USDT", network: "FOOCHAIN", amount: 1, unsupported: true }, "network"],
      [{ asset: "usdt", network: "TRON", amount: 1 }, "asset"]
    ]
    for (const [body, field] of cases) {
      const reply = await app.request("POST", depositPath(customerId), { apiKey, body })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain(field)
    }
    expect(await app.query("SELECT * FROM deposits WHERE customer_id = $1", [customerId])).toHaveLength(0)
    expect(await app.query("SELECT * FROM ledger_transactions WHERE customer_id = $1", [customerId])).toHaveLength(0)
    expect(await f.events(apiKey, customerId, "deposit.received")).toHaveLength(0)
  })

  it("records an unsupported token or network as UNSUPPORTED with deposit.unsupported and credits nothing", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    const addresses = (await app.request("GET", addressesPath(customerId), { apiKey })).body.data
    const evm = addresses.find((a: any) => a.network === "ETHEREUM").address
    const dai = await app.request("POST", depositPath(customerId), {
      apiKey, body: { asset: "DAI", network: "ETHEREUM", amount: 12.000000000001, unsupported: true }
    })
    expect(dai.status).toBe(201)
    expect(dai.body.data).toMatchObject({ asset: "DAI", network: "ETHEREUM", status: "UNSUPPORTED", address: evm })
    const arbitrum = await app.request("POST", depositPath(customerId), {
      apiKey, body: { asset: "USDT", network: "ARBITRUM", amount: 7, unsupported: true }
    })
    expect(arbitrum.body.data).toMatchObject({ network: "ARBITRUM", status: "UNSUPPORTED", address: evm, amount: 7 })
    const usdcOnTron = await app.request("POST", depositPath(customerId), {
      apiKey, body: { asset: "USDC", network: "TRON", amount: 3, unsupported: true }
    })
    expect(usdcOnTron.body.data.address).toBe(addresses[0].address)
    const unsupported = await f.events(apiKey, customerId, "deposit.unsupported")
    expect(unsupported).toHaveLength(3)
    expect(unsupported.find((e) => e.data.network === "ARBITRUM")!.data).toEqual({
      customerId, asset: "USDT", network: "ARBITRUM", amount: 7, txHash: arbitrum.body.data.txHash, address: evm
    })
    expect(await f.balances(apiKey, customerId)).toEqual([{ currency: "NGN", balance: 0 }])
    expect(await app.query("SELECT * FROM ledger_transactions WHERE customer_id = $1", [customerId])).toHaveLength(0)
  })
})
