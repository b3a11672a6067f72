import { Context, type Effect } from "effect"
import type { PayoutOutcome } from "../rails/Bank.js"
import type { WithdrawalRow } from "./WithdrawalsRepo.js"

/**
 * Who follows a withdrawal's settlement (a port Withdrawals requires; the domestic global send implements it in
 * src/globalsend/FollowWithdrawals.ts). `settled` is called by `Withdrawals.settle` in the move's transaction, the
 * customer locked, after the move's `withdrawal.*` event and its ledger entries, with the updated row.
 */
export class SettledWithdrawals extends Context.Tag("SettledWithdrawals")<SettledWithdrawals, {
  readonly settled: (withdrawal: WithdrawalRow, move: PayoutOutcome) => Effect.Effect<void>
}>() {}
