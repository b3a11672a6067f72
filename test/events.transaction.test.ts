import { SqlClient } from "@effect/sql"
import { Effect, PubSub, Queue } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventBus, Outbox, transaction } from "../src/events/Events.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
let partnerId: string

beforeAll(async () => {
  app = await startTestApp()
  partnerId = (await app.newPartner()).partnerId
})
afterAll(() => app?.close())

describe("transaction and the event bus", () => {
  it("publishes after commit only the events of savepoints that succeeded", async () => {
    const published = await app.run(Effect.scoped(Effect.gen(function*() {
      const outbox = yield* Outbox
      const subscription = yield* PubSub.subscribe(yield* EventBus)
      const record = (type: string) => outbox.record({ partnerId, type, data: { partnerId } })
      yield* transaction(Effect.gen(function*() {
        yield* record("test.outer")
        // An inner failure the caller recovers from: its event was rolled back and must not be published.
        yield* transaction(Effect.zipRight(record("test.rolled_back"), Effect.fail("inner failed" as const))).pipe(
          Effect.catchAll(() => Effect.void)
        )
        yield* transaction(record("test.inner_kept"))
      }))
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ type: string }>`SELECT type FROM events WHERE type LIKE 'test.%' ORDER BY seq`
      const events = yield* Queue.takeAll(subscription)
      return { stored: stored.map((row) => row.type), published: [...events].map((event) => event.envelope.type) }
    })))
    expect(published.stored).toEqual(["test.outer", "test.inner_kept"])
    expect(published.published.filter((type) => type.startsWith("test."))).toEqual(["test.outer", "test.inner_kept"])
  })

  it("publishes nothing when the outer transaction fails", async () => {
    const published = await app.run(Effect.scoped(Effect.gen(function*() {
      const outbox = yield* Outbox
      const subscription = yield* PubSub.subscribe(yield* EventBus)
      yield* transaction(Effect.zipRight(
        outbox.record({ partnerId, type: "test.doomed", data: { partnerId } }),
        Effect.fail("outer failed" as const)
      )).pipe(Effect.either)
      return [...(yield* Queue.takeAll(subscription))].map((event) => event.envelope.type)
    })))
    expect(published).not.toContain("test.doomed")
    expect(await app.query("SELECT id FROM events WHERE type = 'test.doomed'")).toEqual([])
  })
})
