import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

/** One request as the receiver saw it. */
export interface ReceivedDelivery {
  readonly eventId: string
  readonly type: string
  readonly rawBody: string
  readonly signature: string
  readonly headers: NodeHttp.IncomingHttpHeaders
  /** The `t=` of the signature: real time, in unix seconds, when the attempt was signed (never the sandbox clock). */
  readonly signedAt: number
}

/** What to answer: a status code, or "hang" to never answer. */
export type Answer = number | "hang"

/** A real HTTP receiver on loopback that records every request and answers what `respond` says. */
export const startReceiver = async (respond: (delivery: ReceivedDelivery) => Answer = () => 200) => {
  const received: Array<ReceivedDelivery> = []
  const hanging = new Set<NodeHttp.ServerResponse>()
  let responder = respond
  const server = NodeHttp.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8")
      let parsed: { id?: string; type?: string } = {}
      try {
        parsed = JSON.parse(rawBody)
      } catch {
        parsed = {}
      }
      const signature = String(req.headers["x-service-signature"] ?? "")
      const delivery: ReceivedDelivery = {
        eventId: parsed.id ?? "",
        type: parsed.type ?? "",
        rawBody,
        signature,
        headers: req.headers,
        signedAt: Number(/t=(\d+)/.exec(signature)?.[1] ?? NaN)
      }
      received.push(delivery)
      const answer = responder(delivery)
      if (answer === "hang") {
        hanging.add(res)
        res.on("close", () => hanging.delete(res))
        return
      }
      res.writeHead(answer, { "content-type": "text/plain" }).end(String(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    ofEvent: (eventId: string) => received.filter((d) => d.eventId === eventId),
    setResponder: (next: (delivery: ReceivedDelivery) => Answer) => {
      responder = next
    },
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** Polls until `check` returns a value (not undefined), for work the service does in the background. */
export const eventually = async <T>(check: () => Promise<T | undefined>, what: string, limitMs = 20_000): Promise<T> => {
  const deadline = performance.now() + limitMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
