import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, String as Str } from "effect"
import { migrate } from "../../src/db/Database.js"

/** Applies the service's migrations to a PostgreSQL template database (PGlite: `migratedPgliteTemplate`). */
export const migrateTemplate = (target: { readonly url: string }) => {
  const client = PgClient.layer({
    transformResultNames: Str.snakeToCamel,
    transformQueryNames: Str.camelToSnake,
    url: Redacted.make(target.url),
    maxConnections: 1
  })
  return Effect.runPromise(migrate.pipe(Effect.provide(Layer.orDie(client)), Effect.asVoid))
}
