import { expect } from "vitest"
import { fixtures, type RailPolicy } from "./Fixtures.js"
import { multipart, samples } from "./KycHelpers.js"
import type { TestApp } from "./TestApp.js"

/**
 * HTTP helpers of the Tier 3 / international enrolment tests (test/international.*.test.ts): partners with a payout
 * rail policy, verified customers with balances, the submission, the international status, the payout partners'
 * sandbox controls, the clock, events and balances. `app` is read at each call (the suites start it in beforeAll).
 */
export interface Partner {
  readonly partnerId: string
  readonly apiKey: string
}

export const internationalClient = (getApp: () => TestApp) => {
  const app = () => getApp()
  const fx = fixtures(app)
  const base = (customerId: string) => `/partner/v1/customers/${customerId}`

  const newPartner = (payout?: RailPolicy): Promise<Partner> => fx.partner(payout === undefined ? {} : { rails: { payout } })

  const upload = async (p: Partner, customerId: string, bytes = samples.png(), filename = "doc.png") => {
    const reply = await app().request("POST", `${base(customerId)}/kyc/documents`, {
      apiKey: p.apiKey,
      ...(await multipart([{ name: "file", value: bytes, filename }]))
    })
    expect(reply.status).toBe(201)
    return reply.body.data.url as string
  }

  /** A customer with Tier 1 and Tier 2 approved (Tier 2 by the reviewer control), and the given balances. */
  const verifiedCustomer = async (p: Partner, funds: { USDT?: number; NGN?: number } = {}, tier2 = true) => {
    const { id } = await fx.customer(p)
    await fx.approveTier1(p, id, { bvn: "12345678901", nin: "10987654321" })
    if (tier2) await fx.approveTier2(p, id, { number: "A12345678" })
    await fx.fund(p, id, funds)
    return id
  }

  const address = (postalCode = "101241") => ({ line1: "12 Marina Road", city: "Lagos", postalCode, country: "NG" })

  const tier3 = (p: Partner, customerId: string, body: unknown) =>
    app().request("POST", `${base(customerId)}/kyc/tier3`, { apiKey: p.apiKey, body })

  const status = async (p: Partner, customerId: string) => {
    const reply = await app().request("GET", `${base(customerId)}/global-send/international-status`, { apiKey: p.apiKey })
    expect(reply.status).toBe(200)
    return reply.body.data
  }

  const group = async (p: Partner, customerId: string, key: string) =>
    (await status(p, customerId)).groups.find((g: any) => g.key === key)

  const control = (p: Partner, customerId: string, key: string, move: string, body?: unknown) =>
    app().request("POST", `/sandbox/customers/${customerId}/international/${key}/${move}`, {
      apiKey: p.apiKey,
      ...(body === undefined ? {} : { body })
    })

  const advance = (p: Partner, seconds = 900) => app().request("POST", "/sandbox/clock/advance", { apiKey: p.apiKey, body: { seconds } })

  const events = async (p: Partner, customerId: string, type?: string) => {
    const reply = await app().request("GET", `/sandbox/events?customerId=${customerId}${type === undefined ? "" : `&type=${type}`}&limit=100`, {
      apiKey: p.apiKey
    })
    expect(reply.status).toBe(200)
    return reply.body.data as Array<any>
  }

  /** Available and held of one currency, in major units. */
  const money = async (p: Partner, customerId: string, currency: string) => {
    const sandbox = await app().request("GET", `/sandbox/balances?customerId=${customerId}`, { apiKey: p.apiKey })
    expect(sandbox.status).toBe(200)
    const row = (sandbox.body.data[0]?.balances as Array<any> | undefined)?.find((b) => b.currency === currency)
    return { available: row?.available ?? 0, held: row?.held ?? 0 }
  }

  const summary = async (p: Partner, customerId: string) =>
    (await app().request("GET", `${base(customerId)}/verification`, { apiKey: p.apiKey })).body.data

  return { base, newPartner, upload, verifiedCustomer, address, tier3, status, group, control, advance, events, money, summary }
}
