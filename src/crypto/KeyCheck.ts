import { SqlClient } from "@effect/sql"
import { Data, Effect, Layer } from "effect"
import { orDieOnSql } from "../db/Rows.js"
import { Keys } from "./Keys.js"

/**
 * Instances that could not read each other's sealed data never serve together. Webhook secrets are sealed, cursors
 * and console tokens signed, and the demo partner's key derived with the master key (src/crypto/Keys.ts); an
 * instance started with another key would fail every delivery it claims, refuse the other's cursors and tokens, and
 * create a second demo key. So the first instance records its key's fingerprint in the database, and every later
 * start compares: another key stops the start with `EncryptionKeyMismatch` (src/main.ts prints one line naming
 * ENCRYPTION_KEY and exits 78). In every mode, a generated sandbox key (DATA_DIR/encryption.key) included.
 */
export class EncryptionKeyMismatch extends Data.TaggedError("EncryptionKeyMismatch")<{
  readonly recordedAt: Date
}> {
  override get message() {
    return "ENCRYPTION_KEY: this database's data was sealed with another key (first used " +
      `${this.recordedAt.toISOString()}); start every instance with the same ENCRYPTION_KEY ` +
      "(docs/operations.md \"Several instances\")"
  }
}

/** Records the key's fingerprint (the first start) or checks it (every later one). */
export const checkKey = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const keys = yield* Keys
  const [recorded] = yield* sql<{ fingerprint: string; recordedAt: Date }>`
    WITH inserted AS (
      INSERT INTO key_fingerprint (id, fingerprint) VALUES (1, ${keys.fingerprint})
      ON CONFLICT (id) DO NOTHING
      RETURNING fingerprint, recorded_at
    )
    SELECT fingerprint, recorded_at FROM inserted
    UNION ALL
    SELECT fingerprint, recorded_at FROM key_fingerprint WHERE NOT EXISTS (SELECT 1 FROM inserted)`.pipe(orDieOnSql)
  if (recorded !== undefined && recorded.fingerprint !== keys.fingerprint) {
    return yield* new EncryptionKeyMismatch({ recordedAt: new Date(recorded.recordedAt) })
  }
}).pipe(Effect.withSpan("KeyCheck.checkKey"))

/** The check, run once while the services' layer is built (src/App.ts). */
export const layer = Layer.effectDiscard(checkKey)
