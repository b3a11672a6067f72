import { PGlite } from "@electric-sql/pglite"
import { NodeContext } from "@effect/platform-node"
import { SqlClient, SqlError, Statement } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted, String as Str } from "effect"
import * as NodeFs from "node:fs"
import Pg from "pg"
import { AppConfig } from "../config/AppConfig.js"
import { migrations } from "./migrations/index.js"
import { batchingPgConfig } from "./PgliteConnection.js"

const naming = { transformResultNames: Str.snakeToCamel, transformQueryNames: Str.camelToSnake } as const

export interface PgliteOptions {
  /** A directory to keep the database in; in memory when absent. */
  readonly dataDir?: string | undefined
  /** A tarball from `PGlite.dumpDataDir` to start from (tests clone one migrated template). */
  readonly loadDataDir?: Blob | undefined
  /** PostgreSQL's page cache inside PGlite's WebAssembly memory (PGLITE_SHARED_BUFFERS); `pgliteSharedBuffers` when absent. */
  readonly sharedBuffers?: string | undefined
}

/**
 * The embedded database's default page cache. initdb writes PostgreSQL's 128MB into postgresql.conf, and PGlite
 * touches all of it at start (its shared memory lives in the WebAssembly heap): about 115 MB of resident memory per
 * instance for a cache a sandbox database never fills. docs/performance-startup.md has the measurements.
 */
export const pgliteSharedBuffers = "16MB"

/**
 * PGlite's start parameters: its defaults (single-user mode, fsync off, ...) plus the page cache size. Only memory
 * sizing here, nothing that changes what a commit guarantees: synchronous_commit stays on, so a commit returns after
 * its WAL was written to the data directory's files (to the OS, not flushed to disk: PGlite runs with fsync off).
 */
const pgliteStartParams = (sharedBuffers: string): Array<string> => [
  ...PGlite.defaultStartParams,
  "-c",
  `shared_buffers=${sharedBuffers}`
]

/**
 * Opens PGlite. A new database (no PG_VERSION yet, or in memory) runs initdb in a second, temporary PGlite instance
 * whose WebAssembly memory is garbage afterwards: about 400 MB that V8 gives back only on a full collection, which an
 * idle server may not run for a long time. So after an initdb, full collections when the process exposes `gc`
 * (`npm start` runs node with --expose-gc); nothing otherwise.
 */
const openPglite = async (options: PgliteOptions): Promise<PGlite> => {
  const initdb = options.loadDataDir === undefined &&
    (options.dataDir === undefined || !NodeFs.existsSync(`${options.dataDir}/PG_VERSION`))
  const db = await PGlite.create({
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir !== undefined ? { loadDataDir: options.loadDataDir } : {}),
    startParams: pgliteStartParams(options.sharedBuffers ?? pgliteSharedBuffers)
  })
  if (initdb) collectInitdbGarbage()
  return db
}

/** The temporary instance's last references go in the next turns: a collection now and two shortly after. */
const collectInitdbGarbage = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return
  gc()
  for (const ms of [100, 1000]) setTimeout(gc, ms).unref()
}

/**
 * Statements inside a transaction run on the transaction's connection without @effect/sql's per-statement span and
 * scope (`Statement.withConnection`: a span, a `Scope`, the acquirer's context lookup, ~6 effects a statement).
 * The connection is already the transaction's, so there is nothing to acquire or release; a statement transformer
 * (`Statement.currentTransformer`, unused here) or a statement outside a transaction takes the library's path.
 * Installed once, on the statement class @effect/sql builds every statement from.
 */
let leanStatementsInstalled = false
const installLeanStatements = (sql: SqlClient.SqlClient) => {
  if (leanStatementsInstalled) return
  leanStatementsInstalled = true
  const prototype = Object.getPrototypeOf(sql`SELECT 1`) as {
    commit: (this: LeanStatement) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
  }
  const original = prototype.commit
  prototype.commit = function(this: LeanStatement) {
    return Effect.withFiberRuntime((fiber) => {
      const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      if (Option.isNone(transaction) || Option.isSome(fiber.getFiberRef(Statement.currentTransformer))) {
        return original.call(this)
      }
      const [text, params] = this.compile()
      return transaction.value[0].execute(text, params, this.transformRows)
    })
  }
}

interface LeanStatement {
  compile(): readonly [string, ReadonlyArray<unknown>]
  readonly transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
}

const withLeanStatements = <E, R>(layer: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E, R>) =>
  Layer.tap(layer, (context) => Effect.sync(() => installLeanStatements(Context.get(context, SqlClient.SqlClient))))

/**
 * PGlite behind a node-postgres pool, so that the service talks to it through the same `PgClient` (and the same
 * SQL) as to PostgreSQL. PGlite serves one connection: the pool size is 1 and transactions queue. The connection
 * hands PGlite each statement's messages in one call (src/db/PgliteConnection.ts).
 */
export const pgliteLayer = (options: PgliteOptions): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError.SqlError> =>
  PgClient.layerFromPool({
    ...naming,
    acquire: Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          if (options.dataDir !== undefined) NodeFs.mkdirSync(options.dataDir, { recursive: true })
          const db = await openPglite(options)
          // The messages of a statement reach PGlite together (src/db/PgliteConnection.ts); statements with
          // parameters are prepared once by name (PreparingClient).
          const pool = new Pg.Pool({ ...batchingPgConfig(db), Client: PreparingClient } as unknown as Pg.PoolConfig)
          return { db, pool }
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "Could not open the embedded database" })
      }),
      ({ db, pool }) => Effect.promise(async () => {
        await pool.end()
        await db.close()
      })
    ).pipe(Effect.map(({ pool }) => pool))
  }).pipe(withLeanStatements)

/** Applies the migrations; the same set on PGlite and PostgreSQL. */
export const migrate = PgMigrator.run({ loader: PgMigrator.fromRecord(migrations) }).pipe(
  Effect.provide(NodeContext.layer)
)

export const MigrationsLayer = Layer.effectDiscard(migrate)

/** A client over an existing PGlite instance (owned by the caller, not closed here). */
const clientOver = (db: PGlite) =>
  PgClient.layerFromPool({
    ...naming,
    acquire: Effect.acquireRelease(
      Effect.sync(() => new Pg.Pool(batchingPgConfig(db) as unknown as Pg.PoolConfig)),
      (pool) => Effect.promise(() => pool.end())
    )
  })

/**
 * A migrated, empty PGlite database as a data-dir tarball. Test runs and scenario runs migrate once and start every
 * database from a copy (`pgliteLayer({ loadDataDir })`): initdb and the migrations cost seconds, a copy does not.
 */
export const migratedPgliteTemplate = async (): Promise<Blob> => {
  const db = await openPglite({})
  try {
    await Effect.runPromise(migrate.pipe(Effect.provide(Layer.orDie(clientOver(db))), Effect.asVoid))
    return await db.dumpDataDir("none")
  } finally {
    await db.close()
  }
}

/**
 * Most distinct statement texts prepared by name (per process; each connection prepares a text on first use). The
 * service's statements are a few hundred fixed texts; texts beyond the bound (a multi-row insert of an unusual
 * size, say) run unnamed, as every statement did before.
 */
export const preparedStatementsMax = 400

const statementNames = new Map<string, string>()
/** Texts never prepared again: their prepared plan was refused (the table changed under a running process). */
const unpreparable = new Set<string>()

const nameOf = (text: string): string | undefined => {
  if (unpreparable.has(text)) return undefined
  const known = statementNames.get(text)
  if (known !== undefined) return known
  if (statementNames.size >= preparedStatementsMax) return undefined
  const name = `pmm_${statementNames.size.toString(36)}`
  statementNames.set(text, name)
  return name
}

/**
 * Transaction-control statements that are sent together with the statement after them instead of alone: `BEGIN`,
 * `SAVEPOINT` and `RELEASE SAVEPOINT` as @effect/sql writes them. Each would otherwise cost a round trip of its own
 * (a socket write, a wake-up of PostgreSQL, a reply to wait for) for an answer that carries nothing.
 */
const deferrable = /^(?:BEGIN|SAVEPOINT effect_sql_\d+|RELEASE SAVEPOINT effect_sql_\d+)$/

/** The parts of node-postgres' Client this one relies on (not in its type declarations). */
interface ClientInternals {
  readyForQuery: boolean
  _queryQueue: Array<unknown>
  _txStatus: string | null
  connection: { query(text: string): void; stream?: { cork?: () => void; uncork?: () => void } }
}

type Callback = (error: unknown, result?: unknown) => void

/**
 * A node-postgres client that spends fewer round trips:
 *
 * - Statements run with parameters are prepared by name, once per connection: PostgreSQL then parses and plans each
 *   text once per connection instead of on every execution (what pgbench's `-M prepared` does). Multi-statement
 *   texts and statements without parameters run as they are. A migration applied while this process runs may change
 *   a prepared `SELECT *`'s result type: PostgreSQL refuses the cached plan (SQLSTATE 0A000). That statement is then
 *   answered by running its text unnamed, and its text is never prepared again in this process.
 * - `BEGIN`, `SAVEPOINT` and `RELEASE SAVEPOINT` (`deferrable`) are answered at once and sent in the same write as
 *   the next statement, their replies consumed here before that statement's. A transaction's `BEGIN` travels with its
 *   first statement, a group-committed command's savepoint with its first statement and its release with the next
 *   one. If a deferred statement fails, the next statement reports that error (whatever its own outcome), so a
 *   failure is never lost: every transaction ends with a `COMMIT` or `ROLLBACK`, which carries any statement still
 *   deferred. A statement is deferred only while the connection is idle (nothing in flight or queued).
 */
export class PreparingClient extends Pg.Client {
  /** Deferred statements not sent yet. */
  #deferred: Array<string> = []
  /** Replies of sent deferred statements still to consume (each ends with its ReadyForQuery). */
  #unanswered = 0
  /** The first error among them, reported by the statement they were sent with. */
  #deferredError: unknown = undefined

  #release: ((error?: unknown) => void) | undefined

  /**
   * Set by pg-pool at each checkout. A client given back with a statement still deferred (or a deferred statement's
   * error not yet reported) is discarded instead of reused: its next user must never start inside a transaction it
   * did not begin. @effect/sql ends every transaction with COMMIT or ROLLBACK, so this is a safety net.
   */
  get release(): ((error?: unknown) => void) | undefined {
    return this.#release
  }

  set release(release: ((error?: unknown) => void) | undefined) {
    this.#release = release === undefined ? undefined : (error?: unknown) => {
      if ((this.#deferred.length > 0 || this.#deferredError !== undefined) && !error) {
        this.#deferred = []
        this.#deferredError = undefined
        return release(new Error("PreparingClient: released with a deferred statement not sent; the client is discarded"))
      }
      return release(error)
    }
  }

  get #internals(): ClientInternals {
    return this as unknown as ClientInternals
  }

  override query(...args: Array<any>): any {
    const [config, values, callback] = args
    const internals = this.#internals
    if (
      typeof config === "string" && deferrable.test(config) && Array.isArray(values) && values.length === 0 &&
      typeof callback === "function" && internals.readyForQuery && internals._queryQueue.length === 0
    ) {
      this.#deferred.push(config)
      callback(null, { command: config.split(" ", 1)[0], rowCount: null, rows: [], fields: [], oid: null })
      return undefined
    }
    // A statement with a callback that is sent with deferred statements, or asked after one of them failed
    // unreported, reports that error. (An error of a deferred statement sent the ordinary way is recorded before
    // the statements queued behind it finish, so the next statement asked after them reports it: at the latest the
    // transaction's COMMIT or ROLLBACK.)
    const last = args.length - 1
    const callbackOf: Callback | undefined = typeof args[last] === "function" ? args[last] : undefined
    if (callbackOf !== undefined && (this.#deferred.length > 0 || this.#deferredError !== undefined)) {
      args[last] = ((error: unknown, result?: unknown) => {
        const deferredError = this.#deferredError
        this.#deferredError = undefined
        if (deferredError !== undefined) callbackOf(deferredError)
        else callbackOf(error, result)
      }) satisfies Callback
    }
    if (this.#deferred.length === 0) return this.#run(args)
    const deferred = this.#deferred
    this.#deferred = []
    if (callbackOf === undefined || !internals.readyForQuery || internals._queryQueue.length > 0) {
      // Not the plain case (no callback to report an error to, or something in flight): the deferred statements go
      // first as ordinary queries; an error of theirs is reported by the next statement with a callback (this one,
      // when it has one).
      for (const text of deferred) {
        super.query(text, [], (error: unknown) => {
          if (error !== null && error !== undefined) this.#deferredError ??= error
        })
      }
      return this.#run(args)
    }
    const stream = internals.connection.stream
    stream?.cork?.()
    try {
      for (const text of deferred) {
        internals.connection.query(text)
        this.#unanswered++
      }
      return this.#run(args)
    } finally {
      stream?.uncork?.()
    }
  }

  #run(args: Array<any>): any {
    const [config, values, callback] = args
    if (typeof config === "string" && Array.isArray(values) && values.length > 0 && typeof callback === "function") {
      const name = nameOf(config)
      if (name !== undefined) {
        return super.query({ name, text: config, values }, (error: any, result: any) => {
          if (error?.code === "0A000") {
            unpreparable.add(config)
            return super.query(config, values, callback)
          }
          return callback(error, result)
        })
      }
    }
    return (super.query as (...a: Array<any>) => any)(...args)
  }

  // The replies of sent deferred statements come before the reply of the statement they were sent with: each is a
  // CommandComplete (or an ErrorResponse) and a ReadyForQuery, consumed here. Notices go their usual way.

  _handleCommandComplete(message: unknown): void {
    if (this.#unanswered > 0) return
    ;(Pg.Client.prototype as any)._handleCommandComplete.call(this, message)
  }

  _handleErrorMessage(message: unknown): void {
    if (this.#unanswered > 0) {
      this.#deferredError ??= message
      return
    }
    ;(Pg.Client.prototype as any)._handleErrorMessage.call(this, message)
  }

  _handleReadyForQuery(message: { status?: string } | undefined): void {
    if (this.#unanswered > 0) {
      this.#unanswered--
      this.#internals._txStatus = message?.status ?? null
      return
    }
    ;(Pg.Client.prototype as any)._handleReadyForQuery.call(this, message)
  }
}

/** PostgreSQL through a pool of `PreparingClient`s. */
export const postgresLayer = (url: Redacted.Redacted<string>, maxConnections: number) =>
  PgClient.layerFromPool({
    ...naming,
    acquire: Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const pool = new Pg.Pool({
            connectionString: Redacted.value(url),
            max: maxConnections,
            application_name: "@effect/sql-pg",
            Client: PreparingClient as unknown as typeof Pg.Client
          })
          pool.on("error", () => {})
          await pool.query("SELECT 1")
          return pool
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }),
      (pool) => Effect.promise(() => pool.end())
    )
  }).pipe(withLeanStatements)

/** The database the configuration asks for: PostgreSQL with DATABASE_URL, else PGlite in DATA_DIR. */
export const layerFromConfig: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError.SqlError, AppConfig> = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.databaseUrl, {
      onSome: (url) => postgresLayer(url, config.databasePoolSize ?? 10),
      onNone: () =>
        pgliteLayer({
          ...(config.dataDir === ":memory:" ? {} : { dataDir: `${config.dataDir}/pgdata` }),
          sharedBuffers: config.pgliteSharedBuffers
        })
    })
  )
)

/** Database plus migrations applied. */
export const layer = MigrationsLayer.pipe(Layer.provideMerge(layerFromConfig))
