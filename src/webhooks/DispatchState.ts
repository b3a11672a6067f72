import type * as WebhooksRepo from "./WebhooksRepo.js"

/** An attempt's outcome, with its partner and that partner's own clock offset (its times are on that clock). */
export interface Outcome {
  readonly record: WebhooksRepo.AttemptRecord
  readonly partnerId: string
  readonly partnerOffsetMs: number
}

/**
 * What this process's webhook dispatcher knows between its fibers: attempts in flight (HTTP), in all and per
 * partner; outcomes not yet written, in all and per partner; and the earliest known future due time on the
 * instance's clock (a retry this process scheduled, or the table's next one).
 */
export interface DispatchState {
  running: number
  unrecorded: number
  knownNextAt: Date | null
  readonly perPartner: Map<string, number>
  readonly unrecordedPerPartner: Map<string, number>
}

export const makeState = (): DispatchState => ({
  running: 0,
  unrecorded: 0,
  knownNextAt: null,
  perPartner: new Map(),
  unrecordedPerPartner: new Map()
})

const adjustCount = (counts: Map<string, number>, partnerId: string, delta: number) => {
  const next = (counts.get(partnerId) ?? 0) + delta
  if (next <= 0) counts.delete(partnerId)
  else counts.set(partnerId, next)
}

/** One more (or fewer) attempt in flight for the partner. */
export const adjust = (state: DispatchState, partnerId: string, delta: number) => adjustCount(state.perPartner, partnerId, delta)

/** One more (or fewer) outcome of the partner's waiting to be written. */
export const adjustUnrecorded = (state: DispatchState, partnerId: string, delta: number) => {
  state.unrecorded += delta
  adjustCount(state.unrecordedPerPartner, partnerId, delta)
}

/** Takes in the retry time of a written outcome as the next known due time when it is sooner. */
export const learnDue = (state: DispatchState, { partnerOffsetMs, record }: Outcome) => {
  if (record.nextAttemptAt === null) return
  const at = record.nextAttemptAt.getTime() - partnerOffsetMs
  const known = state.knownNextAt
  // A known time already past (it was claimed since) is replaced; the attempt time stands in for "now".
  if (known === null || known.getTime() <= record.attemptedAt.getTime() - partnerOffsetMs || at < known.getTime()) {
    state.knownNextAt = new Date(at)
  }
}

/** Nothing in flight and nothing unwritten. */
export const idle = (state: DispatchState) => state.running === 0 && state.unrecorded === 0

/** Nothing of the partner's in flight and nothing of its unwritten (other partners' attempts may be). */
export const idleFor = (state: DispatchState, partnerId: string) =>
  !state.perPartner.has(partnerId) && !state.unrecordedPerPartner.has(partnerId)
