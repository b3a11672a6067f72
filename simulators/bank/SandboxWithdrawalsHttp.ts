import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../src/Api.js"
import { CurrentPartner } from "../../src/api/Auth.js"
import type { PayoutOutcome } from "../../src/rails/Bank.js"
import { operatorReversalReason, Withdrawals } from "../../src/withdrawals/Withdrawals.js"

/** The simulated bank's answers to a payout, given by hand: `POST /sandbox/withdrawals/{id}/complete|fail|reverse`. */
export const SandboxWithdrawalsHttp = HttpApiBuilder.group(Api, "sandboxWithdrawals", (handlers) =>
  Effect.gen(function*() {
    const withdrawals = yield* Withdrawals
    const settle = (withdrawalId: string, outcome: PayoutOutcome) =>
      Effect.flatMap(CurrentPartner, (partner) => withdrawals.settle(partner.id, withdrawalId, outcome))
    return handlers
      // Completing or failing never credits the customer (held -> out, held -> available): no balance limit.
      .handle("complete", ({ path }) =>
        settle(path.withdrawalId, { _tag: "Completed" }).pipe(Effect.catchTag("BalanceLimitExceeded", Effect.die)))
      .handle("fail", ({ path, payload }) =>
        settle(path.withdrawalId, { _tag: "Failed", reason: payload.reason }).pipe(Effect.catchTag("BalanceLimitExceeded", Effect.die)))
      .handle("reverse", ({ path }) => settle(path.withdrawalId, { _tag: "Returned", reason: operatorReversalReason }))
  }))
