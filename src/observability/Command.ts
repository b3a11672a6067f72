import { Effect, FiberRef, type Tracer } from "effect"
import { isGeneratorFunction } from "effect/Utils"

/**
 * A public command of a service: `Effect.fn(name)`, whose span is built only when the calling fiber's tracer is on.
 *
 * With a trace exporter (OTEL_EXPORTER_OTLP_ENDPOINT) a command is exactly `Effect.fn(name)`: a span named
 * `Module.command`, a child of its request's span (docs/observability.md). Without one the HTTP server runs with the
 * tracer off (src/observability/Observability.ts), and `Effect.fn` would still build a span for nobody on every call —
 * an error for its call site, a no-op span provided as the parent span (a copy of the request's context and of its
 * fiber refs): 25–35 µs of the service's CPU a call, measured (docs/performance.md). The command then runs its body
 * as `Effect.fnUntraced` does. Which of the two runs is decided per call, from the fiber (one read of a fiber ref).
 *
 * The body and pipeables are those of `Effect.fn`: a generator function, or a function returning an effect, then
 * functions of `(effect, ...args)`.
 */
export const fn = (name: string, options?: Tracer.SpanOptions): Effect.fn.Gen & Effect.fn.NonGen =>
  ((body: Function, ...pipeables: Array<Function>) => {
    const traced: Function = (Effect.fn(name, options) as Function)(body, ...pipeables)
    const untraced: Function = isGeneratorFunction(body)
      ? (Effect.fnUntraced as Function)(body, ...pipeables)
      : function(this: unknown, ...args: Array<unknown>) {
        let effect = body.apply(this, args)
        for (const pipeable of pipeables) effect = pipeable(effect, ...args)
        return effect
      }
    const run = function(this: unknown, ...args: Array<unknown>) {
      return Effect.withFiberRuntime((fiber) =>
        (fiber.getFiberRef(FiberRef.currentTracerEnabled) ? traced : untraced).apply(this, args)
      )
    }
    return Object.defineProperty(run, "length", { value: body.length, configurable: true })
  }) as never
