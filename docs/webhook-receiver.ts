/**
 * Example webhook receiver (Node 20, no dependencies besides the service's receiver kit).
 *
 *   WEBHOOK_SECRET=whsec_... PORT=4000 npx tsx docs/webhook-receiver.ts
 *
 * Then `PUT /api/v1/partner/v1/webhook { "url": "http://127.0.0.1:4000/webhooks" }` (sandbox mode allows http and
 * loopback) and put the returned secret in WEBHOOK_SECRET. During a rotation, set WEBHOOK_SECRET_NEXT too: the
 * receiver accepts either secret until you drop the old one.
 *
 * What it does, per docs/contract.md "Events and webhooks" and "Authentication" 8:
 *  1. reads the raw body bytes (the signature covers them exactly; never re-serialise parsed JSON);
 *  2. answers 401 to a missing, malformed, stale (more than 5 minutes away) or wrong signature;
 *  3. dedupes on the event id: a retry or replay of an event already handled answers 200 and does nothing;
 *  4. ignores event types it does not know (answers 200, so they are not retried);
 *  5. answers quickly (well within the 10 s time-out) and does the work after answering.
 * Answering 410 retires a delivery for good; any other non-2xx is retried on the schedule.
 */
import * as NodeHttp from "node:http"
import { verifySignature } from "../src/webhooks/verifySignature.js"

const secrets = [process.env.WEBHOOK_SECRET, process.env.WEBHOOK_SECRET_NEXT].filter((s): s is string => !!s)
const port = Number(process.env.PORT ?? 4000)
const bodyBytesMax = 1024 * 1024

/** Event ids already handled. Use your database (a unique index on the id) in a real receiver. */
const handled = new Set<string>()

interface Envelope {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly data: Record<string, unknown>
}

const handlers: Record<string, (event: Envelope) => Promise<void>> = {
  "customer.registered": async (event) => console.log("customer registered", event.data.customerId),
  "withdrawal.completed": async (event) => console.log("withdrawal completed", event.data.reference),
  "webhook.test": async (event) => console.log("webhook test from partner", event.data.partnerId)
}

const server = NodeHttp.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/webhooks") return res.writeHead(404).end()
  const chunks: Array<Buffer> = []
  let size = 0
  req.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size > bodyBytesMax) req.destroy()
    else chunks.push(chunk)
  })
  req.on("end", () => {
    const raw = Buffer.concat(chunks)
    const header = req.headers["x-service-signature"]
    const valid = secrets.some((secret) => verifySignature(raw, header, secret).ok)
    if (!valid) return res.writeHead(401).end()
    const event = JSON.parse(raw.toString("utf8")) as Envelope
    if (handled.has(event.id)) return res.writeHead(200).end()
    const handler = handlers[event.type]
    if (handler === undefined) return res.writeHead(200).end() // unknown type: new types may appear at any time
    handled.add(event.id)
    res.writeHead(200).end()
    handler(event).catch((error) => {
      // The event was acknowledged; keep it in your own retry queue rather than relying on a redelivery.
      handled.delete(event.id)
      console.error("handling failed", event.id, error)
    })
  })
})

server.listen(port, "127.0.0.1", () => console.log(`webhook receiver on http://127.0.0.1:${port}/webhooks`))
