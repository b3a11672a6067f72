import * as Crypto from "node:crypto"
import { describe, expect, it } from "vitest"
import { signatureHeader } from "../src/webhooks/Signing.js"
import { verifySignature } from "../src/webhooks/verifySignature.js"

const secret = "whsec_test_secret"
const body = JSON.stringify({ id: "4b1e3c9e-8a5f-4c39-9a43-7b0e5b1a2f10", type: "webhook.test", createdAt: "2026-01-01T00:00:00.000Z", data: {} })
const t = 1_767_225_600
const at = (seconds: number) => new Date(seconds * 1000)

describe("verifySignature", () => {
  it("accepts the service's signature, as string or bytes", () => {
    const header = signatureHeader(secret, t, body)
    expect(header).toBe(`t=${t},v1=${Crypto.createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`)
    expect(verifySignature(body, header, secret, { now: at(t) })).toEqual({ ok: true, timestamp: t })
    expect(verifySignature(Buffer.from(body), header, secret, { now: at(t + 299) })).toEqual({ ok: true, timestamp: t })
  })

  it("rejects another secret, a changed body, a missing or malformed header", () => {
    const header = signatureHeader(secret, t, body)
    expect(verifySignature(body, header, "whsec_other", { now: at(t) })).toEqual({ ok: false, reason: "signature_mismatch" })
    expect(verifySignature(body + " ", header, secret, { now: at(t) })).toEqual({ ok: false, reason: "signature_mismatch" })
    expect(verifySignature(body, undefined, secret, { now: at(t) })).toEqual({ ok: false, reason: "missing_header" })
    expect(verifySignature(body, `t=${t}`, secret, { now: at(t) })).toEqual({ ok: false, reason: "malformed_header" })
    expect(verifySignature(body, "v1=abc", secret, { now: at(t) })).toEqual({ ok: false, reason: "malformed_header" })
  })

  it("rejects timestamps further than the tolerance (300 s by default) either way", () => {
    const header = signatureHeader(secret, t, body)
    expect(verifySignature(body, header, secret, { now: at(t + 301) })).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" })
    expect(verifySignature(body, header, secret, { now: at(t - 301) })).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" })
    expect(verifySignature(body, header, secret, { now: at(t + 3600), toleranceSeconds: 7200 }).ok).toBe(true)
    // A re-signed timestamp without the secret does not pass.
    const forged = header.replace(`t=${t}`, `t=${t + 1000}`)
    expect(verifySignature(body, forged, secret, { now: at(t + 1000) })).toEqual({ ok: false, reason: "signature_mismatch" })
  })

  it("accepts any of several v1 values", () => {
    const good = signatureHeader(secret, t, body).split(",v1=")[1]
    const header = `t=${t},v1=${"0".repeat(64)},v1=${good}`
    expect(verifySignature(body, header, secret, { now: at(t) }).ok).toBe(true)
  })
})
