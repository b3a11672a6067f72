import { Option, Redacted } from "effect"
import * as NodeFs from "node:fs"
import { afterAll, describe, expect, inject, it } from "vitest"
import { openPgliteCopy, pgliteLayerOn, postgresLayer } from "../src/db/Database.js"
import { seededDataDir, startServer, stopServer } from "./support/ServerProcess.js"
import { startServices, type ServiceHarness } from "./support/ServiceHarness.js"
import { databaseKind, testDatabaseLayer } from "./support/TestApp.js"

/**
 * Instances that could not read each other's sealed data never serve together (src/crypto/KeyCheck.ts): the first
 * start records its key's fingerprint in the database; a start with another key is refused, one line naming
 * ENCRYPTION_KEY, exit 78 (docs/operations.md "Several instances").
 */
const keyA = "a1".repeat(32)
const keyB = "b2".repeat(32)
const cleanup: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
})

/** One database two service instances can share: a PGlite both open, or a PostgreSQL database both connect to. */
const sharedDatabase = async () => {
  if (databaseKind() === "postgres") {
    const { url } = await testDatabaseLayer()
    return { layer: postgresLayer(Redacted.make(url!), 4), url: url! }
  }
  const db = await openPgliteCopy(new Blob([NodeFs.readFileSync(inject("pgliteTemplate"))]))
  cleanup.push(() => db.close())
  return { layer: pgliteLayerOn(db) }
}

const start = (database: Awaited<ReturnType<typeof sharedDatabase>>, key: string): Promise<ServiceHarness> =>
  startServices({ database, config: { encryptionKey: Option.some(Redacted.make(key)) } })

describe("one key per database", () => {
  it("another instance (or a restart) with the same key starts; one with another key is refused, naming ENCRYPTION_KEY", async () => {
    const database = await sharedDatabase()
    // PGlite serves one session, so its instances take turns (a restart); PostgreSQL's run side by side.
    const together = databaseKind() === "postgres"
    const first = await start(database, keyA)
    if (!together) await first.close()
    const second = await start(database, keyA)
    if (!together) await second.close()
    await expect(start(database, keyB)).rejects.toThrow(/ENCRYPTION_KEY: this database's data was sealed with another key/)
    // The first key's fingerprint stays recorded: the refused start changed nothing.
    const third = await start(database, keyA)
    await third.close()
    if (together) await Promise.all([first.close(), second.close()])
  })

  it.skipIf(databaseKind() === "postgres")(
    "as processes: a sandbox start records its generated key; a restart with another ENCRYPTION_KEY exits 78 with one line",
    async () => {
      const dataDir = seededDataDir("key-check-")
      cleanup.push(async () => NodeFs.rmSync(dataDir, { recursive: true, force: true }))
      const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir }
      // (A restart with the generated key, DATA_DIR/encryption.key, starts: test/foundation.process.test.ts restarts
      // on its DATA_DIR and keeps its key.)
      const first = await startServer(env)
      expect((await stopServer(first)).code).toBe(0)
      const refused = await startServer({ ...env, ENCRYPTION_KEY: keyB }).then(
        () => expect.unreachable("a start with another key must be refused"),
        (error: Error) => error.message
      )
      expect(refused).toContain("serve exited (code 78")
      const lines = refused.split("\n").filter((line) => line.includes("ENCRYPTION_KEY"))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^ENCRYPTION_KEY: this database's data was sealed with another key \(first used \d{4}-/)
    },
    120_000
  )
})
