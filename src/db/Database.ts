import { PGlite } from "@electric-sql/pglite"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { SqlClient, SqlError } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted, String as Str } from "effect"
import * as NodeFs from "node:fs"
import Pg from "pg"
import { AppConfig } from "../config/AppConfig.js"
import { migrations } from "./migrations/index.js"
import { type PgliteMaintenance, withMaintenance } from "./Maintenance.js"
import { batchingPgConfig } from "./PgliteConnection.js"
import { trackPool, untrackPool } from "../observability/Metrics.js"

/**
 * A name converter that converts each name once: every row of a result (and every record written) carries the same
 * few hundred column names, which `Str.snakeToCamel` / `Str.camelToSnake` would rebuild character by character each
 * time (a profile of the withdrawals put `camelToSnake` at 0.9 % of the service's time). Bounded: a JSON column's
 * keys are converted too, and those are not ours to count.
 */
export const convertedOnce = (convert: (name: string) => string, max = 10_000) => {
  const converted = new Map<string, string>()
  return (name: string): string => {
    let result = converted.get(name)
    if (result === undefined) {
      result = convert(name)
      if (converted.size < max) converted.set(name, result)
    }
    return result
  }
}

const naming = {
  transformResultNames: convertedOnce(Str.snakeToCamel),
  transformQueryNames: convertedOnce(Str.camelToSnake)
} as const

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
 * PGlite behind a node-postgres pool, so that the service talks to it through the same `PgClient` (and the same
 * SQL) as to PostgreSQL. PGlite serves one connection: the pool size is 1 and transactions queue. The connection
 * hands PGlite each statement's messages in one call (src/db/PgliteConnection.ts). PGlite has no autovacuum: the
 * maintenance daemon of src/db/Maintenance.ts analyses and vacuums the tables that need it, on that connection.
 */
export const pgliteLayer = (options: PgliteOptions): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | PgliteMaintenance, SqlError.SqlError> =>
  withMaintenance(pglitePool(options))

const pglitePool = (options: PgliteOptions) =>
  PgClient.layerFromPool({
    ...naming,
    acquire: Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          if (options.dataDir !== undefined) NodeFs.mkdirSync(options.dataDir, { recursive: true })
          const db = await openPglite(options)
          // The messages of a statement reach PGlite together (src/db/PgliteConnection.ts); statements with
          // parameters are prepared once by name (PreparingClient).
          const pool = trackPool(new Pg.Pool({ ...batchingPgConfig(db), Client: PreparingClient } as unknown as Pg.PoolConfig))
          return { db, pool }
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "Could not open the embedded database" })
      }),
      ({ db, pool }) => Effect.promise(async () => {
        untrackPool(pool)
        await pool.end()
        await db.close()
      })
    ).pipe(Effect.map(({ pool }) => pool))
  })

/** Applies the migrations; the same set on PGlite and PostgreSQL. */
export const migrate = PgMigrator.run({ loader: PgMigrator.fromRecord(migrations) }).pipe(
  Effect.provide(NodeContext.layer)
)

export const MigrationsLayer = Layer.effectDiscard(migrate)

/**
 * A client over an existing PGlite instance (owned by the caller, not closed here). `prepared`: statements with
 * parameters prepared by name, as the service's own layer does (pgliteLayer).
 */
const clientOver = (db: PGlite, prepared = false) =>
  PgClient.layerFromPool({
    ...naming,
    acquire: Effect.acquireRelease(
      Effect.sync(() =>
        trackPool(new Pg.Pool({ ...batchingPgConfig(db), ...(prepared ? { Client: PreparingClient } : {}) } as unknown as Pg.PoolConfig))
      ),
      (pool) => Effect.promise(() => (untrackPool(pool), pool.end()))
    )
  })

/**
 * The service's database layer over a PGlite instance the caller opened and closes: the scenario runner reuses one
 * instance for scenario after scenario (src/db/TemplatePool.ts resets it in between). PGlite serves one session,
 * which outlives a service's pool: it starts from `DISCARD ALL`, so the statements a service before it prepared by
 * name do not collide with this one's. One service at a time per instance.
 */
export const pgliteLayerOn = (db: PGlite): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.unwrapEffect(
    Effect.tryPromise({
      try: () => db.exec("DISCARD ALL"),
      catch: (cause) => new SqlError.SqlError({ cause, message: "Could not reset the embedded database's session" })
    }).pipe(Effect.as(clientOver(db, true)))
  )

/**
 * A data-dir tarball that PGlite reads at memory speed. PGlite reads `loadDataDir` with `Blob.arrayBuffer()`, which
 * Node 20 answers by pulling the blob's store in chunks: about 330 ms of CPU for the migrated template (43 MB, most
 * of it the empty WAL segment and the two template databases PostgreSQL keeps), every time a copy is opened. This
 * Blob has the same bytes and answers `arrayBuffer()` with a copy of them it keeps (about 15 ms). A template is
 * copied for every database a test worker or the scenario runner adds to its pool.
 */
export class Tarball extends Blob {
  readonly #bytes: Uint8Array

  constructor(bytes: Uint8Array) {
    super([bytes])
    this.#bytes = bytes
  }

  /** The tarball of `blob`'s bytes (read once), or `blob` itself when it is one already. */
  static async of(blob: Blob): Promise<Tarball> {
    return blob instanceof Tarball ? blob : new Tarball(new Uint8Array(await blob.arrayBuffer()))
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    // A copy: PGlite may keep views of the buffer it is given (its file system's files).
    return Promise.resolve(this.#bytes.slice().buffer)
  }
}

/** Opens an in-memory PGlite from a data-dir tarball (migratedPgliteTemplate); the caller closes it. */
export const openPgliteCopy = (template: Blob): Promise<PGlite> => openPglite({ loadDataDir: template })

/**
 * A migrated, empty PGlite database as a data-dir tarball. Test runs and scenario runs migrate once and start every
 * database from a copy (`pgliteLayer({ loadDataDir })`): initdb and the migrations cost seconds, a copy does not.
 */
export const migratedPgliteTemplate = async (): Promise<Tarball> => {
  const db = await openPglite({})
  try {
    await Effect.runPromise(migrate.pipe(Effect.provide(Layer.orDie(clientOver(db))), Effect.asVoid))
    return await Tarball.of(await db.dumpDataDir("none"))
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

/**
 * Each text's statement name, or `null` for a text never prepared again (its prepared plan was refused: the table
 * changed under a running process). One map, so a statement costs one lookup of its text (hashing a long text is a
 * cost of its own, measured in a withdrawal's profile).
 */
const statementNames = new Map<string, string | null>()
let prepared = 0

const nameOf = (text: string): string | undefined => {
  const known = statementNames.get(text)
  if (known !== undefined) return known ?? undefined
  if (prepared >= preparedStatementsMax) return undefined
  const name = `pmm_${(prepared++).toString(36)}`
  statementNames.set(text, name)
  return name
}

/**
 * A node-postgres client that prepares statements by name: a statement run with parameters is parsed and planned
 * once per connection instead of on every execution (what pgbench's `-M prepared` does). Multi-statement texts and
 * statements without parameters run as they are. A migration applied while this process runs may change a prepared
 * `SELECT *`'s result type: PostgreSQL refuses the cached plan (SQLSTATE 0A000). That statement is then answered by
 * running its text unnamed, and its text is never prepared again in this process.
 *
 * Public API only: pg-pool's documented `Client` option, and `Client.query` with a `{ name, text, values }` config
 * (node-postgres' documented prepared statements). test/db.prepared-statements.test.ts fails if an upgrade breaks it.
 */
export class PreparingClient extends Pg.Client {
  override query(...args: Array<any>): any {
    const [config, values, callback] = args
    if (typeof config === "string" && Array.isArray(values) && values.length > 0 && typeof callback === "function") {
      const name = nameOf(config)
      if (name !== undefined) {
        return super.query({ name, text: config, values }, (error: any, result: any) => {
          if (error?.code === "0A000") {
            statementNames.set(config, null)
            return super.query(config, values, callback)
          }
          return callback(error, result)
        })
      }
    }
    return (super.query as (...a: Array<any>) => any)(...args)
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
          return trackPool(pool)
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }),
      (pool) => Effect.promise(() => (untrackPool(pool), pool.end()))
    )
  })

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
