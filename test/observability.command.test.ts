import { Effect, Exit, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import * as Command from "../src/observability/Command.js"
import { recordingTracer } from "./support/RecordingTracer.js"

/**
 * `Command.fn` (src/observability/Command.ts): `Effect.fn` when the fiber's tracer is on, the same body without a span
 * when it is off — same results, same failures, same arity.
 */
const increment = Command.fn("Test.increment")(function*(n: number) {
  if (n < 0) return yield* Effect.fail(`negative: ${n}`)
  return n + 1
})

const scaled = Command.fn("Test.scaled")(
  (n: number) => n < 0 ? Effect.fail(`negative: ${n}`) : Effect.succeed(n),
  (effect, n) => Effect.map(effect, (value) => value * 10 + n)
)

/** The name of the span a body runs in, if any (`Effect.fn` provides even a no-op span as the parent span). */
const spanOfBody = Command.fn("Test.spanOfBody")(function*() {
  const parent = yield* Effect.serviceOption(Tracer.ParentSpan)
  return parent._tag === "Some" && parent.value._tag === "Span" ? parent.value.name : "none"
})

const run = <A, E>(effect: Effect.Effect<A, E>, tracerEnabled: boolean) => {
  const { names, tracer } = recordingTracer()
  const exit = Effect.runSync(Effect.exit(effect.pipe(Effect.withTracerEnabled(tracerEnabled), Effect.withTracer(tracer))))
  return { exit, names }
}

describe("Command.fn", () => {
  it("opens the command's span when the tracer is on", () => {
    expect(run(increment(1), true)).toEqual({ exit: Exit.succeed(2), names: ["Test.increment"] })
    expect(run(scaled(4), true)).toEqual({ exit: Exit.succeed(44), names: ["Test.scaled"] })
  })

  it("asks the tracer for nothing when it is off, with the same results", () => {
    expect(run(increment(1), false)).toEqual({ exit: Exit.succeed(2), names: [] })
    expect(run(scaled(4), false)).toEqual({ exit: Exit.succeed(44), names: [] })
  })

  it("runs the body in no span at all when the tracer is off (Effect.fn would provide a no-op one)", () => {
    expect(run(spanOfBody(), false).exit).toEqual(Exit.succeed("none"))
    expect(run(spanOfBody(), true).exit).toEqual(Exit.succeed("Test.spanOfBody"))
    const effectFn = Effect.fn("Test.effectFn")(function*() {
      return yield* Effect.serviceOption(Tracer.ParentSpan)
    })
    const noop = run(effectFn(), false).exit
    expect(Exit.isSuccess(noop) && noop.value._tag === "Some" && noop.value.value._tag === "Span" && noop.value.value.name).toBe("Test.effectFn")
  })

  it("fails alike either way", () => {
    for (const tracerEnabled of [true, false]) {
      expect(run(increment(-1), tracerEnabled).exit).toEqual(Exit.fail("negative: -1"))
      expect(run(scaled(-2), tracerEnabled).exit).toEqual(Exit.fail("negative: -2"))
    }
  })

  it("decides per call, from the calling fiber", () => {
    const { names, tracer } = recordingTracer()
    const both = Effect.all([increment(1).pipe(Effect.withTracerEnabled(false)), increment(2)])
    expect(Effect.runSync(both.pipe(Effect.withTracer(tracer)))).toEqual([2, 3])
    expect(names).toEqual(["Test.increment"])
  })

  it("keeps the body's arity", () => {
    expect(increment.length).toBe(1)
    expect(scaled.length).toBe(1)
  })
})
