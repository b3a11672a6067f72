import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import { checkLedger, type LedgerReport } from "../../src/ledger/LedgerCheck.js"
import type { TestApp } from "../support/TestApp.js"
import { makeChecker, makeSender, minimalOpenApiCheck, type FuzzResponse, type OpenApiCheck, type Problem } from "./check.js"
import { makeGenerator, Rng, type FuzzRequest } from "./generate.js"
import { loadOperations, type OpenApiDoc, type Operation } from "./operations.js"
import { refreshConsole, refreshWorld, seedWorld, withConsoleTokens } from "./seed.js"
import { diffSnapshots, makeSnapshotter, type Snapshot } from "./state.js"

/**
 * The fuzz engine: seeds real data, then sends requests over HTTP to every operation of the OpenAPI document —
 * first one sweep (every operation × every mutation family), then a seeded random mix of valid-ish requests
 * (Arbitrary from the contract's Schemas) and hostile mutations — checking every answer and the state around every
 * batch. It never stops at the first failure: failures are grouped (kind, method, route template, status) with
 * their first example, a count and the input classes that produced them.
 */

export interface FuzzOptions {
  readonly requests: number
  readonly seed: number
  /** Share of the random mix that is valid-ish (phase a); the rest is hostile. */
  readonly validShare?: number
  /** Hostile requests checked together between two snapshots. */
  readonly batchSize?: number
  /** Long form: ~1 MB strings, 5 MB uploads, 500k-deep nesting, headers over the server's limit. */
  readonly long?: boolean
  readonly log?: (line: string) => void
  /** Progress every N requests (0: never). */
  readonly progressEvery?: number
}

export interface Example {
  readonly request: string
  readonly response: string
  readonly klass: string
}

export interface DistinctFailure {
  readonly kind: string
  readonly method: string
  readonly route: string
  readonly status: number
  count: number
  readonly details: Map<string, number>
  readonly classes: Map<string, number>
  readonly example: Example
}

export interface StateChange {
  readonly request: string
  readonly klass: string
  readonly status: number
  readonly diff: ReadonlyArray<string>
  readonly reproduced: boolean
}

export interface FuzzReport {
  readonly seed: number
  readonly requests: number
  /** Requests in the sweep (every operation × every mutation family); the rest of `requests` is the random mix. */
  readonly sweep: number
  readonly replays: number
  readonly byClass: Record<string, number>
  readonly byPhase: Record<string, number>
  /** Statuses per input class (catalogue label), for --verbose. */
  readonly byInput: ReadonlyMap<string, ReadonlyMap<string, number>>
  readonly fiveXX: number
  readonly stateChanges: ReadonlyArray<StateChange>
  readonly ledger: LedgerReport
  readonly failures: ReadonlyArray<DistinctFailure>
  readonly unmatchedOperations: ReadonlyArray<string>
  readonly operationsCovered: number
  readonly operationsTotal: number
  readonly openApiChecker: string
  readonly durationMs: number
  readonly ok: boolean
}

const excerpt = (text: string, max = 240) => {
  const clean = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  return clean.length > max ? `${clean.slice(0, max)}… (${text.length} chars)` : clean
}

export const describeRequest = (req: FuzzRequest) => {
  const headers = Object.entries(req.headers)
    .filter(([k]) => k !== "x-api-key" || true)
    .map(([k, v]) => `${k}: ${excerpt(typeof v === "string" ? (k === "x-api-key" ? redactKey(v) : v) : v.map((x) => (k === "x-api-key" ? redactKey(x) : x)).join(" | "), 60)}`)
  const body = req.body === undefined ? "" : ` body(${req.body.length} B): ${excerpt(Buffer.from(req.body.subarray(0, 400)).toString("utf8"), 160)}`
  return `${req.method} ${excerpt(req.path + req.query, 200)} [${headers.join("; ")}]${body}`
}

const redactKey = (key: string) => (key.startsWith("sk_") && key.length > 20 ? `${key.slice(0, 14)}…` : key)

const describeResponse = (res: FuzzResponse) =>
  res.error !== undefined ? `no answer: ${res.error}` : `${res.status} ${res.streamed ? "(event stream)" : excerpt(res.body.toString("utf8"), 300)}`

/**
 * The OpenAPI check: test/support/OpenApiConformance.ts when it is there (`makeConformance(document).problems(...)`:
 * status documented, Content-Type documented, body valid against the documented schema, 404/405 for requests that
 * reach no operation), else the minimal check (the status is described for the operation). The module is loaded at
 * run time so that this suite does not break when it is missing or changes shape.
 */
const loadOpenApiCheck = async (doc: OpenApiDoc): Promise<{ name: string; check: OpenApiCheck; full: boolean }> => {
  const here = NodePath.dirname(NodeUrl.fileURLToPath(import.meta.url))
  const file = NodePath.join(here, "..", "support", "OpenApiConformance.ts")
  if (NodeFs.existsSync(file)) {
    try {
      const mod: any = await import(NodeUrl.pathToFileURL(file).href)
      if (typeof mod.makeConformance === "function") {
        const conformance = mod.makeConformance(doc)
        if (typeof conformance.problems === "function") {
          return {
            name: "test/support/OpenApiConformance.ts (status, content type and body schema)",
            full: true,
            check: (_op, method, status, res, path) => {
              const contentType = res.headers["content-type"]
              const text = res.body.toString("utf8")
              let body: unknown = undefined
              if (text !== "") {
                try {
                  body = JSON.parse(text)
                } catch {
                  body = text
                }
              }
              const found: ReadonlyArray<string> = conformance.problems({ method, path, status, contentType: contentType ?? null, body })
              return found.length > 0 ? found.map((p) => p.replace(/^\S+ \S+ \d+: /, "")).join("; ") : undefined
            }
          }
        }
      }
    } catch (error) {
      console.warn(`fuzz: test/support/OpenApiConformance.ts could not be used (${String(error).slice(0, 200)}); using the minimal check`)
    }
  }
  return { name: "minimal (status described for the operation)", check: minimalOpenApiCheck, full: false }
}

export const runFuzz = async (app: TestApp, options: FuzzOptions): Promise<FuzzReport> => {
  const started = Date.now()
  const log = options.log ?? (() => {})
  const batchSize = options.batchSize ?? 40
  const validShare = options.validShare ?? 0.2
  const rng = new Rng(options.seed)

  const docReply = await fetch(`${app.baseUrl}/openapi.json`)
  const doc = (await docReply.json()) as OpenApiDoc
  const { operations, unmatched } = loadOperations(doc)
  // The partners' webhook endpoint: answers 200 to everything, so deliveries end DELIVERED at the first attempt.
  const receiver = NodeHttp.createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"))
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/fuzz-hook`
  const world = await seedWorld(app, webhookUrl)
  const generator = makeGenerator(doc, operations, world, { long: options.long === true })
  const openApi = await loadOpenApiCheck(doc)
  const { check, locate } = makeChecker(operations, openApi.check, openApi.full)
  const sender = makeSender(app.baseUrl)
  const snapshotRaw = await makeSnapshotter(app)
  const snapshot = async () => {
    const t0 = Date.now()
    const s = await snapshotRaw()
    timing.snapshot += Date.now() - t0
    return s
  }

  const failures = new Map<string, DistinctFailure>()
  const stateChanges: Array<StateChange> = []
  const byClass: Record<string, number> = {}
  const byPhase: Record<string, number> = {}
  const byInput = new Map<string, Map<string, number>>()
  const covered = new Set<string>()
  let sent = 0
  let replays = 0
  let fiveXX = 0

  const record = (req: FuzzRequest, res: FuzzResponse, problems: ReadonlyArray<Problem>) => {
    const { template } = locate(req)
    for (const problem of problems) {
      const key = `${problem.kind}|${req.method}|${template}|${res.status}`
      let failure = failures.get(key)
      if (failure === undefined) {
        failure = {
          kind: problem.kind,
          method: req.method,
          route: template,
          status: res.status,
          count: 0,
          details: new Map(),
          classes: new Map(),
          example: { request: describeRequest(req), response: describeResponse(res), klass: req.klass }
        }
        failures.set(key, failure)
      }
      failure.count++
      failure.details.set(problem.detail, (failure.details.get(problem.detail) ?? 0) + 1)
      failure.classes.set(req.klass, (failure.classes.get(req.klass) ?? 0) + 1)
    }
  }

  const timing = { send: 0, snapshot: 0, slowest: [] as Array<[number, string]> }
  /** A clock advance may have expired the console tokens: signed in again before the next console request. */
  let consoleStale = false
  const exchange = async (given: FuzzRequest, replay = false) => {
    const authorization = given.headers.authorization
    if (/\/sandbox\/(console\/)?clock\/advance/.test(given.path)) consoleStale = true
    const req: FuzzRequest = typeof authorization === "string"
      ? { ...given, headers: { ...given.headers, authorization: withConsoleTokens(world, authorization) } }
      : given
    const t0 = Date.now()
    const res = await sender.send(req)
    timing.send += Date.now() - t0
    if (Date.now() - t0 > 300) timing.slowest.push([Date.now() - t0, `${req.method} ${req.opId} ${req.klass}`])
    if (replay) replays++
    else {
      sent++
      const cls = res.error !== undefined ? "no answer" : `${String(res.status)[0]}xx`
      byClass[cls] = (byClass[cls] ?? 0) + 1
      byPhase[req.phase] = (byPhase[req.phase] ?? 0) + 1
      if (res.status >= 500) fiveXX++
      const label = req.phase === "valid" ? "valid-ish" : req.klass.includes("=") ? req.klass.slice(req.klass.indexOf("=") + 1) : req.klass
      const statuses = byInput.get(label) ?? new Map<string, number>()
      statuses.set(cls === "no answer" ? cls : String(res.status), (statuses.get(cls === "no answer" ? cls : String(res.status)) ?? 0) + 1)
      byInput.set(label, statuses)
      const { op } = locate(req)
      if (op !== undefined) covered.add(op.id)
      record(req, res, check(req, res))
      if (options.progressEvery && sent % options.progressEvery === 0) {
        log(`  … ${sent} requests, ${fiveXX} 5xx, ${failures.size} distinct failures, ${Math.round((Date.now() - started) / 1000)} s`)
      }
    }
    return res
  }

  const accepted = (res: FuzzResponse) => res.status >= 200 && res.status < 300

  /**
   * The state after an accepted request. Background work it may start (webhook attempts, jobs) only touches the
   * tables that are counted but not hashed, or runs on the frozen service clock; a change that still lands later
   * is replayed by `flush` and reported as "not reproduced alone" rather than blamed on a request.
   */
  const settled = (): Promise<Snapshot> => snapshot()

  let baseline = await settled()
  let batch: Array<{ req: FuzzRequest; res: FuzzResponse }> = []

  const stateChange = (req: FuzzRequest, status: number, diff: ReadonlyArray<string>, reproduced: boolean) => {
    stateChanges.push({ request: describeRequest(req), klass: req.klass, status, diff, reproduced })
    const res: FuzzResponse = { status, headers: {}, body: Buffer.from(diff.slice(0, 6).join("; ")), streamed: false, ms: 0 }
    record(req, res, [{ kind: reproduced ? "state-changed-by-rejected-request" : "state-changed-in-batch(not reproduced alone)", detail: diff.slice(0, 3).join("; ") }])
  }

  /** Compares the state after a batch with the baseline; a change that no accepted request explains is replayed alone. */
  const flush = async () => {
    if (batch.length === 0) return
    const current = batch
    batch = []
    const anyAccepted = current.some((e) => accepted(e.res))
    const after = anyAccepted ? await settled() : await snapshot()
    const diff = diffSnapshots(baseline, after)
    baseline = after
    if (diff.length === 0) return
    if (current.length === 1 && anyAccepted) return // an accepted request may change state
    const suspects = current.filter((e) => !accepted(e.res))
    if (suspects.length === 0) return
    let found = false
    for (const suspect of suspects) {
      const before = await snapshot()
      const res = await exchange(suspect.req, true)
      const after1 = accepted(res) ? await settled() : await snapshot()
      const d = diffSnapshots(before, after1)
      if (d.length > 0 && !accepted(res)) {
        stateChange(suspect.req, res.status, d, true)
        found = true
      }
    }
    if (!found && !anyAccepted) stateChange(current[0]!.req, current[0]!.res.status, diff, false)
    baseline = await snapshot()
  }

  const sendOne = async (req: FuzzRequest) => {
    const authorization = req.headers.authorization
    if (consoleStale && typeof authorization === "string" && authorization.includes("@@console")) {
      // Signed in again outside any request's attribution: the state it writes is the new baseline.
      consoleStale = false
      await flush()
      await refreshConsole(app, world)
      baseline = await settled()
    }
    if (req.mustReject) {
      const res = await exchange(req)
      batch.push({ req, res })
      if (batch.length >= batchSize || accepted(res)) await flush()
    } else {
      // May be accepted: checked on its own, so an accepted request never hides a rejected one's change.
      await flush()
      const res = await exchange(req)
      batch.push({ req, res })
      await flush()
    }
  }

  log(`fuzz: seed ${options.seed}, ${operations.length} operations, OpenAPI check: ${openApi.name}`)
  if (unmatched.length > 0) log(`fuzz: document/contract mismatch: ${unmatched.join("; ")}`)

  // 1. The sweep: every operation valid-ish, twice per mutation family, and with the essential key cases (none,
  //    a partner whose KYB is pending, another partner's).
  const sweep: Array<FuzzRequest> = []
  for (const op of operations) {
    sweep.push(generator.validish(op, rng))
    for (const family of generator.familyNames) {
      for (let round = 0; round < 2; round++) {
        const req = generator.hostile(op, rng, family)
        if (req !== undefined) sweep.push(req)
      }
    }
    for (const force of ["auth:missing", "auth:kyb-pending-partner", "auth:foreign-partner"]) {
      const req = generator.hostile(op, rng, "auth", force)
      if (req !== undefined) sweep.push(req)
    }
  }
  const refreshEvery = 400
  const refresh = async () => {
    await flush()
    await refreshWorld(app, world)
    baseline = await settled()
  }
  let sinceRefresh = 0
  for (const req of sweep.slice(0, options.requests)) {
    await sendOne(req)
    if (++sinceRefresh >= refreshEvery) {
      sinceRefresh = 0
      await refresh()
    }
  }

  // 2. The random mix. Operations that take a body have more to break: they are picked more often.
  const weighted = operations.flatMap((op) =>
    Array<Operation>(op.bodyTypes[0] === "multipart/form-data" ? 4 : op.bodyTypes.length > 0 ? 2 : 1).fill(op)
  )
  while (sent < options.requests) {
    const op = rng.pick(weighted)
    const req = rng.chance(validShare) ? generator.validish(op, rng) : generator.hostile(op, rng)
    if (req !== undefined) await sendOne(req)
    if (++sinceRefresh >= refreshEvery) {
      sinceRefresh = 0
      await refresh()
    }
  }
  await flush()
  sender.close()
  receiver.closeAllConnections()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
  if (process.env.FUZZ_TIMING) {
    log(`timing: send ${timing.send} ms, snapshot ${timing.snapshot} ms`)
    for (const [ms, what] of timing.slowest.sort((x, y) => y[0] - x[0]).slice(0, 15)) log(`  slow ${ms} ms ${what}`)
  }

  const ledger = await app.run(checkLedger)
  const list = [...failures.values()].sort((x, y) => x.kind.localeCompare(y.kind) || x.route.localeCompare(y.route) || x.method.localeCompare(y.method) || x.status - y.status)
  return {
    seed: options.seed,
    requests: sent,
    sweep: sweep.length,
    replays,
    byClass,
    byPhase,
    byInput,
    fiveXX,
    stateChanges,
    ledger,
    failures: list,
    unmatchedOperations: unmatched,
    operationsCovered: covered.size,
    operationsTotal: operations.length,
    openApiChecker: openApi.name,
    durationMs: Date.now() - started,
    ok: list.length === 0 && ledger.violations.length === 0 && unmatched.length === 0
  }
}

const top = (map: ReadonlyMap<string, number>, n: number) =>
  [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k} ×${v}`).join(", ") + (map.size > n ? `, … ${map.size - n} more` : "")

export const formatReport = (report: FuzzReport, options: { readonly verbose?: boolean } = {}): string => {
  const lines: Array<string> = []
  if (options.verbose === true) {
    lines.push("Statuses by input class:")
    for (const [label, statuses] of [...report.byInput.entries()].sort(([x], [y]) => x.localeCompare(y))) {
      lines.push(`  ${label.padEnd(44)} ${[...statuses.entries()].sort().map(([s, n]) => `${s}×${n}`).join(" ")}`)
    }
  }
  lines.push(`Fuzz seed: ${report.seed}`)
  lines.push(`Requests sent: ${report.requests} (the sweep ${report.sweep}, +${report.replays} replays to attribute state changes) in ${(report.durationMs / 1000).toFixed(1)} s`)
  lines.push(`By status class: ${Object.entries(report.byClass).sort().map(([k, v]) => `${k} ${v}`).join(", ")}`)
  lines.push(`By phase: ${Object.entries(report.byPhase).map(([k, v]) => `${k === "valid" ? "valid-ish (Arbitrary)" : "hostile"} ${v}`).join(", ")}`)
  lines.push(`Operations reached: ${report.operationsCovered}/${report.operationsTotal}; OpenAPI check: ${report.openApiChecker}`)
  lines.push(`5xx: ${report.fiveXX} (0 expected)`)
  const reproduced = report.stateChanges.filter((s) => s.reproduced).length
  lines.push(`State changes from rejected requests: ${report.stateChanges.length} (${reproduced} reproduced alone)`)
  for (const change of report.stateChanges.slice(0, 10)) {
    lines.push(`  - ${change.status} ${change.klass}: ${change.request}`)
    lines.push(`      ${change.diff.slice(0, 5).join("; ")}`)
  }
  lines.push(`Ledger check: ${report.ledger.violations.length === 0 ? "no violations" : `${report.ledger.violations.length} violations`} (${report.ledger.transactions} transactions, ${report.ledger.entries} entries, ${report.ledger.accounts} accounts)`)
  for (const violation of report.ledger.violations.slice(0, 10)) lines.push(`  - ${violation}`)
  if (report.unmatchedOperations.length > 0) {
    lines.push(`OpenAPI document vs contract: ${report.unmatchedOperations.length} mismatches`)
    for (const u of report.unmatchedOperations) lines.push(`  - ${u}`)
  }
  lines.push(`Distinct failures: ${report.failures.length}`)
  // The same cause shows on many routes: a summary by (kind, status, input class) first, then every failure.
  const causes = new Map<string, { routes: Set<string>; count: number; why: string }>()
  for (const f of report.failures) {
    for (const [klass, n] of f.classes) {
      const input = klass.includes("=") ? `${klass.slice(0, klass.indexOf("=")).replace(/^valid:.*/, "valid-ish")}=${klass.slice(klass.indexOf("=") + 1)}` : klass
      const key = `[${f.kind}] ${f.status || "no answer"} <- ${input.replace(/^body\.[^=]+=/, "body.<field>=")}`
      const entry = causes.get(key) ?? { routes: new Set<string>(), count: 0, why: [...f.details.keys()][0] ?? "" }
      entry.routes.add(`${f.method} ${f.route}`)
      entry.count += n
      causes.set(key, entry)
    }
  }
  if (causes.size > 0) {
    lines.push("By cause (kind, status <- input class: routes):")
    for (const [key, entry] of [...causes.entries()].sort((x, y) => x[0].localeCompare(y[0]))) {
      const routes = [...entry.routes]
      lines.push(`  ${key}  ×${entry.count} on ${routes.length} route(s): ${routes.slice(0, 4).join(", ")}${routes.length > 4 ? ", …" : ""}`)
      lines.push(`      e.g. ${excerpt(entry.why, 200)}`)
    }
    lines.push("Every distinct failure (kind, method, route template, status), with its first example:")
  }
  for (const f of report.failures) {
    lines.push(`  [${f.kind}] ${f.method} ${f.route} -> ${f.status || "no answer"}  (×${f.count})`)
    lines.push(`      why: ${top(f.details, 3)}`)
    lines.push(`      inputs: ${top(f.classes, 6)}`)
    lines.push(`      first: ${f.example.request}`)
    lines.push(`      got:   ${f.example.response}`)
  }
  lines.push(report.ok ? "RESULT: PASS" : "RESULT: FAIL")
  return lines.join("\n")
}
