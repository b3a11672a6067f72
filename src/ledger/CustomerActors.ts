import { SqlClient, SqlError } from "@effect/sql"
import { Cause, Context, Deferred, Duration, Effect, Exit, Layer, Option, Queue, RcMap } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import * as CustomersRepo from "../customers/CustomersRepo.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import { EventBus, isInTransaction, transaction } from "../events/Events.js"
import { CustomerForbidden } from "../http/ApiError.js"
import { isUuid } from "../ids/Ids.js"
import { CustomerBusy } from "./Errors.js"

/**
 * The one path for every change of a customer. Partner requests, sandbox controls, KYC submissions and
 * decisions, rail outcomes and scheduled job handlers all call `run`; the customer row is locked here and nowhere
 * else (`lockCustomer`, through the customers repository's `lockOwned`), and ownership (the customer belongs to
 * the partner) is checked here once.
 *
 * Called from outside a transaction (a request), a command goes to the customer's actor: a fiber with a bounded
 * mailbox that runs one command at a time, each in one database transaction that first locks the customer row
 * (`FOR UPDATE`, so a second process is serialised too), then runs the command (idempotency, resource, journal,
 * outbox event) and commits; the reply goes back after the commit. A full mailbox answers 503 CUSTOMER_BUSY
 * instead of growing; an idle actor stops; at most `actorsMax` actors live at once (an `RcMap` with a capacity).
 *
 * Called from inside a transaction (a job handler: its claim, the state change and "job done" commit together),
 * the command joins that transaction as a savepoint after the same lock, so a command that fails rolls back only
 * its own writes.
 */
export type Command<A, E> = (customer: CustomerRow) => Effect.Effect<A, E>

export type RunError = CustomerForbidden | CustomerBusy

interface Actor {
  readonly mailbox: Queue.Queue<Effect.Effect<void>>
}

export class CustomerActors extends Context.Tag("CustomerActors")<CustomerActors, {
  readonly run: <A, E>(partnerId: string, customerId: string, command: Command<A, E>) => Effect.Effect<A, E | RunError>
  /** Number of live actors (for tests and metrics). */
  readonly size: Effect.Effect<number>
}>() {}

const busy = (message: string) => new CustomerBusy({ message })

export const layer = Layer.scoped(
  CustomerActors,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const bus = yield* EventBus
    const config = yield* AppConfig
    const customers = yield* CustomersRepo.make

    /** The customer row lock: the one caller of `lockOwned`, the only `FOR UPDATE` on customers. */
    const lockCustomer = (partnerId: string, customerId: string) =>
      Effect.gen(function*() {
        if (!isUuid(customerId)) return yield* CustomerForbidden.standard()
        const customer = yield* customers.lockOwned(partnerId, customerId.toLowerCase())
        if (Option.isNone(customer)) return yield* CustomerForbidden.standard()
        return customer.value
      })

    /** One command in one transaction (or savepoint): lock, run, commit. SQL failures are defects. */
    const execute = <A, E>(partnerId: string, customerId: string, command: Command<A, E>) =>
      transaction(Effect.flatMap(lockCustomer(partnerId, customerId), command)).pipe(
        Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, Effect.die),
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus)
      ) as Effect.Effect<A, E | CustomerForbidden>

    const actors = yield* RcMap.make({
      lookup: (_customerId: string) =>
        Effect.gen(function*() {
          const mailbox = yield* Queue.bounded<Effect.Effect<void>>(config.actorMailboxCapacity)
          yield* Effect.addFinalizer(() => Queue.shutdown(mailbox))
          yield* Effect.forkScoped(Effect.forever(Effect.flatten(Queue.take(mailbox))))
          return { mailbox } satisfies Actor
        }),
      idleTimeToLive: Duration.millis(config.actorIdleMs),
      capacity: config.actorsMax
    })

    const enqueue = <A, E>(partnerId: string, customerId: string, command: Command<A, E>) =>
      Effect.scoped(Effect.gen(function*() {
        const actor = yield* RcMap.get(actors, customerId.toLowerCase()).pipe(
          Effect.catchIf(Cause.isExceededCapacityException, () =>
            Effect.fail(busy("Too many customers have operations in flight; retry shortly with the same reference")))
        )
        const reply = yield* Deferred.make<A, E | CustomerForbidden>()
        const work = Effect.exit(execute(partnerId, customerId, command)).pipe(
          Effect.flatMap((exit: Exit.Exit<A, E | CustomerForbidden>) => Deferred.done(reply, exit)),
          Effect.asVoid
        )
        if (!actor.mailbox.unsafeOffer(work)) {
          return yield* busy("Too many operations are queued for this customer; retry shortly with the same reference")
        }
        // The reference held until the reply keeps the actor alive while its mailbox has work.
        return yield* Deferred.await(reply)
      }))

    const run = <A, E>(partnerId: string, customerId: string, command: Command<A, E>): Effect.Effect<A, E | RunError> =>
      Effect.flatMap(isInTransaction, (inside) =>
        inside ? execute(partnerId, customerId, command) : enqueue(partnerId, customerId, command))

    return CustomerActors.of({ run, size: Effect.map(RcMap.keys(actors), (keys) => keys.length) })
  })
)
