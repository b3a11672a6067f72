import { Effect, Tracer } from "effect"

/**
 * Effect's own tracer, recording the name of every span it is asked for (`names`): what a test checks when it asks
 * whether code builds spans at all.
 */
export const recordingTracer = () => {
  const native = Effect.runSync(Effect.tracer)
  const names: Array<string> = []
  const tracer = Tracer.make({
    span: (name, ...rest) => {
      names.push(name)
      return native.span(name, ...rest)
    },
    context: native.context
  })
  return { names, tracer }
}
