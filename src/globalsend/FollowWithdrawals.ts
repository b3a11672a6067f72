import * as Command from "../observability/Command.js"
import { Effect, Layer, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { PayoutOutcome } from "../rails/Bank.js"
import { SettledWithdrawals } from "../withdrawals/SettledWithdrawals.js"
import type { WithdrawalRow } from "../withdrawals/WithdrawalsRepo.js"
import * as GlobalSendsRepo from "./GlobalSendsRepo.js"
import { makeRecord } from "./View.js"

/**
 * The domestic global send follows its withdrawal (Withdrawals' `SettledWithdrawals` port): completed, failed, or
 * returned by the bank (after completion too), in the withdrawal move's transaction. Needs the database, the
 * service clock and the outbox; not the GlobalSends service (which depends on Withdrawals).
 */
export const layer = Layer.effect(
  SettledWithdrawals,
  Effect.gen(function*() {
    const repo = yield* GlobalSendsRepo.GlobalSendsRepo
    const clock = yield* ServiceClock
    const record = yield* makeRecord

    const settled = Command.fn("GlobalSends.followWithdrawal")(function*(withdrawal: WithdrawalRow, move: PayoutOutcome) {
      // Only a one-off account's payout (no saved account) can be a domestic send's: no query for the others.
      if (withdrawal.bankAccountId !== null) return
      const found = yield* repo.byWithdrawal(withdrawal.id)
      if (Option.isNone(found)) return
      const row = found.value
      const status = move._tag === "Completed" ? "COMPLETED" as const : "FAILED" as const
      if (row.status === status) return
      const now = yield* clock.now
      const updated = yield* repo.setStatus(row.id, status, move._tag === "Completed" ? null : move.reason, now)
      yield* record(updated, status === "COMPLETED" ? "global_send.completed" : "global_send.failed")
    })

    return SettledWithdrawals.of({ settled })
  })
).pipe(Layer.provide(GlobalSendsRepo.GlobalSendsRepo.Default))
