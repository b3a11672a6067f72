/**
 * The job a rail adapter hands back for a payout or a broadcast, instead of writing it: the caller writes it with its
 * money command's journal statement (src/jobs/Jobs.ts `carry`), so it exists exactly when the command's writes do,
 * at no round trip of its own. A simulator's job answers with the outcome its policy chose; an adapter that calls out
 * over the network would make the call from such a job, so nothing is sent for a command that was not written.
 */
export interface RailJob {
  readonly kind: string
  readonly partnerId: string
  readonly customerId: string
  /** Seconds from now on the partner's clock. */
  readonly delaySeconds: number
  readonly payload: Record<string, unknown>
}
