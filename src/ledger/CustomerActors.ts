import { SqlClient, SqlError } from "@effect/sql"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Queue, Scope } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import { EventBus, transaction } from "../events/Events.js"
import { CustomerForbidden } from "../http/ApiError.js"
import { CustomerBusy } from "./Errors.js"

/**
 * One actor per customer: a fiber with a bounded mailbox that runs one command at a time. Each command is one
 * database transaction that first locks the customer row (`FOR UPDATE`, so a second process is serialised too),
 * then runs the command (idempotency check, resource, journal, outbox event), and commits; the reply goes back
 * after the commit. A full mailbox answers 503 CUSTOMER_BUSY instead of growing; an idle actor stops.
 *
 * A command is a function of the locked customer row to an effect with no remaining requirements. Because the
 * actor owns the transaction boundary, a later version can commit several queued commands in one transaction
 * (group commit, with a savepoint per command) without changing any caller.
 */
export type Command<A, E> = (customer: CustomerRow) => Effect.Effect<A, E>

interface Envelope {
  readonly run: Effect.Effect<void>
}

interface Actor {
  readonly mailbox: Queue.Queue<Envelope>
  fiber: Fiber.RuntimeFiber<void> | undefined
}

export class CustomerActors extends Context.Tag("CustomerActors")<CustomerActors, {
  readonly run: <A, E>(
    partnerId: string,
    customerId: string,
    command: Command<A, E>
  ) => Effect.Effect<A, E | CustomerForbidden | CustomerBusy>
  /** Number of live actors (for tests and metrics). */
  readonly size: Effect.Effect<number>
}>() {}

export const layer = Layer.scoped(
  CustomerActors,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const bus = yield* EventBus
    const config = yield* AppConfig
    const scope = yield* Scope.Scope
    const actors = new Map<string, Actor>()
    const lock = yield* Effect.makeSemaphore(1)
    const idle = Duration.millis(config.actorIdleMs)

    const lockCustomer = (partnerId: string, customerId: string) =>
      sql<CustomerRow>`SELECT * FROM customers WHERE id = ${customerId} AND partner_id = ${partnerId} FOR UPDATE`.pipe(
        Effect.map((rows) => rows[0])
      )

    const loop = (customerId: string, actor: Actor): Effect.Effect<void> =>
      Effect.gen(function*() {
        while (true) {
          const next = yield* Queue.take(actor.mailbox).pipe(Effect.timeout(idle), Effect.option)
          if (Option.isSome(next)) {
            yield* next.value.run
            continue
          }
          // Idle: stop, unless a command arrived between the timeout and taking the lock.
          const stopped = yield* lock.withPermits(1)(Effect.gen(function*() {
            if ((yield* Queue.size(actor.mailbox)) > 0) return false
            actors.delete(customerId)
            return true
          }))
          if (stopped) return
        }
      })

    const run = <A, E>(partnerId: string, customerId: string, command: Command<A, E>) =>
      Effect.gen(function*() {
        const reply = yield* Deferred.make<A, E | CustomerForbidden>()
        const work = transaction(Effect.gen(function*() {
          const customer = yield* lockCustomer(partnerId, customerId)
          if (customer === undefined) return yield* CustomerForbidden.standard()
          return yield* command(customer)
        })).pipe(
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.provideService(EventBus, bus),
          Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, Effect.die),
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(reply, exit as Exit.Exit<A, E | CustomerForbidden>)),
          Effect.asVoid
        )
        const accepted = yield* lock.withPermits(1)(Effect.gen(function*() {
          let actor = actors.get(customerId)
          if (actor === undefined) {
            actor = { mailbox: yield* Queue.bounded<Envelope>(config.actorMailboxCapacity), fiber: undefined }
            actors.set(customerId, actor)
            actor.fiber = yield* Effect.forkIn(loop(customerId, actor), scope)
          }
          return actor.mailbox.unsafeOffer({ run: work })
        }))
        if (!accepted) {
          return yield* new CustomerBusy({
            message: "Too many operations are queued for this customer; retry shortly with the same reference"
          })
        }
        return yield* Deferred.await(reply)
      })

    return CustomerActors.of({ run, size: Effect.sync(() => actors.size) })
  })
)
