import { execFile } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  createPartnerClient,
  normaliseBaseUrl,
  PartnerApiError,
  unwrap,
  verifySignature,
  verifyWebhook,
  WebhookVerificationError,
  type PartnerClient
} from "../client/src/index.js"
import { main as generateCommand, openApiDocument, schemaPath } from "../client/scripts/generate.js"
import { signatureHeader } from "../src/webhooks/Signing.js"
import { startTestApp, customerBody, type TestApp } from "./support/TestApp.js"
import { eventually, startReceiver, type Receiver } from "./support/WebhookReceiver.js"

/**
 * The partner client package (client/, docs/client.md): its generated types agree with the service's OpenAPI
 * document, it walks a partner's journey against a running sandbox, its webhook verifier accepts what the service
 * signs and nothing else, and `npm pack` makes a tarball with the built package. One server for the file.
 */
const exec = promisify(execFile)
const root = NodePath.resolve(import.meta.dirname, "..")
const clientDir = NodePath.join(root, "client")

let app: TestApp
let receiver: Receiver
let client: PartnerClient
let apiKey: string
let webhookSecret: string
/**
 * What `npm run client:generate` writes: the command's own entry (client/scripts/generate.ts `main`, arguments and
 * all) run in this process into a temp dir, started at once (it takes a second or two).
 */
let generated: Promise<string>
let tempDir: string

beforeAll(async () => {
  tempDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "client-generate-"))
  generated = generateCommand(["--out", tempDir]).then(() => NodeFs.readFileSync(NodePath.join(tempDir, "schema.d.ts"), "utf8"))
  generated.catch(() => undefined) // awaited (and reported) by its test
  ;[app, receiver] = await Promise.all([startTestApp(), startReceiver()])
  // The sandbox's own base URL (…/api/v1) works as well as the origin.
  const anonymous = createPartnerClient({ baseUrl: app.baseUrl })
  const partner = unwrap(await anonymous.POST("/api/v1/sandbox/partners", { body: { kybStatus: "APPROVED" } }))
  apiKey = partner.data.apiKey
  client = createPartnerClient({ baseUrl: new URL(app.baseUrl).origin, apiKey })
}, 120_000)

afterAll(async () => {
  await receiver?.close()
  await app?.close()
  if (tempDir !== undefined) NodeFs.rmSync(tempDir, { recursive: true, force: true })
})

describe("the generated client agrees with the OpenAPI document", () => {
  it("the generator's document is the one the sandbox serves at /api/v1/openapi.json", async () => {
    const served = await (await fetch(`${app.baseUrl}/openapi.json`)).json()
    expect(openApiDocument(), "client/scripts/generate.ts must read the document the service serves").toEqual(served)
  })

  it("generating the schema gives exactly the committed client/src/schema.d.ts", async () => {
    const fresh = await generated
    const committed = NodeFs.readFileSync(schemaPath, "utf8")
    if (fresh === committed) return
    const [freshLines, committedLines] = [fresh.split("\n"), committed.split("\n")]
    const line = freshLines.findIndex((text, index) => text !== committedLines[index])
    const at = line < 0 ? freshLines.length : line
    expect.fail(
      "client/src/schema.d.ts is not what the OpenAPI document generates: run `npm run client:generate` and commit the " +
        `result.\nFirst difference at line ${at + 1}:\n  committed: ${committedLines[at] ?? "(end of file)"}\n  generated: ` +
        `${freshLines[at] ?? "(end of file)"}`
    )
  }, 60_000)
})

describe("a partner's journey with the package's client", () => {
  const journey: { customerId?: string; withdrawalId?: string } = {}

  it("sets the webhook URL (a webhook.test is delivered during the PUT)", async () => {
    const { data } = unwrap(await client.PUT("/api/v1/partner/v1/webhook", { body: { url: receiver.url } }))
    expect(data.url).toBe(receiver.url)
    expect(data.secret).toMatch(/^whsec_/)
    expect(data.test.delivered).toBe(true)
    webhookSecret = data.secret
  })

  it("creates a customer, approves KYC Tier 1, funds the virtual account, buys USDT, withdraws, lists events", async () => {
    const created = unwrap(await client.POST("/api/v1/partner/v1/customers", {
      body: { ...customerBody({ firstName: "Package" }), country: "NG" }
    }))
    const customerId = created.data.id
    journey.customerId = customerId
    expect(created.data.firstName).toBe("Package")
    const path = { customerId }

    const tier1 = unwrap(await client.POST("/api/v1/partner/v1/customers/{customerId}/kyc/tier1", {
      params: { path },
      body: { bvn: "12345678901", nin: "10987654321" }
    }))
    expect(tier1.data.status).toBe("APPROVED")

    const account = unwrap(await client.GET("/api/v1/partner/v1/customers/{customerId}/virtual-account", { params: { path } }))
    expect(account.data.status).toBe("active")
    expect(account.data.accountNumber).toMatch(/^\d{10}$/)

    const credit = await client.POST("/api/v1/sandbox/customers/{customerId}/virtual-account/credit", {
      params: { path },
      body: { amount: 100000 }
    })
    expect(credit.response.status).toBe(201)
    expect(unwrap(credit).data.amount).toBe(100000)

    const quote = unwrap(await client.POST("/api/v1/partner/v1/customers/{customerId}/buy/quote", {
      params: { path },
      body: { amount: 10000, sourceCurrency: "NGN", destinationCurrency: "USDT" }
    }))
    expect(quote.data.destinationAmount).toBe(6.451612)
    const bought = unwrap(await client.POST("/api/v1/partner/v1/customers/{customerId}/buy/execute", {
      params: { path },
      body: { quoteId: quote.data.id }
    }))
    expect(bought.data.usdtCredited).toBe(6.451612)

    const bank = unwrap(await client.POST("/api/v1/partner/v1/customers/{customerId}/accounts", {
      params: { path },
      body: { bankCode: "058", accountNumber: "1234567896" }
    }))
    expect(bank.data.isDefault).toBe(true)

    const withdrawal = unwrap(await client.POST("/api/v1/partner/v1/customers/{customerId}/withdraw", {
      params: { path },
      body: { amount: 2000, reference: "package-wd-1" }
    }))
    expect(withdrawal.data).toMatchObject({ status: "PROCESSING", amount: "1980.00", fee: "20.00", totalDebited: "2000.00" })
    journey.withdrawalId = withdrawal.data.id

    const balance = unwrap(await client.GET("/api/v1/partner/v1/customers/{customerId}/balance", { params: { path } }))
    const balances = Object.fromEntries(balance.data.map((b) => [b.currency, b.balance]))
    expect(balances).toMatchObject({ NGN: 88000, USDT: 6.451612 })

    // The sandbox bank pays out after its delay on the service clock (60 s by default).
    unwrap(await client.POST("/api/v1/sandbox/clock/advance", { body: { seconds: 60 } }))
    const completed = await eventually(async () => {
      const { data } = unwrap(await client.GET("/api/v1/partner/v1/customers/{customerId}/withdrawals/{withdrawalId}", {
        params: { path: { customerId, withdrawalId: withdrawal.data.id } }
      }))
      return data.status === "PROCESSING" ? undefined : data
    }, "the withdrawal to settle")
    expect(completed.status).toBe("COMPLETED")

    const events = unwrap(await client.GET("/api/v1/sandbox/events", { params: { query: { customerId, limit: 100 } } }))
    const types = events.data.map((event) => event.type)
    for (const type of ["customer.registered", "purchase.completed", "withdrawal.submitted", "withdrawal.completed"]) {
      expect(types, type).toContain(type)
    }
    expect(events.meta.nextCursor).toBeNull()
  })

  it("a refusal: the typed error envelope, and unwrap's PartnerApiError", async () => {
    const customerId = "00000000-0000-4000-8000-000000000000"
    const result = await client.GET("/api/v1/partner/v1/customers/{customerId}", { params: { path: { customerId } } })
    expect(result.data).toBeUndefined()
    expect(result.response.status).toBe(403)
    expect(result.error).toMatchObject({ success: false, statusCode: 403, code: "CUSTOMER_FORBIDDEN", error: "CustomerForbidden" })
    expect(result.error?.path).toBe(`/api/v1/partner/v1/customers/${customerId}`)

    const thrown = await client.POST("/api/v1/partner/v1/customers/{customerId}/withdraw", {
      params: { path: { customerId: journey.customerId! } },
      body: { amount: 1 }
    }).then(unwrap).then(() => undefined, (error: unknown) => error)
    expect(thrown).toBeInstanceOf(PartnerApiError)
    if (!(thrown instanceof PartnerApiError)) return
    expect(thrown.statusCode).toBe(400)
    expect(thrown.code).toBe("WITHDRAWAL_BELOW_MINIMUM")
    expect(thrown.details).toMatchObject({ currency: "NGN" })
    expect(thrown.envelope?.message).toBe(thrown.message)

    const unknownKey = createPartnerClient({ baseUrl: app.baseUrl, apiKey: "sk_sandbox_unknown" })
    const unauthorized = await unknownKey.GET("/api/v1/partner/v1/customers", {})
    expect(unauthorized.error?.code).toBe("UNAUTHORIZED")
  })
})

describe("the package's webhook verifier", () => {
  it("verifies a delivery the service made to a local receiver; a tampered body does not verify", async () => {
    const delivery = await eventually(
      async () => receiver.received.find((d) => d.type === "withdrawal.completed"),
      "the withdrawal.completed delivery"
    )
    expect(delivery.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)

    const verified = verifySignature(delivery.rawBody, delivery.signature, webhookSecret)
    expect(verified).toEqual({ ok: true, timestamp: delivery.signedAt })
    expect(verifySignature(Buffer.from(delivery.rawBody), delivery.headers["x-service-signature"], webhookSecret).ok).toBe(true)
    const event = verifyWebhook<{ id: string; status: string }>(delivery.rawBody, delivery.signature, webhookSecret)
    expect(event.type).toBe("withdrawal.completed")
    expect(event.data.status).toBe("COMPLETED")

    const tampered = delivery.rawBody.replace('"COMPLETED"', '"FAILED"')
    expect(tampered).not.toBe(delivery.rawBody)
    expect(verifySignature(tampered, delivery.signature, webhookSecret)).toEqual({ ok: false, reason: "signature_mismatch" })
    expect(() => verifyWebhook(tampered, delivery.signature, webhookSecret)).toThrow(WebhookVerificationError)
    expect(verifySignature(delivery.rawBody, delivery.signature, "whsec_another")).toEqual({ ok: false, reason: "signature_mismatch" })
    // During a rotation either secret verifies.
    expect(verifySignature(delivery.rawBody, delivery.signature, ["whsec_another", webhookSecret]).ok).toBe(true)

    // The webhook.test of the PUT, delivered before its secret was known, verifies too.
    const test = receiver.received.find((d) => d.type === "webhook.test")
    expect(test && verifySignature(test.rawBody, test.signature, webhookSecret).ok).toBe(true)
  })

  it("checks the timestamp with the service's tolerance (300 s) and the header's form", () => {
    const secret = "whsec_test"
    const body = JSON.stringify({ id: "e1", type: "webhook.test", createdAt: "2026-01-01T00:00:00.000Z", data: {} })
    const signedAt = 1_800_000_000
    const header = signatureHeader(secret, signedAt, body)
    const at = (seconds: number) => ({ now: new Date(seconds * 1000) })
    expect(verifySignature(body, header, secret, at(signedAt + 300))).toEqual({ ok: true, timestamp: signedAt })
    expect(verifySignature(body, header, secret, at(signedAt - 300)).ok).toBe(true)
    expect(verifySignature(body, header, secret, at(signedAt + 301))).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" })
    expect(verifySignature(body, header, secret, { ...at(signedAt + 3600), toleranceSeconds: 3600 }).ok).toBe(true)
    expect(verifySignature(body, undefined, secret)).toEqual({ ok: false, reason: "missing_header" })
    expect(verifySignature(body, "t=abc,v1=zz", secret)).toEqual({ ok: false, reason: "malformed_header" })
    const other = signatureHeader("whsec_other", signedAt, body).split(",")[1]
    expect(verifySignature(body, `${header},${other}`, secret, at(signedAt)).ok).toBe(true)
  })
})

describe("the package", () => {
  it("is named and versioned after the service, with openapi-fetch pinned", () => {
    const rootPackage = JSON.parse(NodeFs.readFileSync(NodePath.join(root, "package.json"), "utf8"))
    const clientPackage = JSON.parse(NodeFs.readFileSync(NodePath.join(clientDir, "package.json"), "utf8"))
    expect(clientPackage.name).toBe(`@${rootPackage.name}/client`)
    expect(clientPackage.version).toBe(rootPackage.version)
    expect(clientPackage.type).toBe("module")
    expect(clientPackage.dependencies).toEqual({ "openapi-fetch": "0.17.0" })
    expect(rootPackage.devDependencies["openapi-fetch"]).toBe("0.17.0")
    expect(normaliseBaseUrl("http://127.0.0.1:8080/api/v1/")).toBe("http://127.0.0.1:8080")
    expect(normaliseBaseUrl("https://example.com/pmm")).toBe("https://example.com/pmm")
  })

  it("`npm pack --dry-run` builds it and packs the built client, its types, the verifier and the README", async () => {
    // No dist/ beforehand: what the report lists was built by the package's own prepack.
    NodeFs.rmSync(NodePath.join(clientDir, "dist"), { recursive: true, force: true })
    const { stdout } = await exec("npm", ["pack", "--dry-run", "--json"], { cwd: clientDir, maxBuffer: 16 * 1024 * 1024 })
    // The JSON report is the last thing on stdout (the prepack build may print before it).
    const report = JSON.parse(stdout.slice(stdout.search(/^\[/m))) as Array<{ name: string; files: Array<{ path: string }> }>
    const files = report[0]!.files.map((file) => file.path)
    expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/webhooks.js", "dist/webhooks.d.ts", "dist/schema.d.ts", "README.md", "package.json"]))
    expect(files.filter((file) => file.startsWith("src/") || file.startsWith("scripts/") || file.includes("node_modules"))).toEqual([])

    // The built package works: its client reaches the sandbox and its verifier agrees with the service's signer.
    const built = await import(NodePath.join(clientDir, "dist", "index.js")) as typeof import("../client/src/index.js")
    const health = built.unwrap(await built.createPartnerClient({ baseUrl: app.baseUrl }).GET("/api/v1/health", {}))
    expect(health).toMatchObject({ success: true, data: { status: "ok", mode: "sandbox" } })
    const body = "{\"id\":\"e\"}"
    const now = Math.floor(Date.now() / 1000)
    expect(built.verifySignature(body, signatureHeader("whsec_x", now, body), "whsec_x").ok).toBe(true)
  }, 60_000)
})
