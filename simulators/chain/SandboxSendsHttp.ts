import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../src/Api.js"
import { Customers } from "../../src/customers/Customers.js"
import { withCustomer } from "../../src/api/Ids.js"
import { Ids } from "../../src/ids/Ids.js"
import { Sends } from "../../src/sends/Sends.js"
import { randomTxHash } from "./ChainSimulator.js"

/**
 * The simulated chain's answers to a send, given by hand: `POST /sandbox/customers/{id}/sends/{reference}/confirm`
 * and `.../fail { reason }`. A confirm mines it with a fresh hash in the network's format; a fail of any cause but
 * `rejected` carries a hash too (the transaction reached the network).
 */
export const SandboxSendsHttp = HttpApiBuilder.group(Api, "sandboxSends", (handlers) =>
  Effect.gen(function*() {
    const sends = yield* Sends
    const customers = yield* Customers
    const ids = yield* Ids
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)
    const hashFor = (customerId: string, reference: string) =>
      Effect.flatMap(owned(customerId), (customer) =>
        Effect.map(
          sends.get(customer, reference),
          (send) => ({ customer, network: send.network })
        ))
    return handlers
      .handle("confirm", ({ path }) =>
        Effect.gen(function*() {
          const { customer, network } = yield* hashFor(path.customerId, path.reference)
          const txHash = yield* Effect.provideService(randomTxHash(network), Ids, ids)
          return yield* sends.settleByReference(customer, path.reference, { _tag: "Confirmed", txHash })
        }))
      .handle("fail", ({ path, payload }) =>
        Effect.gen(function*() {
          const { customer, network } = yield* hashFor(path.customerId, path.reference)
          const txHash = payload.reason === "rejected" ? null : yield* Effect.provideService(randomTxHash(network), Ids, ids)
          return yield* sends.settleByReference(customer, path.reference, { _tag: "Failed", cause: payload.reason, txHash })
        }))
  }))
