import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, PubSub, Stream } from "effect"
import { Api } from "../Api.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { Customer } from "../customers/Customer.js"
import { EventBus } from "../events/Events.js"
import { CurrentPartner } from "../api/Auth.js"
import { withCustomer } from "../api/Ids.js"
import * as ServerSentEvents from "../http/ServerSentEvents.js"
import { LedgerReads } from "./LedgerReads.js"


export const LedgerHttp = HttpApiBuilder.group(Api, "ledger", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const reads = yield* LedgerReads
    const bus = yield* EventBus
    const clock = yield* ServiceClock
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)

    const balanceStream = (customer: Customer) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        // Subscribe before the first snapshot so that no change between the two is missed.
        const subscription = yield* PubSub.subscribe(bus)
        let sequence = 0
        let last = ""
        const snapshot = Effect.gen(function*() {
          const balances = yield* reads.balances(customer)
          const key = JSON.stringify(balances)
          if (key === last) return ""
          last = key
          sequence += 1
          const data = { customerId: customer.id, balances, at: (yield* clock.now).toISOString() }
          return ServerSentEvents.frame({ id: sequence, event: "balance", data })
        })
        const changes = Stream.fromQueue(subscription).pipe(
          Stream.filter((event) => event.customerId === customer.id),
          Stream.mapEffect(() => snapshot)
        )
        return Stream.concat(Stream.fromEffect(snapshot), changes).pipe(Stream.filter((chunk) => chunk !== ""))
      }))

    return handlers
      .handle("balance", ({ path }) => withCustomer(path.customerId, reads.ownedBalances))
      .handle("transactions", ({ path, urlParams }) =>
        Effect.flatMap(owned(path.customerId), (customer) => reads.entries(customer, urlParams)))
      .handle("balanceStream", ({ path }) =>
        Effect.flatMap(owned(path.customerId), (customer) => ServerSentEvents.response(balanceStream(customer))))
  }))

/** Sandbox: the partner's customers with available and held per currency (`GET /sandbox/balances`). */
export const SandboxLedgerHttp = HttpApiBuilder.group(Api, "sandboxLedger", (handlers) =>
  Effect.map(LedgerReads, (reads) =>
    handlers.handle("balances", ({ urlParams }) =>
      Effect.flatMap(CurrentPartner, (partner) => reads.customerBalances(partner.id, urlParams)))))
