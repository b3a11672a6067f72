import { SqlClient, SqlError } from "@effect/sql"
import { Cause, Chunk, Context, Deferred, Duration, Effect, Exit, Option, Queue, RcMap, Ref } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import * as CustomersRepo from "../customers/CustomersRepo.js"
import type { Customer } from "../customers/Customer.js"
import { forPartner } from "../clock/ServiceClock.js"
import { EventBus, isInTransaction, transaction } from "../events/Events.js"
import { CustomerForbidden } from "../api/ApiError.js"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { isUuid } from "../ids/Ids.js"
import { CustomerBusy } from "./Errors.js"
import { recordBatch } from "../observability/Metrics.js"

/**
 * The one path for every change of a customer. Partner requests, sandbox controls, KYC submissions and
 * decisions, rail outcomes and scheduled job handlers all call `run`; the customer row is locked here and nowhere
 * else (`lockOwned` of the customers repository), and ownership (the customer belongs to the partner) is checked
 * here once per command.
 *
 * Called from outside a transaction (a request), a command goes to the customer's actor: a fiber with a bounded
 * mailbox. The actor takes the command at the head of its mailbox together with the commands already queued
 * behind it (at most `groupCommitMax`) and runs them as one batch (group commit):
 *
 * - one database transaction whose first statement locks the customer row (`FOR UPDATE`, so a second process is
 *   serialised too); the row is locked once per batch (a batch of one command is simply lock, command, commit:
 *   no savepoint);
 * - each command, in mailbox order, in its own savepoint (a nested `transaction`): a command that fails (typed
 *   error or defect) rolls back its savepoint only — its rows and its events are gone, its neighbours go on;
 * - each command gets the customer row as it is at that point of the batch: after a command that succeeded and
 *   wrote the row (`verified_at` on a first approved Tier 1; `CustomersRepo.rowWritesSoFar` moved while it ran) the
 *   row is read again (not locked again) before the next command; after a failed command the savepoint rollback
 *   restored it, no read needed;
 * - one commit; the events of the commands that succeeded are published (in order) after it, then every command
 *   gets its own outcome, exactly as if it had run alone. If anything outside the savepoints fails (the lock, the
 *   commit) nothing of the batch is stored and every command of the batch gets that failure as a defect (500;
 *   a retry with the same reference is safe: idempotency).
 *
 * A full mailbox answers 503 CUSTOMER_BUSY instead of growing; an idle actor stops; at most `actorsMax` actors live
 * at once (an `RcMap` with a capacity). A requester that goes away does not stop its command: the batch runs to
 * its end regardless.
 *
 * Called from inside a transaction (a job handler: its claim, the state change and "job done" commit together),
 * the command joins that transaction as a savepoint after the same lock, so a command that fails rolls back only
 * its own writes.
 */
export type Command<A, E> = (customer: Customer) => Effect.Effect<A, E>

export type RunError = CustomerForbidden | CustomerBusy

/**
 * Most commands one batch (one transaction, one commit) carries. Each command is a savepoint, i.e. a PostgreSQL
 * subtransaction; a backend caches at most 64 subtransaction ids per transaction (PGPROC_MAX_CACHED_SUBXIDS) and
 * beyond that every other session's snapshots get slower. 32 leaves room for the savepoints commands open inside
 * themselves, and already spreads one commit (fsync) over up to 32 commands.
 */
export const groupCommitMax = 32

/** Counters for tests and metrics: how many batches (transactions) ran and how many commands they carried. */
export interface ActorStats {
  readonly batches: number
  readonly commands: number
  readonly largestBatch: number
}

/** One queued command, its types erased: the reply carries the command's own outcome back to its caller. */
interface Job {
  readonly partnerId: PartnerId
  readonly command: Command<unknown, unknown>
  readonly reply: Deferred.Deferred<unknown, unknown>
}

interface Actor {
  readonly mailbox: Queue.Queue<Job>
}

const busy = (message: string) => new CustomerBusy({ message })

const isSqlError = (error: unknown): error is SqlError.SqlError => error instanceof SqlError.SqlError

/** The customers' actors (see `Command` above for how a command runs). */
export class CustomerActors extends Effect.Service<CustomerActors>()("CustomerActors", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const bus = yield* EventBus
    const config = yield* AppConfig
    const customers = yield* CustomersRepo.CustomersRepo
    const stats = yield* Ref.make<ActorStats>({ batches: 0, commands: 0, largestBatch: 0 })
    /** The live actors' mailboxes, for the mailbox depth metrics (src/observability/MetricsServer.ts). */
    const mailboxes = new Set<Queue.Queue<Job>>()

    /** All a batch's fiber has in its context. */
    const batchContext = Context.make(SqlClient.SqlClient, sql).pipe(Context.add(EventBus, bus))

    /**
     * A transaction's effect; SQL failures are defects, as for any command. A batch's fiber runs with the actors'
     * services already (`batchContext`); `provided` gives them to a command run from another fiber.
     */
    const defects = <A, E, R>(effect: Effect.Effect<A, E | SqlError.SqlError, R>) =>
      Effect.catchIf(effect, isSqlError, Effect.die) as Effect.Effect<A, Exclude<E, SqlError.SqlError>, R>
    const provided = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | EventBus>) => Effect.provide(effect, batchContext)

    /**
     * The customer row lock: the one caller of `lockOwned`, the only `FOR UPDATE` on customers. Only well-formed ids
     * in canonical form reach it (branded at the edge, checked again by `run`).
     */
    const lockCustomer = (partnerId: PartnerId, customerId: CustomerId) =>
      Effect.gen(function*() {
        const customer = yield* customers.lockOwned(partnerId, customerId)
        if (Option.isNone(customer)) return yield* CustomerForbidden.standard()
        return customer.value
      })

    /**
     * One command in one transaction (or savepoint): lock, run, commit. Suspended: a command that throws while
     * building its effect is that command's defect.
     */
    const execute = <A, E>(partnerId: PartnerId, customerId: CustomerId, command: Command<A, E>) =>
      defects(transaction(Effect.flatMap(lockCustomer(partnerId, customerId), (customer) => Effect.suspend(() => command(customer))))).pipe(
        // A command reads its partner's clock, whichever fiber runs it (docs/sandbox.md "A clock per partner").
        forPartner(partnerId)
      )

    const forbidden = (): Exit.Exit<never, CustomerForbidden> => Exit.fail(CustomerForbidden.standard())

    /**
     * The body of a batch's transaction: lock once, then every command in its savepoint, in mailbox order. Returns
     * each command's outcome; fails (or dies) only for what happens outside the savepoints.
     *
     * Ownership is per command (the mailbox is per customer id, a command names its partner): the lock is taken
     * with the first command's partner; while no command's partner owns the customer nothing is locked and each
     * such command is refused. Once locked, a command of another partner is refused without touching the database
     * (partner ids are compared in canonical form, as the uuid column compares them: branded ids are canonical, and so
     * is the row's partner id). `run` refuses a malformed id before it is queued, so only well-formed ids reach SQL and
     * a malformed id can never abort the batch's transaction.
     */
    const batchBody = (customerId: CustomerId, jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        const outcomes: Array<Exit.Exit<unknown, unknown>> = []
        let row: Customer | undefined = undefined
        let stale = false
        for (const job of jobs) {
          const partnerId = job.partnerId
          if (row === undefined) {
            const locked = yield* customers.lockOwned(partnerId, customerId)
            if (Option.isNone(locked)) {
              outcomes.push(forbidden())
              continue
            }
            row = locked.value
          } else if (row.partnerId !== partnerId) {
            outcomes.push(forbidden())
            continue
          } else if (stale) {
            // An earlier command of this batch committed its savepoint and may have changed the row.
            const fresh: Option.Option<Customer> = yield* customers.findOwned(partnerId, customerId)
            if (Option.isNone(fresh)) return yield* Effect.dieMessage(`customer ${customerId} vanished while locked`)
            row = fresh.value
          }
          stale = false
          const current: Customer = row
          const writesBefore = CustomersRepo.rowWritesSoFar()
          // Suspended: a command that throws while building its effect is that command's defect only.
          // SQL failures of a command are defects, as when it runs alone; its savepoint is rolled back either way.
          const outcome = yield* Effect.exit(
            transaction(Effect.suspend(() => job.command(current))).pipe(Effect.catchIf(isSqlError, Effect.die), forPartner(partnerId))
          )
          // The counter is per process, so other customers' commands may move it too: at worst a read too many.
          if (Exit.isSuccess(outcome) && CustomersRepo.rowWritesSoFar() !== writesBefore) stale = true
          outcomes.push(outcome)
        }
        return outcomes
      })

    /**
     * A batch of one command: no savepoint (one round trip less), since its failure rolls back nothing but its own
     * writes anyway — lock, command, commit, exactly a command alone.
     */
    const runAlone = (customerId: CustomerId, job: Job) => execute(job.partnerId, customerId, job.command)

    /** Runs one batch and replies to each of its commands, only after the commit (or the batch's failure). */
    const runBatch = (customerId: CustomerId, jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        yield* Ref.update(stats, (s) => ({
          batches: s.batches + 1,
          commands: s.commands + jobs.length,
          largestBatch: Math.max(s.largestBatch, jobs.length)
        }))
        recordBatch(jobs.length)
        if (jobs.length === 1) return yield* Deferred.done(jobs[0]!.reply, yield* Effect.exit(runAlone(customerId, jobs[0]!)))
        const result = yield* Effect.exit(defects(transaction(batchBody(customerId, jobs))))
        if (Exit.isSuccess(result)) {
          for (let i = 0; i < jobs.length; i++) yield* Deferred.done(jobs[i]!.reply, result.value[i]!)
          return
        }
        // Nothing of the batch was committed: every command gets the batch's failure, as a defect.
        const cause: Cause.Cause<never> = Cause.isFailType(result.cause)
          ? Cause.die(result.cause.error)
          : Cause.isInterruptedOnly(result.cause)
          ? result.cause as Cause.Cause<never>
          : Cause.die(Cause.squash(result.cause))
        for (const job of jobs) yield* Deferred.failCause(job.reply, cause)
      }).pipe(
        // Interrupted (the actor stops with the application): nobody is left waiting for an answer.
        Effect.onInterrupt(() => Effect.forEach(jobs, (job) => Deferred.interrupt(job.reply), { discard: true }))
      )

    const actors = yield* RcMap.make({
      lookup: (customerId: CustomerId) =>
        Effect.gen(function*() {
          const mailbox = yield* Queue.bounded<Job>(config.actorMailboxCapacity)
          mailboxes.add(mailbox)
          yield* Effect.addFinalizer(() => Effect.zipRight(Effect.sync(() => mailboxes.delete(mailbox)), Queue.shutdown(mailbox)))
          // The head of the mailbox and whatever is queued behind it, up to the batch bound. Batches run with only
          // the services a command may need (a command's own requirements are provided by its author; the type of
          // `Command` has none): every statement and savepoint copies the fiber's context, so it is kept small.
          // The loop's fiber is given that context once, not each batch.
          yield* Effect.forkScoped(Effect.mapInputContext(
            Effect.forever(Effect.flatMap(
              Queue.takeBetween(mailbox, 1, groupCommitMax),
              (jobs) => runBatch(customerId, Chunk.toReadonlyArray(jobs))
            )),
            (_: Context.Context<never>) => batchContext
          ))
          return { mailbox } satisfies Actor
        }),
      idleTimeToLive: Duration.millis(config.actorIdleMs),
      capacity: config.actorsMax
    })

    const enqueue = <A, E>(partnerId: PartnerId, customerId: CustomerId, command: Command<A, E>) =>
      Effect.scoped(Effect.gen(function*() {
        const actor = yield* RcMap.get(actors, customerId).pipe(
          Effect.catchIf(Cause.isExceededCapacityException, () =>
            Effect.fail(busy("Too many customers have operations in flight; retry shortly with the same reference")))
        )
        const reply = yield* Deferred.make<A, E | CustomerForbidden>()
        const job: Job = {
          partnerId,
          command: command as Command<unknown, unknown>,
          reply: reply as Deferred.Deferred<unknown, unknown>
        }
        if (!actor.mailbox.unsafeOffer(job)) {
          return yield* busy("Too many operations are queued for this customer; retry shortly with the same reference")
        }
        // The reference held until the reply keeps the actor alive while its mailbox has work.
        return yield* Deferred.await(reply)
      }))

    /**
     * Runs `command` on the partner's customer, its row locked: in the customer's actor from outside a transaction,
     * in the caller's transaction (a savepoint after the same lock) from inside one.
     */
    const run = <A, E>(partnerId: PartnerId, customerId: CustomerId, command: Command<A, E>): Effect.Effect<A, E | RunError> => {
      // Defence in depth: ids are branded and canonical from the edge (src/api/Ids.ts), but the money core does not
      // rely on a type alone (a cast, a stored value): a malformed id is an unknown customer and never reaches SQL,
      // where it would abort a whole batch's transaction; ids are compared and keyed in canonical form.
      if (!isUuid(partnerId) || !isUuid(customerId)) return Effect.fail(CustomerForbidden.standard())
      const partner = partnerId.toLowerCase() as PartnerId
      const customer = customerId.toLowerCase() as CustomerId
      return Effect.flatMap(isInTransaction, (inside) =>
        inside ? provided(execute(partner, customer, command)) : enqueue(partner, customer, command))
    }

    /** Number of live actors (for tests and metrics). */
    const size: Effect.Effect<number> = Effect.map(RcMap.keys(actors), (keys) => keys.length)

    /** Batches and commands run by actors since start (for tests and metrics). */
    const statsNow: Effect.Effect<ActorStats> = Ref.get(stats)

    /** Commands queued in all mailboxes and in the fullest one (for metrics). */
    const mailboxDepths: Effect.Effect<{ readonly total: number; readonly max: number }> = Effect.sync(() => {
      let total = 0
      let max = 0
      for (const mailbox of mailboxes) {
        const depth = Math.max(0, mailbox.unsafeSize().pipe(Option.getOrElse(() => 0)))
        total += depth
        max = Math.max(max, depth)
      }
      return { total, max }
    })

    return { run, size, stats: statsNow, mailboxDepths } as const
  }),
  dependencies: [CustomersRepo.CustomersRepo.Default]
}) {}

export const layer = CustomerActors.Default
