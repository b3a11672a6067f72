import { Command, Options, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Clock, Data, Effect, Either, Exit, Layer, Option, Queue } from "effect"
import * as Client from "../../Client.js"
import * as CliOptions from "../CliOptions.js"
import * as Help from "../Help.js"
import { listenHelp, listenOptions } from "../HelpTexts.js"
import { normaliseBaseUrl } from "../../tui/Backend.js"
import { isUuid } from "../../ids/Ids.js"
import { defaultApiKey, defaultUrl, noDefaultKeyMessage, SandboxEnvironment } from "../Defaults.js"
import { newSecret, post } from "./Delivery.js"
import { follow, type StreamEvent, type StreamRefused, transportCode } from "./EventStream.js"
import { everything, parseEventFilter } from "./Filter.js"
import * as Output from "./Output.js"

/**
 * `npm run listen -- --forward-to http://127.0.0.1:3000/webhooks [--events type,...]`: follows the partner's live
 * event stream of a running sandbox (local or remote) and POSTs every event to a local URL, signed exactly as a real
 * webhook delivery (the same body bytes and headers, `Signing.signatureHeader` at the time of the attempt), one at a
 * time in arrival order. Like `stripe listen`: the receiver on a laptop gets webhooks the sandbox cannot reach.
 * docs/sandbox-listen.md.
 */

/** Why listen stops by itself: a message for stderr and the exit code (2: usage, 1: the sandbox). */
class ListenFailure extends Data.TaggedError("ListenFailure")<{ readonly message: string; readonly exitCode: 1 | 2 }> {}

const usage = (message: string) => new ListenFailure({ message, exitCode: 2 })


const options = {
  url: CliOptions.text(listenOptions.url).pipe(Options.optional),
  apiKey: CliOptions.text(listenOptions.apiKey).pipe(Options.optional),
  // Required, but checked by `run`: a missing --forward-to is one line naming it, not @effect/cli's message.
  forwardTo: CliOptions.text(listenOptions.forwardTo).pipe(Options.optional),
  events: CliOptions.text(listenOptions.events).pipe(Options.optional),
  customer: CliOptions.text(listenOptions.customer).pipe(Options.optional),
  secret: CliOptions.text(listenOptions.secret).pipe(Options.optional),
  printJson: CliOptions.flag(listenOptions.printJson)
}

interface Args {
  readonly url: Option.Option<string>
  readonly apiKey: Option.Option<string>
  readonly forwardTo: Option.Option<string>
  readonly events: Option.Option<string>
  readonly customer: Option.Option<string>
  readonly secret: Option.Option<string>
  readonly printJson: boolean
}

const httpUrl = (name: string, input: string) => {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return Either.left(usage(`${name}: not a valid URL: ${input}`))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return Either.left(usage(`${name}: must be an http or https URL: ${input}`))
  return Either.right(url)
}

/** The one-line reason a stream or a request was refused at start, as the TUI words it. */
const refusal = (baseUrl: string, error: Pick<StreamRefused, "reason" | "detail">) => {
  switch (error.reason) {
    case "unreachable":
      return `cannot reach ${baseUrl} (${error.detail}; is \`npm start\` running?)`
    case "unauthorized":
      return `the API key was refused by ${baseUrl} (${error.detail})`
    case "not_found":
      return `${baseUrl} has no sandbox API (a production service?)`
    case "refused":
      return `${baseUrl} refused the event stream: ${error.detail}`
  }
}

/** `GET /sandbox/partner` at start: who the key belongs to, and proof that the sandbox answers. */
const whoAmI = (client: Client.Client, baseUrl: string) =>
  client.sandbox.partner().pipe(
    Effect.catchAll((error): Effect.Effect<never, ListenFailure> => {
      const fail = (message: string) => Effect.fail(new ListenFailure({ message, exitCode: 1 }))
      switch (error._tag) {
        case "Unauthorized":
          return fail(refusal(baseUrl, { reason: "unauthorized", detail: `401 ${error.code}` }))
        case "RequestError":
          return fail(refusal(baseUrl, { reason: "unreachable", detail: transportCode(error.cause) ?? error.message }))
        case "ResponseError":
          return fail(
            error.response.status === 404
              ? refusal(baseUrl, { reason: "not_found", detail: "404" })
              : `${baseUrl}: unexpected answer (HTTP ${error.response.status})`
          )
        default:
          return fail(`${baseUrl}: unexpected answer (${error.message})`)
      }
    })
  )

const run = (args: Args) =>
  Effect.gen(function*() {
    const env = yield* Effect.orDie(SandboxEnvironment)
    const rawUrl = Option.getOrElse(args.url, () => defaultUrl(env))
    const baseUrl = yield* Effect.try({
      try: () => normaliseBaseUrl(rawUrl),
      catch: () => usage(`--url: not a valid http(s) URL: ${rawUrl}`)
    })
    if (Option.isNone(args.forwardTo)) {
      return yield* usage(`--forward-to is required, e.g. --forward-to http://127.0.0.1:3000/webhooks. ${Help.seeHelp(listenHelp)}`)
    }
    const forwardTo = (yield* httpUrl("--forward-to", args.forwardTo.value)).href
    const filter = Option.isSome(args.events) ? yield* Either.mapLeft(parseEventFilter(args.events.value), usage) : everything
    const customerId = Option.getOrUndefined(args.customer)
    if (customerId !== undefined && !isUuid(customerId)) return yield* usage(`--customer: must be a customer id (uuid), got ${customerId}`)
    if (Option.isSome(args.secret) && args.secret.value.trim() === "") return yield* usage("--secret: must not be empty")
    const secret = Option.getOrElse(args.secret, newSecret)
    const apiKey = Option.isSome(args.apiKey) ? args.apiKey.value : yield* defaultApiKey(env).pipe(
      Effect.mapError((missing) => new ListenFailure({ message: noDefaultKeyMessage(missing, "--api-key"), exitCode: 1 }))
    )
    const printer = args.printJson ? Output.json : Output.text
    const out = (line: string) => Effect.sync(() => void process.stdout.write(`${line}\n`))
    const note = (line: string) => Effect.sync(() => void process.stderr.write(`listen: ${line}\n`))

    const client = yield* Client.make({ baseUrl, apiKey })
    const partner = yield* whoAmI(client, baseUrl)

    /** A delivery is signed at the wall-clock time of its attempt (unix seconds), whatever the sandbox clock says. */
    const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

    // Events wait here for their turn: one POST at a time, in arrival order, while the stream keeps being read.
    const queue = yield* Queue.unbounded<StreamEvent>()
    const forwardOne = (event: StreamEvent) =>
      nowSeconds.pipe(
        Effect.flatMap((timestamp) => post(forwardTo, event, secret, timestamp)),
        Effect.flatMap((answer) => out(printer.answer(new Date(), forwardTo, event, answer)))
      )
    const forwarder = Effect.forever(Effect.flatMap(Queue.take(queue), forwardOne))

    const reader = follow({
      baseUrl,
      apiKey,
      customerId,
      type: filter.streamType,
      onEvent: (event) =>
        filter.matches(event.type) ? Effect.zipRight(out(printer.event(new Date(), event)), Queue.offer(queue, event)) : Effect.void,
      onNotice: (notice) => {
        if (notice._tag === "Dropped") return note(`event stream dropped (${notice.reason}); reconnecting`)
        if (notice.reconnect) {
          return note(`reconnected${notice.resumedAfter === undefined ? "" : `; resuming after stream id ${notice.resumedAfter}`}`)
        }
        return out(printer.ready({
          partnerId: partner.partnerId,
          partnerName: partner.name,
          url: baseUrl,
          forwardTo,
          secret,
          events: filter.patterns,
          customerId
        }))
      }
    }).pipe(Effect.mapError((error) => new ListenFailure({ message: refusal(baseUrl, error), exitCode: 1 })))

    return yield* Effect.all([reader, forwarder], { concurrency: 2, discard: true })
  })

const listen = Command.make("listen", options, run).pipe(Command.withDescription(listenHelp.summary))

const cli = Command.run(listen, { name: "npm run listen --", version: "0.1.0" })

/** 0 when interrupted (SIGINT, SIGTERM) or after --help; 2 for a usage error; 1 when the sandbox cannot be followed. */
const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return 0
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (error instanceof ListenFailure) return error.exitCode
    if (ValidationError.isValidationError(error)) return 2
  }
  return 1
}

/** Parses `argv` (process.argv) and runs listen as the process's main (src/cli/listen.ts: after its own `--help`). */
export const main = (argv: ReadonlyArray<string>): void => {
  // A closed stdout (`| head`) ends listen quietly.
  process.stdout.on("error", () => process.exit(0))
  cli(argv).pipe(
    Effect.tapErrorCause((cause) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure) && failure.value instanceof ListenFailure) {
        const message = failure.value.message
        return Effect.sync(() => void process.stderr.write(`listen: ${message}\n`))
      }
      // @effect/cli has printed its own message for a usage error: point at the help.
      if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
        return Effect.sync(() => void process.stderr.write(`${Help.seeHelp(listenHelp)}\n`))
      }
      return Cause.isInterruptedOnly(cause) ? Effect.void : Effect.sync(() => void process.stderr.write(`listen: ${Cause.pretty(cause)}\n`))
    }),
    // Keep-alive connections, as the service's sender keeps them.
    Effect.provide(NodeHttpClient.layerWithoutAgent.pipe(Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true })))),
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({
      disableErrorReporting: true,
      disablePrettyLogger: true,
      teardown: (exit, onExit) => onExit(exitCodeOf(exit))
    })
  )
}
