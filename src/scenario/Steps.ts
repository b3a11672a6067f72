import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { FormPart, HttpRequest, HttpResponse } from "./Client.js"
import { call, control, type RunContext, StepFailure } from "./Context.js"
import { parseDurationMs } from "./Duration.js"
import { InterpolationError, lookup } from "./Interpolate.js"
import { describeStep, type Expectation, type Multipart, type RequestSpec, type Step } from "./Language.js"
import { match, type Mismatch, show } from "./Matchers.js"
import * as Observations from "./Observations.js"
import { setSecret } from "./Receiver.js"

/** Runs steps in order; the first failure stops the scenario and the remaining steps are reported as skipped. */
export interface StepResult {
  readonly label: string
  readonly file: string
  readonly line: number
  readonly status: "passed" | "failed" | "skipped"
  readonly durationMs: number
  readonly failure?: StepFailure | undefined
  readonly children: ReadonlyArray<StepResult>
}

type Of<K extends Step["kind"]> = Extract<Step, { kind: K }>["spec"]

const contentTypes: Readonly<Record<string, string>> = {
  ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".pdf": "application/pdf", ".txt": "text/plain", ".json": "application/json"
}

/** The parts of a `multipart:` mapping (already interpolated; file paths made absolute by the loader). */
export const toFormParts = (multipart: Multipart): Array<FormPart> =>
  Object.entries(multipart).map(([name, value]): FormPart => {
    if (typeof value !== "object") return { name, value: String(value) }
    let data: Uint8Array
    if (value.path !== undefined) {
      try {
        data = NodeFs.readFileSync(value.path)
      } catch (error) {
        throw new StepFailure(`multipart ${name}: cannot read ${value.path}: ${(error as Error).message}`)
      }
    } else if (value.base64 !== undefined) data = Buffer.from(value.base64.replace(/\s+/g, ""), "base64")
    else data = Buffer.from(value.text ?? "", "utf8")
    const filename = value.filename ?? (value.path !== undefined ? NodePath.basename(value.path) : name)
    const contentType = value.contentType ?? contentTypes[NodePath.extname(filename).toLowerCase()] ?? "application/octet-stream"
    return { name, data, filename, contentType }
  })

/** A full URL on the service (`url:`) as a path under the base URL; another host or prefix fails the step. */
const pathOfUrl = (context: RunContext, url: string): string => {
  if (typeof url !== "string" || !url.startsWith(`${context.baseUrl}/`)) {
    throw new StepFailure(`url ${JSON.stringify(url)} is not on the service under test (${context.baseUrl}/...)`)
  }
  return url.slice(context.baseUrl.length)
}

const toRequest = (context: RunContext, spec: RequestSpec): { request: HttpRequest; auth: "partner" | "none" } => {
  if (typeof spec === "string") {
    const [method, path] = spec.split(" ") as [string, string]
    return { request: { method, path: context.scope.interpolateString(path) }, auth: "partner" }
  }
  const resolved = context.scope.interpolate(spec) as typeof spec
  return {
    request: {
      method: resolved.method,
      path: resolved.path ?? pathOfUrl(context, resolved.url!),
      query: resolved.query,
      body: resolved.body,
      multipart: resolved.multipart === undefined ? undefined : toFormParts(resolved.multipart),
      headers: resolved.headers
    },
    auth: resolved.auth ?? "partner"
  }
}

const success = { $gte: 200, $lt: 300 }

/** Differences between a response and an (interpolated) expectation; no expectation means "any 2xx". */
export const checkResponse = (expect: Expectation | undefined, response: HttpResponse): Array<Mismatch> => {
  const out = expect?.status !== undefined
    ? match(expect.status, response.status, { exact: false }, "status")
    : match(success, response.status, { exact: false }, "status").map((m) => ({ ...m, message: `expected a 2xx status but got ${response.status}` }))
  if (expect?.body !== undefined) out.push(...match(expect.body, response.body, { exact: expect.exact ?? false }, "body"))
  for (const [name, expected] of Object.entries(expect?.headers ?? {})) {
    out.push(...match(expected, response.headers[name.toLowerCase()], { exact: false }, `headers.${name}`))
  }
  return out
}

/** Stores values read from `source` by path (`data.id`); `$status` is the response status. */
const save = (context: RunContext, saves: Readonly<Record<string, string>> | undefined, source: unknown, status?: number) => {
  for (const [name, path] of Object.entries(saves ?? {})) {
    const value = path === "$status" ? status : lookup(source, path)
    if (value === undefined) {
      throw new StepFailure(`save ${name}: nothing at ${path}`, { mismatches: [{ path, message: `absent in ${show(source, 400)}` }] })
    }
    context.scope.set(name, value)
  }
}

const exchange = async (context: RunContext, spec: RequestSpec, expect: Expectation | undefined) => {
  const { request, auth } = toRequest(context, spec)
  const wanted = context.scope.interpolate(expect) as Expectation | undefined
  const response = await call(context, request, auth)
  const mismatches = checkResponse(wanted, response)
  if (mismatches.length > 0) throw new StepFailure(`${request.method} ${request.path}: the response differs`, { request, response, mismatches })
  return response
}

const runRequest = async (context: RunContext, spec: Of<"request">) => {
  const response = await exchange(context, spec.request, spec.expect)
  save(context, spec.save, response.body, response.status)
}

const runAct = async (context: RunContext, spec: Of<"act">) => {
  const act = typeof spec.act === "string" ? { path: spec.act } : spec.act
  const path = `/sandbox/${act.path.replace(/^\/+/, "").replace(/^sandbox\//, "")}`
  // control routes take a JSON object: an action without options sends {}
  const response = await exchange(context, { method: "POST", path, body: act.body ?? {} }, spec.expect)
  save(context, spec.save, response.body, response.status)
}

/** The largest advance the control API takes in one call (400 days). */
const advanceChunkSeconds = 400 * 86_400

const runAdvance = async (context: RunContext, spec: Of<"advance">) => {
  let seconds = Math.ceil((parseDurationMs(spec.advance) as number) / 1000)
  while (seconds > 0) {
    const chunk = Math.min(seconds, advanceChunkSeconds)
    await control(context, { method: "POST", path: "/sandbox/clock/advance", body: { seconds: chunk } })
    seconds -= chunk
  }
}

const runWebhook = async (context: RunContext, spec: Of<"webhook">) => {
  if (spec.webhook.respond !== undefined) context.inbox.respond = spec.webhook.respond
  if (spec.webhook.register === true || spec.webhook.rotate === true) {
    const request = spec.webhook.register === true
      ? { method: "PUT", path: "/partner/v1/webhook", body: { url: context.inbox.url } }
      : { method: "POST", path: "/partner/v1/webhook/rotate-secret" }
    const response = await call(context, request)
    const data = (response.body as { data?: { secret?: unknown; test?: unknown } } | undefined)?.data
    if (response.status !== 200 || typeof data?.secret !== "string") {
      throw new StepFailure(`${spec.webhook.register === true ? "registering the webhook receiver" : "rotating the webhook secret"} failed`, { request, response })
    }
    setSecret(context.inbox, data.secret)
    context.scope.set("webhookSecret", data.secret)
    context.scope.set("webhookTest", data.test)
  }
}

const runParallel = async (context: RunContext, spec: Of<"parallel">) => {
  const { copies, request } = spec.parallel
  const expect = spec.parallel.expect
  const scopes = Array.from({ length: copies }, (_, i) => context.scope.child({ i: i + 1 }))
  const requests = scopes.map((scope) => toRequest({ ...context, scope }, request))
  const responses = await Promise.all(requests.map(({ request: r, auth }) => call(context, r, auth)))
  const counts = new Map<string, number>()
  // Statuses in ascending order, whichever copy finished first: the report reads the same on every run.
  for (const status of responses.map((response) => response.status).sort((a, b) => a - b)) {
    counts.set(String(status), (counts.get(String(status)) ?? 0) + 1)
  }
  const outcome = [...counts].map(([status, n]) => `${status} ×${n}`).join(", ")
  const mismatches: Array<Mismatch> = []
  if (expect?.statuses !== undefined) {
    const statuses = context.scope.interpolate(expect.statuses) as Record<string, unknown>
    for (const [status, expected] of Object.entries(statuses)) mismatches.push(...match(expected, counts.get(status) ?? 0, { exact: false }, `statuses.${status}`))
    for (const [status, n] of counts) if (!(status in statuses)) mismatches.push({ path: `statuses.${status}`, message: `unexpected status ${status} ×${n}` })
  }
  const every = expect?.every ?? (expect?.statuses === undefined ? {} : undefined)
  if (every !== undefined) {
    responses.forEach((response, i) => {
      const wanted = scopes[i]!.interpolate(every) as Expectation
      mismatches.push(...checkResponse(wanted, response).map((m) => ({ ...m, path: `copy ${i + 1}: ${m.path}` })))
    })
  }
  if (expect?.distinct !== undefined) {
    const values = new Set(responses.map((response) => lookup(response.body, expect.distinct!.path)).filter((v) => v !== undefined).map((v) => JSON.stringify(v)))
    mismatches.push(...match(context.scope.interpolate(expect.distinct.count), values.size, { exact: false }, `distinct ${expect.distinct.path}`))
  }
  if (mismatches.length > 0) {
    throw new StepFailure(`${copies} concurrent requests: outcomes ${outcome}`, { request: requests[0]?.request, mismatches })
  }
}

const runChildren = async (context: RunContext, step: Step, extra: Record<string, unknown>, prefix: string) => {
  const scope = context.scope.child(extra)
  const { results, failed } = await runSteps({ ...context, scope }, step.children, prefix)
  context.scope.absorb(scope, Object.keys(extra))
  return { results, failed }
}

const runOne = async (context: RunContext, step: Step): Promise<ReadonlyArray<StepResult>> => {
  switch (step.kind) {
    case "request": await runRequest(context, step.spec); return []
    case "act": await runAct(context, step.spec); return []
    case "advance": await runAdvance(context, step.spec); return []
    case "rail": {
      const rail = context.scope.interpolateString(step.spec.rail)
      await control(context, { method: "PUT", path: `/sandbox/rails/${rail}`, body: context.scope.interpolate(step.spec.policy) })
      return []
    }
    case "webhook": await runWebhook(context, step.spec); return []
    case "waitFor": save(context, step.spec.save, await Observations.waitFor(context, step.spec)); return []
    case "expectEvents": await Observations.expectEvents(context, step.spec); return []
    case "expectNoEvent": await Observations.expectNoEvent(context, step.spec); return []
    case "expectWebhooks": await Observations.expectWebhooks(context, step.spec); return []
    case "expectDelivery": save(context, step.spec.save, await Observations.expectDelivery(context, step.spec)); return []
    case "expectBalances": await Observations.expectBalances(context, step.spec); return []
    case "parallel": await runParallel(context, step.spec); return []
    case "set": {
      for (const [name, value] of Object.entries(step.spec.set)) context.scope.set(name, context.scope.interpolate(value))
      return []
    }
    case "include": {
      const extra = context.scope.interpolate(step.spec.with ?? {}) as Record<string, unknown>
      const { results, failed } = await runChildren(context, step, extra, "")
      if (failed) throw new NestedFailure(results)
      return results
    }
    case "repeat": {
      const all: Array<StepResult> = []
      for (let i = 1; i <= step.spec.repeat.times; i++) {
        const { results, failed } = await runChildren(context, step, { [step.spec.repeat.as ?? "i"]: i }, `[${i}] `)
        all.push(...results)
        if (failed) throw new NestedFailure(all)
      }
      return all
    }
  }
}

class NestedFailure extends Error {
  constructor(readonly results: ReadonlyArray<StepResult>) {
    super("a step inside failed")
  }
}

/** The label with the names known so far filled in (left as written where one is not known yet). */
const labelOf = (context: RunContext, label: string) => {
  try {
    return context.scope.interpolateString(label)
  } catch {
    return label
  }
}

export const runSteps = async (context: RunContext, steps: ReadonlyArray<Step>, prefix = ""): Promise<{ results: Array<StepResult>; failed: boolean }> => {
  const results: Array<StepResult> = []
  let failed = false
  for (const step of steps) {
    const raw = { label: prefix + describeStep(step), file: step.file, line: step.line }
    if (failed) {
      results.push({ ...raw, status: "skipped", durationMs: 0, children: [] })
      continue
    }
    const base = { ...raw, label: labelOf(context, raw.label) }
    const started = performance.now()
    try {
      const children = await runOne(context, step)
      results.push({ ...base, status: "passed", durationMs: performance.now() - started, children })
    } catch (error) {
      failed = true
      const durationMs = performance.now() - started
      if (error instanceof NestedFailure) {
        results.push({ ...base, status: "failed", durationMs, children: error.results })
      } else {
        const failure = error instanceof StepFailure
          ? error
          : new StepFailure(error instanceof InterpolationError ? error.message : `unexpected error: ${(error as Error).stack ?? String(error)}`)
        results.push({ ...base, status: "failed", durationMs, failure, children: [] })
      }
    }
  }
  return { results, failed }
}
