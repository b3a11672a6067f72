import { MagicAccount, magicOf } from "./NameEnquiry.js"

/**
 * The bank simulator's payouts: what the bank does with a payout to an account, given the partner's bank rail
 * policy outcome. Magic account numbers (`0000000003` fails, `0000000004` is returned; see NameEnquiry.ts) win
 * over the policy's outcome; the policy's mode and delay decide when (auto) or whether (manual) the outcome is
 * applied.
 */
export type PayoutPlan =
  | { readonly _tag: "Complete"; readonly thenReverse: boolean }
  | { readonly _tag: "Fail"; readonly reason: string }

/** Failure reason when the rail policy's outcome is `failure`. */
export const policyFailureReason = "Payout rejected by the beneficiary bank"
/** Failure reason of the magic "payout fails" account. */
export const magicFailureReason = "Beneficiary account cannot receive credits"
/** Reason recorded when the bank returns a completed payout (magic "payout reversed" account). */
export const bankReturnReason = "Returned by the beneficiary bank"

export const planPayout = (accountNumber: string, policyOutcome: "success" | "failure"): PayoutPlan => {
  const magic = magicOf(accountNumber)
  if (magic === MagicAccount.payoutFails) return { _tag: "Fail", reason: magicFailureReason }
  if (magic === MagicAccount.payoutReversed) return { _tag: "Complete", thenReverse: true }
  return policyOutcome === "failure" ? { _tag: "Fail", reason: policyFailureReason } : { _tag: "Complete", thenReverse: false }
}
