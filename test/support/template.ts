import type { PGlite } from "@electric-sql/pglite"
import { createPgConfig } from "@electric-sql/pglite/node-postgres"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, String as Str } from "effect"
import Pg from "pg"
import { migrate } from "../../src/db/Database.js"

/** Applies the service's migrations to a template database (PGlite instance or PostgreSQL URL). */
export const migrateTemplate = (target: { readonly pglite: PGlite } | { readonly url: string }) => {
  const naming = { transformResultNames: Str.snakeToCamel, transformQueryNames: Str.camelToSnake }
  const client = "pglite" in target
    ? PgClient.layerFromPool({
      ...naming,
      acquire: Effect.acquireRelease(
        Effect.sync(() => new Pg.Pool(createPgConfig(target.pglite) as unknown as Pg.PoolConfig)),
        (pool) => Effect.promise(() => pool.end())
      )
    })
    : PgClient.layer({ ...naming, url: Redacted.make(target.url), maxConnections: 1 })
  return Effect.runPromise(migrate.pipe(Effect.provide(Layer.orDie(client)), Effect.asVoid))
}
