import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Api } from "../src/Api.js"
import { Deposits } from "../src/funding/Deposits.js"
import { FundingCharges } from "../src/funding/FundingCharges.js"
import { VirtualAccounts } from "../src/funding/VirtualAccounts.js"
import { CustomerForbidden } from "../src/api/ApiError.js"
import { CurrentPartner } from "../src/api/Auth.js"
import { CustomerId, parseId, withCustomer } from "../src/api/Ids.js"
import { Ids } from "../src/ids/Ids.js"
import { randomTxHash } from "./chain/ChainSimulator.js"

/**
 * Sandbox controls that play incoming money, each entering the domain through the rail's settlement entry point
 * as a live adapter's callback would: a bank transfer to the virtual account (bank), a charge's payment (bank),
 * a confirmed on-chain deposit (chain; the simulated chain makes up the transaction hash when none is given).
 */
export const SandboxFundingHttp = HttpApiBuilder.group(Api, "sandboxFunding", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* VirtualAccounts
    const charges = yield* FundingCharges
    const deposits = yield* Deposits
    const ids = yield* Ids
    return handlers
      .handle("creditVirtualAccount", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => accounts.credit(partnerId, customerId, payload)))
      .handle("payCharge", ({ path, payload }) =>
        Effect.flatMap(CurrentPartner, (partner) => charges.settle(partner.id, path.chargeId, payload.amount)))
      .handle("deposit", ({ path, payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const txHash = payload.txHash ?? (yield* Effect.provideService(randomTxHash(payload.network), Ids, ids))
          const input = { ...payload, txHash }
          // The deposit's own checks come first, then the customer (a malformed id: 403 like an unknown one).
          return yield* Option.match(parseId(CustomerId, path.customerId), {
            onNone: () => Effect.zipRight(deposits.check(input), Effect.fail(CustomerForbidden.standard())),
            onSome: (customerId) => deposits.receive(partner.id, customerId, input)
          })
        }))
  }))
