import { Effect, Option, type ParseResult, Ref, Schema } from "effect"
import type { Job } from "./JobsRepo.js"
import type { JobDescription, JobHandler, RegisterOptions } from "./Jobs.js"

/** A kind's handler, its payload decoder and how to describe its jobs. */
export interface Registered {
  readonly decode: (input: unknown) => Effect.Effect<unknown, ParseResult.ParseError>
  readonly handler: JobHandler<unknown>
  readonly describe: (job: Job) => JobDescription | undefined
}

const registered = <A, I>(payload: Schema.Schema<A, I>, handler: JobHandler<A>, options?: RegisterOptions<A>): Registered => {
  const decodeSync = Schema.decodeUnknownOption(payload)
  const describe = options?.describe
  return {
    decode: Schema.decodeUnknown(payload),
    handler: handler as JobHandler<unknown>,
    describe: (job) => {
      if (describe === undefined) return undefined
      const decoded = decodeSync(job.payload)
      return Option.isSome(decoded) ? describe(decoded.value, job) : undefined
    }
  }
}

/**
 * The handlers of this process's Jobs, by kind. Claims, due times and due lists read only registered kinds: a job of
 * a kind nobody registered (yet) stays pending, untouched, until its handler is registered.
 */
export const make = Effect.gen(function*() {
  const handlers = yield* Ref.make<ReadonlyMap<string, Registered>>(new Map())
  /** One handler per kind: registering a kind twice is a defect. */
  const register = <A, I>(kind: string, payload: Schema.Schema<A, I>, handler: JobHandler<A>, options?: RegisterOptions<A>) =>
    Ref.update(handlers, (current) => {
      if (current.has(kind)) throw new Error(`Jobs.register: a handler for "${kind}" is already registered`)
      const next = new Map(current)
      next.set(kind, registered(payload, handler, options))
      return next
    })
  return {
    register,
    all: Ref.get(handlers),
    kinds: Effect.map(Ref.get(handlers), (map) => [...map.keys()])
  } as const
})

export type JobRegistry = Effect.Effect.Success<typeof make>
