import { type ChildProcess, spawn } from "node:child_process"
import * as NodeHttp from "node:http"
import * as NodeNet from "node:net"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifySignature } from "../src/webhooks/verifySignature.js"
import { listenCommand, processEnv } from "./support/ServerProcess.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, type ReceivedDelivery, startReceiver } from "./support/WebhookReceiver.js"

/**
 * `npm run listen` end to end (docs/sandbox-listen.md): the real service on a loopback port (in this process, on the
 * wall clock as `npm start` runs it), real receivers on loopback that verify every signature, and listen as a
 * separate process (src/cli/listen.ts, what `npm run listen` runs, from the test run's bundle: ServerProcess
 * `listenCommand`) talking to the service over HTTP and SSE only.
 */

const root = NodePath.resolve(__dirname, "..")

let app: TestApp
let origin: string
const runs: Array<ListenRun> = []
const receivers: Array<Receiver> = []
const proxies: Array<Proxy> = []

beforeAll(async () => {
  app = await startTestApp({ wallClock: true })
  origin = new URL(app.baseUrl).origin
})

afterAll(async () => {
  for (const run of runs) {
    if (running(run)) {
      try {
        process.kill(-run.child.pid!, "SIGKILL")
      } catch {
        // already gone
      }
    }
    await run.exited
  }
  for (const proxy of proxies) await proxy.close()
  for (const receiver of receivers) await receiver.close()
  await app?.close()
})

// --- the listen process -------------------------------------------------------------------------------------------

interface ListenRun {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly lines: () => ReadonlyArray<string>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** `listen ...args` with a clean environment (no HOST, PORT, DATA_DIR, PMM_API_KEY of the runner). */
const spawnListen = (args: ReadonlyArray<string>): ListenRun => {
  // detached: its own process group, so that the clean-up's SIGKILL reaches every process it started
  const [command, commandArgs] = listenCommand(args)
  const child = spawn(command, commandArgs, { cwd: root, env: processEnv({}), stdio: ["ignore", "pipe", "pipe"], detached: true })
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal }))
  )
  const run: ListenRun = {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () => stdout.split("\n").filter((line) => line !== ""),
    exited
  }
  runs.push(run)
  return run
}

const running = (run: ListenRun) => run.child.exitCode === null && run.child.signalCode === null

/** `eventually`, failing with what `state` shows then (listen's output, what the receivers got). */
const until = async <T>(what: string, check: () => Promise<T | undefined>, state: () => string, limitMs = 20_000): Promise<T> => {
  try {
    return await eventually(check, what, limitMs)
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${state()}`)
  }
}

const describeRun = (run: ListenRun, ...receiving: ReadonlyArray<Receiver>) =>
  `listen stdout:\n${run.stdout()}\nlisten stderr:\n${run.stderr()}\n` +
  receiving.map((r, i) => `receiver ${i}: ${r.received.map((d) => `${d.type} ${d.eventId}`).join(", ")}`).join("\n")

/** Waits for a stdout line matching `pattern`; fails at once if listen exits. */
const waitForLine = (run: ListenRun, what: string, pattern: RegExp, limitMs = 30_000) =>
  until(what, async () => {
    const line = run.lines().find((l) => pattern.test(l))
    if (line !== undefined) return line
    if (!running(run)) throw new Error(`listen exited (${run.child.exitCode}) before ${what}`)
    return undefined
  }, () => describeRun(run), limitMs)

const waitForReady = (run: ListenRun) => waitForLine(run, "the Ready line", /^Ready! /)

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const time = "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}"

// --- the service, as a partner sees it ----------------------------------------------------------------------------

interface ListedEvent {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly customerId: string | null
  readonly data: Record<string, unknown>
}

/** Every event of the partner (GET /sandbox/events), oldest first. */
const allEvents = async (apiKey: string): Promise<ReadonlyArray<ListedEvent>> => {
  const items: Array<ListedEvent> = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? "?limit=100" : `?limit=100&cursor=${encodeURIComponent(cursor)}`
    const reply = await app.request("GET", `/sandbox/events${query}`, { apiKey })
    expect(reply.status).toBe(200)
    items.push(...reply.body.data)
    cursor = reply.body.meta.nextCursor
  } while (cursor !== null)
  return items.reverse()
}

const ok = async (method: string, path: string, apiKey: string, body?: unknown) => {
  const reply = await app.request(method, path, { apiKey, ...(body === undefined ? {} : { body }) })
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body.data
}

const newCustomer = async (apiKey: string): Promise<string> => (await ok("POST", "/partner/v1/customers", apiKey, customerBody())).id

/** Verifies (tier 1) and funds a customer: kyc.status_updated and funding.received. */
const activate = async (apiKey: string, customerId: string) => {
  await ok("POST", `/partner/v1/customers/${customerId}/kyc/tier1`, apiKey, { bvn: "12345678901", nin: "10987654321" })
  await ok("GET", `/partner/v1/customers/${customerId}/virtual-account`, apiKey)
  await ok("POST", `/sandbox/customers/${customerId}/virtual-account/credit`, apiKey, { amount: 5000 })
}

/** A customer registered, verified and funded: customer.registered, kyc.* and funding.* events. */
const busyCustomer = async (apiKey: string) => {
  const customerId = await newCustomer(apiKey)
  await activate(apiKey, customerId)
  return customerId
}

/** The body of a real delivery of `event`: the envelope `{ id, type, createdAt, data }`. */
const envelopeOf = (event: ListedEvent) =>
  JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data })

const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const started = await startReceiver(...args)
  receivers.push(started)
  return started
}

/** The deliveries of `received` whose signature verifies with `secret` (on the receiver's clock, 5 minutes). */
const verified = (received: ReadonlyArray<ReceivedDelivery>, secret: string) =>
  received.filter((delivery) => verifySignature(delivery.rawBody, delivery.signature, secret).ok)

// --- a TCP proxy that can cut the stream --------------------------------------------------------------------------

interface Proxy {
  readonly origin: () => string
  /** Closes every connection and stops accepting new ones (connections are refused). */
  readonly cut: () => Promise<void>
  /** Accepts again, on the same port. */
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

const startProxy = async (target: URL): Promise<Proxy> => {
  const sockets = new Set<NodeNet.Socket>()
  let server: NodeNet.Server | undefined
  let port = 0
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const next = NodeNet.createServer((client) => {
        const upstream = NodeNet.connect(Number(target.port), target.hostname)
        sockets.add(client)
        sockets.add(upstream)
        const done = () => {
          client.destroy()
          upstream.destroy()
          sockets.delete(client)
          sockets.delete(upstream)
        }
        client.on("error", done).on("close", done)
        upstream.on("error", done).on("close", done)
        client.pipe(upstream)
        upstream.pipe(client)
      })
      next.once("error", reject)
      next.listen(port, "127.0.0.1", () => {
        port = (next.address() as NodeNet.AddressInfo).port
        server = next
        resolve()
      })
    })
  const shut = async () => {
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    const closing = server
    server = undefined
    if (closing !== undefined) await new Promise<void>((resolve) => closing.close(() => resolve()))
  }
  await open()
  const proxy: Proxy = { origin: () => `http://127.0.0.1:${port}`, cut: shut, restore: open, close: shut }
  proxies.push(proxy)
  return proxy
}

/** A loopback port nothing listens on: bound, then released. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

// --- tests --------------------------------------------------------------------------------------------------------

describe("listen forwards the live event stream", () => {
  it("POSTs every new event, in order, with the body and headers of a real delivery, signed with --secret; SIGTERM exits 0", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    // The partner's real endpoint, so that each forwarded request can be compared with the real delivery.
    const real = await receiver()
    const secret = (await ok("PUT", "/partner/v1/webhook", apiKey, { url: real.url })).secret as string
    expect(secret).toMatch(/^whsec_/)
    const before = new Set((await allEvents(apiKey)).map((event) => event.id)) // webhook.test

    const local = await receiver()
    const run = spawnListen(["--url", origin, "--api-key", apiKey, "--forward-to", local.url, "--secret", secret])
    const ready = await waitForReady(run)
    expect(ready).toBe(`Ready! Forwarding events of partner ${partnerId} to ${local.url}; signing secret ${secret}`)

    const customerId = await busyCustomer(apiKey)
    await newCustomer(apiKey)

    // Every event recorded after listen connected arrives at the local receiver and at the real endpoint.
    let latest: ReadonlyArray<ListedEvent> = []
    const expected = await until("every event forwarded and delivered", async () => {
      const events = (await allEvents(apiKey)).filter((event) => !before.has(event.id))
      latest = events
      const done = events.length >= 4 &&
        events.every((event) => local.ofEvent(event.id).length > 0 && real.ofEvent(event.id).length > 0) &&
        events.every((event) => run.lines().some((line) => line.includes(`<-- [200] POST ${local.url} [${event.id}]`)))
      return done ? events : undefined
    }, () => `events: ${latest.map((e) => `${e.type} ${e.id}`).join(", ")}\n${describeRun(run, local, real)}`)
    const types = new Set(expected.map((event) => event.type))
    expect(types).toContain("customer.registered")
    expect([...types].some((type) => type.startsWith("kyc."))).toBe(true)
    expect(expected.some((event) => event.customerId === customerId)).toBe(true)

    // Once each, in the order of the event log.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const forwarded = local.received.filter((delivery) => !before.has(delivery.eventId))
    expect(forwarded.map((delivery) => delivery.eventId)).toEqual(expected.map((event) => event.id))

    for (const event of expected) {
      const [mine] = local.ofEvent(event.id)
      const [theirs] = real.ofEvent(event.id)
      // The exact body GET /sandbox/events shows (id, type, createdAt, data), byte for byte the real delivery's.
      expect(mine!.rawBody).toBe(envelopeOf(event))
      expect(mine!.rawBody).toBe(theirs!.rawBody)
      expect(JSON.parse(mine!.rawBody)).toEqual({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data })
      // Signed as a real delivery: the receiver kit accepts it with the endpoint's secret.
      expect(verifySignature(mine!.rawBody, mine!.signature, secret)).toMatchObject({ ok: true })
      expect(verifySignature(theirs!.rawBody, theirs!.signature, secret)).toMatchObject({ ok: true })
      expect(Math.abs(mine!.signedAt - theirs!.signedAt)).toBeLessThanOrEqual(5)
      // The same headers, with the same values (but the signature's time and the receiving host).
      const headers = (delivery: ReceivedDelivery) => {
        const { host: _host, "x-service-signature": _signature, ...rest } = delivery.headers
        return rest
      }
      expect(headers(mine!)).toEqual(headers(theirs!))
      expect(mine!.headers["x-service-event-id"]).toBe(event.id)
      expect(mine!.headers["content-type"]).toBe("application/json")
      expect(mine!.headers.traceparent).toBeUndefined()

      // One line when it arrived, one for the answer (its status and the first line of its body), in that order.
      const arrived = run.lines().findIndex((line) => new RegExp(`^${time} --> ${escape(event.type)} \\[${event.id}\\]$`).test(line))
      const answered = run.lines().findIndex((line) =>
        new RegExp(`^${time} <-- \\[200\\] POST ${escape(local.url)} \\[${event.id}\\] in \\d+ms: 200$`).test(line))
      expect(arrived, `the --> line of ${event.type} ${event.id}:\n${run.stdout()}`).toBeGreaterThan(0)
      expect(answered).toBeGreaterThan(arrived)
    }
    // Nothing else on stdout: the Ready line, then one line per event and one per answer.
    expect(run.lines()).toHaveLength(1 + 2 * expected.length)

    run.child.kill("SIGTERM")
    expect(await run.exited).toEqual({ code: 0, signal: null })
    expect(run.stderr()).toBe("")
  }, 60_000)

  it("--events keeps only the listed types and families, signs with the secret it printed, and never retries", async () => {
    const { apiKey } = await app.newPartner()
    // A kyc event is answered 500: listen prints the status and goes on (no retry).
    const local = await receiver((delivery) => (delivery.type.startsWith("kyc.") ? 500 : 200))
    const run = spawnListen(["--url", origin, "--api-key", apiKey, "--forward-to", local.url, "--events", "customer.registered,kyc.*"])
    const ready = await waitForReady(run)
    expect(ready).toMatch(/; signing secret whsec_[A-Za-z0-9_-]{43} \(only events customer\.registered,kyc\.\*\)$/)
    const secret = /signing secret (whsec_[A-Za-z0-9_-]+)/.exec(ready)![1]!

    await busyCustomer(apiKey)
    const wanted = (type: string) => type === "customer.registered" || type.startsWith("kyc.")
    const events = await until("the matching events forwarded", async () => {
      const all = await allEvents(apiKey)
      const matching = all.filter((event) => wanted(event.type))
      const done = matching.length >= 2 && all.some((event) => !wanted(event.type)) &&
        matching.every((event) => run.lines().some((line) => line.includes(`] POST ${local.url} [${event.id}]`)))
      return done ? all : undefined
    }, () => describeRun(run, local))
    await new Promise((resolve) => setTimeout(resolve, 500))

    const matching = events.filter((event) => wanted(event.type))
    expect(local.received.map((delivery) => delivery.eventId)).toEqual(matching.map((event) => event.id))
    // Verified with the secret printed on the Ready line.
    expect(verified(local.received, secret)).toHaveLength(matching.length)
    for (const event of matching) expect(local.ofEvent(event.id)[0]!.rawBody).toBe(envelopeOf(event))
    for (const event of events.filter((e) => !wanted(e.type))) expect(run.stdout()).not.toContain(event.id)
    // The 500 is printed as the answer; the event is not sent again.
    const kyc = matching.filter((event) => event.type.startsWith("kyc."))
    expect(kyc.length).toBeGreaterThan(0)
    for (const event of kyc) {
      expect(local.ofEvent(event.id)).toHaveLength(1)
      expect(run.lines()).toContainEqual(expect.stringMatching(new RegExp(`^${time} <-- \\[500\\] POST ${escape(local.url)} \\[${event.id}\\] in \\d+ms: 500$`)))
    }

    run.child.kill("SIGINT")
    expect(await run.exited).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("--customer keeps one customer's events (with --events, a family filtered by listen itself)", async () => {
    const { apiKey } = await app.newPartner()
    const [mine, other] = [await newCustomer(apiKey), await newCustomer(apiKey)]
    const local = await receiver()
    const run = spawnListen(["--url", origin, "--api-key", apiKey, "--forward-to", local.url, "--customer", mine, "--events", "kyc.*,funding.*"])
    expect(await waitForReady(run)).toMatch(new RegExp(`\\(only events kyc\\.\\*,funding\\.\\*, customer ${mine}\\)$`))

    await activate(apiKey, other)
    await activate(apiKey, mine)
    await newCustomer(apiKey)
    const wanted = await until("the customer's events forwarded", async () => {
      const events = (await allEvents(apiKey)).filter((event) =>
        event.customerId === mine && (event.type.startsWith("kyc.") || event.type.startsWith("funding.")))
      return events.length >= 2 && events.every((event) => local.ofEvent(event.id).length === 1) ? events : undefined
    }, () => describeRun(run, local))
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(local.received.map((delivery) => delivery.eventId)).toEqual(wanted.map((event) => event.id))
    expect(new Set(local.received.map((delivery) => delivery.type))).toEqual(new Set(["kyc.status_updated", "funding.received"]))

    run.child.kill("SIGTERM")
    expect(await run.exited).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("resumes after a dropped stream with Last-Event-ID: the events recorded meanwhile arrive once, in order (--print-json)", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const before = new Set((await allEvents(apiKey)).map((event) => event.id)) // partner.approved
    const proxy = await startProxy(new URL(origin))
    const local = await receiver()
    const secret = "whsec_listen_test_resume"
    const run = spawnListen(["--url", proxy.origin(), "--api-key", apiKey, "--forward-to", local.url, "--secret", secret, "--print-json"])
    const records = () => run.lines().map((line) => JSON.parse(line) as Record<string, any>)
    await waitForLine(run, "the ready record", /"kind":"ready"/)
    expect(records()[0]).toEqual({
      kind: "ready",
      partnerId,
      partnerName: expect.any(String),
      url: proxy.origin(),
      forwardTo: local.url,
      secret,
      events: null,
      customerId: null
    })

    const first = await newCustomer(apiKey)
    await until("the first event forwarded", async () => (verified(local.received, secret).length === 1 ? true : undefined), () => describeRun(run, local))

    // The stream drops; events are recorded while listen cannot reach the service.
    await proxy.cut()
    await until("the drop reported", async () => (run.stderr().includes("listen: event stream dropped") ? true : undefined), () => describeRun(run, local))
    const second = await newCustomer(apiKey)
    const third = await newCustomer(apiKey)
    await new Promise((resolve) => setTimeout(resolve, 700)) // a reconnect attempt or two is refused
    await proxy.restore()

    let latest: ReadonlyArray<ListedEvent> = []
    const expected = await until("the missed events forwarded after the reconnect", async () => {
      const events = (await allEvents(apiKey)).filter((event) => !before.has(event.id))
      latest = events
      return events.length === 3 && local.received.length === 3 ? events : undefined
    }, () => `events: ${latest.map((e) => `${e.type} ${e.id}`).join(", ")}\n${describeRun(run, local)}`)
    expect(expected.map((event) => event.customerId)).toEqual([first, second, third])
    expect(local.received.map((delivery) => delivery.eventId)).toEqual(expected.map((event) => event.id))
    expect(verified(local.received, secret)).toHaveLength(3)
    for (const event of expected) expect(local.ofEvent(event.id)[0]!.rawBody).toBe(envelopeOf(event))
    expect(run.stderr()).toMatch(/^listen: event stream dropped \([^\n]*\); reconnecting\n(listen: [^\n]*\n)*listen: reconnected; resuming after stream id \d+\n$/)

    // NDJSON: the ready record, then an event record and an answer record per event.
    await until("three answer records", async () => (records().filter((r) => r.kind === "answer").length === 3 ? true : undefined), () => describeRun(run, local))
    const all = records()
    expect(all).toHaveLength(7)
    for (const event of expected) {
      expect(all).toContainEqual({
        kind: "event",
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        seq: expect.stringMatching(/^\d+$/),
        event: { id: event.id, type: event.type, createdAt: event.createdAt, customerId: event.customerId, data: event.data }
      })
      expect(all).toContainEqual({
        kind: "answer",
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        eventId: event.id,
        type: event.type,
        url: local.url,
        status: 200,
        error: null,
        body: "200",
        ms: expect.any(Number)
      })
    }

    run.child.kill("SIGTERM")
    expect(await run.exited).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("prints the receiver's status and the first line of its answer, cut and cleaned, in lines and in --print-json", async () => {
    const { apiKey } = await app.newPartner()
    // A receiver still on another secret: the first delivery on each path is refused with a two-line JSON body; the
    // next ones are answered 200 with one long line holding an escape sequence.
    const seen = new Map<string, number>()
    const refusal = "{\"error\":\"invalid signature\",\"hint\":\"check WEBHOOK_SECRET\"}"
    const long = `accepted \x1b[31m${"x".repeat(300)}`
    const server = NodeHttp.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        const count = (seen.get(req.url!) ?? 0) + 1
        seen.set(req.url!, count)
        if (count === 1) res.writeHead(401, { "content-type": "application/json" }).end(`\n${refusal}\nsecond line\n`)
        else res.writeHead(200, { "content-type": "text/plain" }).end(long)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const base = `http://127.0.0.1:${(server.address() as NodeNet.AddressInfo).port}`
      const lines = spawnListen(["--url", origin, "--api-key", apiKey, "--forward-to", `${base}/text`, "--events", "customer.registered"])
      const json = spawnListen(["--url", origin, "--api-key", apiKey, "--forward-to", `${base}/json`, "--events", "customer.registered", "--print-json"])
      await waitForReady(lines)
      await waitForLine(json, "the ready record", /"kind":"ready"/)
      const [first, second] = [await newCustomer(apiKey), await newCustomer(apiKey)]
      const [one, two] = (await allEvents(apiKey)).filter((event) => event.type === "customer.registered" && [first, second].includes(event.customerId!))
      // the first non-empty line, as sent
      await waitForLine(lines, "the 401 answer", new RegExp(`^${time} <-- \\[401\\] POST ${escape(base)}/text \\[${one!.id}\\] in \\d+ms: ${escape(refusal)}$`))
      // a long line: control characters as spaces, cut after 120 characters ending in …
      const cut = `accepted  [31m${"x".repeat(120 - "accepted  [31m".length - 1)}…`
      const answered = await waitForLine(lines, "the 200 answer", new RegExp(`\\[${two!.id}\\] in \\d+ms: `))
      expect(answered).toMatch(new RegExp(`^${time} <-- \\[200\\] POST ${escape(base)}/text \\[${two!.id}\\] in \\d+ms: ${escape(cut)}$`))
      expect(lines.stdout()).not.toContain("\x1b")

      await waitForLine(json, "the second answer record", new RegExp(`"kind":"answer".*"eventId":"${two!.id}"`))
      const answers = json.lines().map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.kind === "answer")
      expect(answers.map(({ body, error, eventId, status }) => ({ body, error, eventId, status }))).toEqual([
        { eventId: one!.id, status: 401, error: null, body: refusal },
        { eventId: two!.id, status: 200, error: null, body: cut }
      ])
      for (const run of [lines, json]) {
        run.child.kill("SIGTERM")
        expect(await run.exited).toEqual({ code: 0, signal: null })
      }
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }, 60_000)

  it("a receiver that is not listening: the answer line names the connection error and listen goes on", async () => {
    const { apiKey } = await app.newPartner()
    const port = await closedPort()
    const target = `http://127.0.0.1:${port}/webhooks`
    const run = spawnListen(["--url", origin, "--api-key", apiKey, "--forward-to", target])
    await waitForReady(run)
    const first = await newCustomer(apiKey)
    const [registered] = (await allEvents(apiKey)).filter((event) => event.customerId === first)
    await waitForLine(run, "the failed answer", new RegExp(`^${time} <-- \\[ERR\\] POST ${escape(target)} \\[${registered!.id}\\] after \\d+ms: connection failed: ECONNREFUSED$`))
    expect(running(run)).toBe(true)
    run.child.kill("SIGTERM")
    expect(await run.exited).toEqual({ code: 0, signal: null })
  }, 60_000)
})

describe("listen refuses to start", () => {
  it("an unreachable sandbox: exit 1 and one line on stderr", async () => {
    const port = await closedPort()
    const run = spawnListen(["--url", `http://127.0.0.1:${port}`, "--api-key", "sk_sandbox_whatever", "--forward-to", "http://127.0.0.1:9/hooks"])
    expect(await run.exited).toEqual({ code: 1, signal: null })
    expect(run.stdout()).toBe("")
    expect(run.stderr()).toMatch(new RegExp(`^listen: cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED[^\\n]*\\n$`))
  }, 30_000)

  it("a wrong API key: exit 1 and one line on stderr naming the 401", async () => {
    const run = spawnListen(["--url", origin, "--api-key", "sk_sandbox_not_a_real_key", "--forward-to", "http://127.0.0.1:9/hooks"])
    expect(await run.exited).toEqual({ code: 1, signal: null })
    expect(run.stdout()).toBe("")
    expect(run.stderr()).toBe(`listen: the API key was refused by ${origin} (401 UNAUTHORIZED)\n`)
  }, 30_000)

  it("a production service (no sandbox API): exit 1 and one line on stderr", async () => {
    const production = await startTestApp({ config: { mode: "production" } })
    try {
      const productionOrigin = new URL(production.baseUrl).origin
      const run = spawnListen(["--url", productionOrigin, "--api-key", "sk_live_whatever", "--forward-to", "http://127.0.0.1:9/hooks"])
      const exit = await run.exited
      expect(run.stderr()).toBe(`listen: ${productionOrigin} has no sandbox API (a production service?)\n`)
      expect(exit).toEqual({ code: 1, signal: null })
    } finally {
      await production.close()
    }
  }, 60_000)

  it("a usage error (no --forward-to, a bad --events): exit 2 and one line on stderr", async () => {
    const missing = spawnListen(["--url", origin, "--api-key", "sk_sandbox_whatever"])
    const badEvents = spawnListen(["--url", origin, "--api-key", "sk_sandbox_whatever", "--forward-to", "http://127.0.0.1:9/", "--events", "Customer"])
    expect(await missing.exited).toEqual({ code: 2, signal: null })
    expect(missing.stderr()).toMatch(/^listen: --forward-to is required[^\n]*\n$/)
    expect(await badEvents.exited).toEqual({ code: 2, signal: null })
    expect(badEvents.stderr()).toMatch(/^listen: --events: "Customer" is not an event type[^\n]*\n$/)
    expect(missing.stdout() + badEvents.stdout()).toBe("")
  }, 30_000)
})
