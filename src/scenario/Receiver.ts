import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { wallNowMs } from "./WallClock.js"

/**
 * The built-in webhook receiver: one loopback HTTP server per run, one inbox per scenario (`/hooks/<token>`).
 * It verifies every delivery like the example receiver (docs/contract.md "Authentication" 8) (HMAC-SHA256 of `<t>.<rawBody>` with the
 * secret returned by `PUT /webhook`, compared in constant time, `t` within 5 minutes of real time — deliveries are
 * signed at the wall-clock time of the attempt, whatever the sandbox clock says) and
 * answers 401 to a bad signature; otherwise it answers what the scenario told it to: a status, or `hang`.
 */
export type Answer = number | "hang"

export interface ReceivedWebhook {
  readonly eventId: string | undefined
  readonly type: string | undefined
  readonly body: unknown
  readonly rawBody: string
  readonly signature: string | undefined
  /** Real time when it arrived, for the 5-minute check. */
  readonly receivedAtMs: number
  /** False until checked: a delivery that arrives before the secret is known (the `webhook.test` sent during PUT) is checked once it is. */
  verified: boolean
  signatureValid: boolean
  signatureProblem: string | undefined
  readonly answered: Answer
}

export interface Inbox {
  readonly url: string
  secret: string | undefined
  respond: Answer
  readonly received: Array<ReceivedWebhook>
}

const toleranceMs = 5 * 60_000

export const verifySignature = (header: string | undefined, rawBody: string, secret: string | undefined, nowMs: number): string | undefined => {
  if (secret === undefined) return "no secret registered yet (no webhook step with register: true)"
  if (header === undefined) return "missing X-Service-Signature header"
  const parts = Object.fromEntries(header.split(",").map((part) => {
    const at = part.indexOf("=")
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()]
  }))
  const t = Number(parts.t)
  const v1 = parts.v1 ?? ""
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return `malformed signature header "${header}"`
  const expected = Crypto.createHmac("sha256", secret).update(`${t}.${rawBody}`).digest()
  if (!Crypto.timingSafeEqual(expected, Buffer.from(v1, "hex"))) return "v1 is not the HMAC-SHA256 of <t>.<body> with the secret"
  if (Math.abs(t * 1000 - nowMs) > toleranceMs) return `t=${t} is more than 5 minutes from real time`
  return undefined
}

/**
 * Records the secret returned by PUT or rotate, and checks the deliveries that arrived before it was known
 * (the service sends `webhook.test` while the PUT is still in flight).
 */
export const setSecret = (inbox: Inbox, secret: string): void => {
  inbox.secret = secret
  for (const hook of inbox.received) {
    if (hook.verified) continue
    const problem = verifySignature(hook.signature, hook.rawBody, secret, hook.receivedAtMs)
    hook.verified = true
    hook.signatureValid = problem === undefined
    hook.signatureProblem = problem
  }
}

export class WebhookReceiver {
  private readonly inboxes = new Map<string, Inbox>()
  private readonly hanging = new Set<Http.ServerResponse>()
  private counter = 0

  private constructor(private readonly server: Http.Server, private readonly base: string) {}

  static start(host = "127.0.0.1"): Promise<WebhookReceiver> {
    return new Promise((resolve, reject) => {
      let receiver: WebhookReceiver | undefined
      const server = Http.createServer((request, response) => receiver!.handle(request, response))
      server.once("error", reject)
      server.listen(0, host, () => {
        const { port } = server.address() as AddressInfo
        receiver = new WebhookReceiver(server, `http://${host}:${port}`)
        resolve(receiver)
      })
    })
  }

  /** A fresh inbox for one scenario; answers 200 until told otherwise. */
  open(): Inbox {
    const token = `s${++this.counter}`
    const inbox: Inbox = { url: `${this.base}/hooks/${token}`, secret: undefined, respond: 200, received: [] }
    this.inboxes.set(token, inbox)
    return inbox
  }

  release(inbox: Inbox): void {
    for (const [token, candidate] of this.inboxes) if (candidate === inbox) this.inboxes.delete(token)
  }

  private handle(request: Http.IncomingMessage, response: Http.ServerResponse): void {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const inbox = this.inboxes.get((request.url ?? "").replace(/^\/hooks\//, ""))
      if (inbox === undefined || request.method !== "POST") {
        response.writeHead(404).end()
        return
      }
      const raw = Buffer.concat(chunks).toString("utf8")
      let body: unknown = raw
      try {
        body = JSON.parse(raw)
      } catch {
        // kept as text: the assertion shows what arrived
      }
      const header = request.headers["x-service-signature"]
      const signature = Array.isArray(header) ? header[0] : header
      const receivedAtMs = wallNowMs()
      const verified = inbox.secret !== undefined
      const problem = verified ? verifySignature(signature, raw, inbox.secret, receivedAtMs) : undefined
      const answered: Answer = problem !== undefined ? 401 : inbox.respond
      const eventId = request.headers["x-service-event-id"]
      inbox.received.push({
        eventId: Array.isArray(eventId) ? eventId[0] : eventId,
        type: typeof body === "object" && body !== null ? (body as { type?: string }).type : undefined,
        body,
        rawBody: raw,
        signature,
        receivedAtMs,
        verified,
        signatureValid: problem === undefined,
        signatureProblem: problem,
        answered
      })
      if (answered === "hang") {
        this.hanging.add(response)
        response.on("close", () => this.hanging.delete(response))
        return
      }
      response.writeHead(answered, { "content-type": "application/json" }).end(JSON.stringify({ received: answered < 300 }))
    })
  }

  close(): Promise<void> {
    for (const response of this.hanging) response.destroy()
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
