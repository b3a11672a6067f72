import { Either, ParseResult, Schema } from "effect"
import { parseDurationMs } from "./Duration.js"
import { segmentsOf } from "./Interpolate.js"
import { checkMatchers } from "./Matchers.js"

/**
 * The scenario language: one Schema per step kind. A step is a mapping with exactly one kind key (`request`,
 * `advance`, ...) plus that kind's options and an optional `name`. Unknown keys are errors, so a typo fails
 * when the file is loaded rather than being ignored.
 */
const DurationText = Schema.Union(Schema.String, Schema.Number).pipe(
  Schema.filter((value) => {
    const parsed = parseDurationMs(value)
    return typeof parsed === "string" ? parsed : undefined
  })
)

/** Any expected value; matcher syntax is checked here, before anything runs. */
const Expected = Schema.Unknown.pipe(
  Schema.filter((value) => checkMatchers(value).map((issue) => ({ path: segmentsOf(issue.path), message: issue.message })))
)

const Method = Schema.Literal("GET", "POST", "PUT", "PATCH", "DELETE")

const RequestShorthand = Schema.String.pipe(
  Schema.pattern(/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/, { message: () => 'must be "METHOD /path", e.g. "GET /partner/v1/customers", or a mapping with method and path' })
)

/**
 * One file part of a multipart request: its bytes from exactly one source (`path`, relative to the file that
 * holds the step; `base64`; or `text`, sent as UTF-8), and the filename and content type sent with it.
 */
export const MultipartFile = Schema.Struct({
  path: Schema.optional(Schema.String),
  base64: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9+/\s]*={0,2}\s*$/, { message: () => "must be base64 (A-Z a-z 0-9 + / and = padding)" }))),
  text: Schema.optional(Schema.String),
  filename: Schema.optional(Schema.String),
  contentType: Schema.optional(Schema.String)
}).pipe(Schema.filter((part) => {
  const sources = (["path", "base64", "text"] as const).filter((key) => part[key] !== undefined)
  return sources.length === 1 ? undefined : `a file part needs exactly one of path, base64, text (found ${sources.length === 0 ? "none" : sources.join(", ")})`
}))
export type MultipartFile = typeof MultipartFile.Type

/** A text field (string or number) or a file part; a mapping is checked as a file part only, for a clear message. */
const MultipartValue = Schema.Unknown.pipe(Schema.filter((value) => {
  if (typeof value === "string" || typeof value === "number") return undefined
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "a text field (string) or a file part { path | base64 | text, filename?, contentType? }"
  const decoded = Schema.decodeUnknownEither(MultipartFile, { errors: "all", onExcessProperty: "error" })(value)
  if (Either.isRight(decoded)) return undefined
  return ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((issue) => ({ path: issue.path, message: issue.message }))
})) as unknown as Schema.Schema<string | number | MultipartFile>

/** `multipart:` fields in order: a string is a text field, a mapping a file part. */
export const Multipart = Schema.Record({ key: Schema.String, value: MultipartValue })
export type Multipart = typeof Multipart.Type

export const RequestObject = Schema.Struct({
  method: Method,
  path: Schema.optional(Schema.String.pipe(Schema.startsWith("/", { message: () => "must start with / (relative to /api/v1)" }))),
  /** A full URL on the service instead of `path`, e.g. a link it returned (`${charge.redirectUrl}`). */
  url: Schema.optional(Schema.String),
  query: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  body: Schema.optional(Schema.Unknown),
  multipart: Schema.optional(Multipart),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  auth: Schema.optional(Schema.Literal("partner", "none"))
}).pipe(Schema.filter((request) => {
  if ((request.path === undefined) === (request.url === undefined)) return "a request has exactly one of path (relative to /api/v1) and url (a full URL on the service)"
  return request.body !== undefined && request.multipart !== undefined ? "a request has body (JSON) or multipart, not both" : undefined
}))
export type RequestObject = typeof RequestObject.Type

const RequestSpec = Schema.Union(RequestShorthand, RequestObject)
export type RequestSpec = typeof RequestSpec.Type

export const Expectation = Schema.Struct({
  status: Schema.optional(Expected),
  body: Schema.optional(Expected),
  exact: Schema.optional(Schema.Boolean),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Expected }))
})
export type Expectation = typeof Expectation.Type

const Saves = Schema.Record({ key: Schema.String.pipe(Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "a name: letters, digits, underscore" })), value: Schema.String })

const name = Schema.optional(Schema.String)
const Steps = Schema.Array(Schema.Unknown)
const Count = (max: number) => Schema.Int.pipe(Schema.between(1, max, { message: () => `must be a whole number from 1 to ${max}` }))

export const stepKinds = {
  request: Schema.Struct({ name, request: RequestSpec, expect: Schema.optional(Expectation), save: Schema.optional(Saves) }),
  act: Schema.Struct({
    name,
    act: Schema.Union(Schema.String, Schema.Struct({ path: Schema.String, body: Schema.optional(Schema.Unknown) })),
    expect: Schema.optional(Expectation),
    save: Schema.optional(Saves)
  }),
  advance: Schema.Struct({ name, advance: DurationText }),
  rail: Schema.Struct({ name, rail: Schema.String, policy: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
  webhook: Schema.Struct({
    name,
    webhook: Schema.Struct({
      register: Schema.optional(Schema.Boolean),
      rotate: Schema.optional(Schema.Boolean),
      respond: Schema.optional(Schema.Union(Schema.Int.pipe(Schema.between(100, 599)), Schema.Literal("hang")))
    })
  }),
  waitFor: Schema.Struct({
    name,
    waitFor: Schema.Struct({ type: Schema.String, customerId: Schema.optional(Schema.String), where: Schema.optional(Expected), timeout: Schema.optional(DurationText) }),
    save: Schema.optional(Saves)
  }),
  expectEvents: Schema.Struct({
    name,
    expectEvents: Schema.Struct({
      customerId: Schema.optional(Schema.String),
      ordered: Schema.optional(Schema.Boolean),
      timeout: Schema.optional(DurationText),
      sequence: Schema.NonEmptyArray(Schema.Union(Schema.String, Schema.Struct({ type: Schema.String, data: Schema.optional(Expected) })))
    })
  }),
  expectNoEvent: Schema.Struct({
    name,
    expectNoEvent: Schema.Struct({ type: Schema.String, customerId: Schema.optional(Schema.String), data: Schema.optional(Expected), within: Schema.optional(DurationText) })
  }),
  expectWebhooks: Schema.Struct({
    name,
    expectWebhooks: Schema.Struct({
      type: Schema.optional(Schema.String),
      eventId: Schema.optional(Schema.String),
      count: Schema.optional(Expected),
      body: Schema.optional(Expected),
      timeout: Schema.optional(DurationText)
    })
  }),
  expectDelivery: Schema.Struct({
    name,
    expectDelivery: Schema.Struct({
      type: Schema.optional(Schema.String),
      eventId: Schema.optional(Schema.String),
      match: Expected,
      timeout: Schema.optional(DurationText)
    }),
    save: Schema.optional(Saves)
  }),
  expectBalances: Schema.Struct({
    name,
    expectBalances: Schema.Struct({
      customerId: Schema.String,
      balances: Schema.Record({ key: Schema.String, value: Expected }),
      exact: Schema.optional(Schema.Boolean)
    })
  }),
  parallel: Schema.Struct({
    name,
    parallel: Schema.Struct({
      copies: Count(100),
      request: RequestSpec,
      expect: Schema.optional(Schema.Struct({
        statuses: Schema.optional(Schema.Record({ key: Schema.String.pipe(Schema.pattern(/^\d{3}$/, { message: () => "a status code such as 201" })), value: Expected })),
        every: Schema.optional(Expectation),
        distinct: Schema.optional(Schema.Struct({ path: Schema.String, count: Expected }))
      }))
    })
  }),
  repeat: Schema.Struct({ name, repeat: Schema.Struct({ times: Count(1000), as: Schema.optional(Schema.String), steps: Steps }) }),
  include: Schema.Struct({ name, include: Schema.String, with: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })) }),
  set: Schema.Struct({ name, set: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
} as const

export type StepKinds = typeof stepKinds
export type StepKind = keyof StepKinds
export const stepKindNames = Object.keys(stepKinds) as ReadonlyArray<StepKind>

/** A validated step, where it came from, and (for repeat and include) the steps inside it. */
export type Step = {
  [K in StepKind]: {
    readonly kind: K
    readonly spec: Schema.Schema.Type<StepKinds[K]>
    readonly file: string
    readonly line: number
    readonly children: ReadonlyArray<Step>
  }
}[StepKind]

export const KybStatus = Schema.Literal("PENDING", "APPROVED", "REJECTED")

export const ScenarioHeader = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1, { message: () => "a scenario needs a name" })),
  description: Schema.String,
  seed: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  partner: Schema.optional(Schema.Struct({ kybStatus: Schema.optional(KybStatus), name: Schema.optional(Schema.String) })),
  vars: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  steps: Schema.NonEmptyArray(Schema.Unknown)
})

/** A file of shared steps, used with `- include: path` and never run on its own. */
export const FixtureHeader = Schema.Struct({
  fixture: Schema.String,
  params: Schema.optional(Schema.Array(Schema.String)),
  steps: Schema.NonEmptyArray(Schema.Unknown)
})

export interface Scenario {
  readonly file: string
  readonly name: string
  readonly description: string
  readonly seed: string
  readonly partner: { readonly kybStatus?: "PENDING" | "APPROVED" | "REJECTED" | undefined; readonly name?: string | undefined }
  readonly vars: Readonly<Record<string, unknown>>
  readonly steps: ReadonlyArray<Step>
}

/** A one-line description of a step for the report. */
export const describeStep = (step: Step): string => {
  if (step.spec.name !== undefined) return step.spec.name
  const requestLabel = (spec: RequestSpec) => (typeof spec === "string" ? spec : `${spec.method} ${spec.path ?? spec.url}`)
  switch (step.kind) {
    case "request": return requestLabel(step.spec.request)
    case "act": return `POST /sandbox/${typeof step.spec.act === "string" ? step.spec.act : step.spec.act.path}`
    case "advance": return `advance the clock ${step.spec.advance}`
    case "rail": return `rail ${step.spec.rail}: ${JSON.stringify(step.spec.policy)}`
    case "webhook": return `webhook receiver:${step.spec.webhook.register ? " register" : ""}${step.spec.webhook.rotate ? " rotate the secret" : ""}${step.spec.webhook.respond !== undefined ? ` answer ${step.spec.webhook.respond}` : ""}`
    case "waitFor": return `wait for ${step.spec.waitFor.type}`
    case "expectEvents": return `events ${step.spec.expectEvents.ordered === false ? "include" : "in order"}: ${step.spec.expectEvents.sequence.map((s) => (typeof s === "string" ? s : s.type)).join(", ")}`
    case "expectNoEvent": return `no ${step.spec.expectNoEvent.type} event`
    case "expectWebhooks": {
      const { count, type, eventId } = step.spec.expectWebhooks
      return `receiver got ${count === undefined ? "at least one" : JSON.stringify(count)} × ${type ?? eventId ?? "any event"}`
    }
    case "expectDelivery": {
      const { match, type, eventId } = step.spec.expectDelivery
      return `delivery of ${type ?? eventId ?? "the newest event"} ${JSON.stringify(match)}`
    }
    case "expectBalances": return `balances of ${step.spec.expectBalances.customerId}`
    case "parallel": return `${step.spec.parallel.copies} × ${requestLabel(step.spec.parallel.request)} at once`
    case "repeat": return `repeat ${step.spec.repeat.times} times`
    case "include": return `include ${step.spec.include}`
    case "set": return `set ${Object.keys(step.spec.set).join(", ")}`
  }
}
