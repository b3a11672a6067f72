import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Deferred, Effect, PubSub, Schedule, Stream } from "effect"
import { Api } from "../Api.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import { EventBus } from "../events/Events.js"
import { CurrentPartner } from "../http/Auth.js"
import { Shutdown } from "../http/Shutdown.js"
import { LedgerReads } from "./LedgerReads.js"

/** Heartbeat interval of the balance stream (real time: it keeps proxies from closing an idle connection). */
const heartbeatSeconds = 15
const endOfStream = "\u0000end"

export const LedgerHttp = HttpApiBuilder.group(Api, "ledger", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const reads = yield* LedgerReads
    const bus = yield* EventBus
    const clock = yield* ServiceClock
    const shutdown = yield* Shutdown
    const owned = (customerId: string) => Effect.flatMap(CurrentPartner, (partner) => customers.getOwned(partner.id, customerId))

    const balanceStream = (customer: CustomerRow) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        // Subscribe before the first snapshot so that no change between the two is missed.
        const subscription = yield* PubSub.subscribe(bus)
        let sequence = 0
        let last = ""
        const frame = Effect.gen(function*() {
          const balances = yield* reads.balances(customer)
          const key = JSON.stringify(balances)
          if (key === last) return ""
          last = key
          sequence += 1
          const data = JSON.stringify({ customerId: customer.id, balances, at: (yield* clock.now).toISOString() })
          return `id: ${sequence}\nevent: balance\ndata: ${data}\n\n`
        })
        const changes = Stream.fromQueue(subscription).pipe(
          Stream.filter((event) => event.customerId === customer.id),
          Stream.mapEffect(() => frame)
        )
        const heartbeats = Stream.fromSchedule(Schedule.spaced(`${heartbeatSeconds} seconds`)).pipe(Stream.as(": heartbeat\n\n"))
        return Stream.concat(Stream.fromEffect(frame), changes).pipe(
          Stream.merge(heartbeats),
          Stream.filter((chunk) => chunk !== ""),
          // On shutdown the stream ends normally (the chunked response is terminated, not cut).
          Stream.merge(Stream.fromEffect(Deferred.await(shutdown)).pipe(Stream.as(endOfStream))),
          Stream.takeWhile((chunk) => chunk !== endOfStream)
        )
      }))

    return handlers
      .handle("balance", ({ path }) => Effect.flatMap(owned(path.customerId), reads.balances))
      .handle("transactions", ({ path, urlParams }) =>
        Effect.flatMap(owned(path.customerId), (customer) => reads.entries(customer, urlParams)))
      .handle("balanceStream", ({ path }) =>
        Effect.map(owned(path.customerId), (customer) =>
          HttpServerResponse.stream(balanceStream(customer).pipe(Stream.encodeText), {
            contentType: "text/event-stream",
            headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
          })))
  }))
