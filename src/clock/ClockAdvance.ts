import * as Command from "../observability/Command.js"
import { Effect } from "effect"
import { Jobs } from "../jobs/Jobs.js"
import { WebhookDispatcher } from "../webhooks/WebhookDispatcher.js"
import { ServiceClock } from "./ServiceClock.js"

/** Runs one worker's drain after an advance; a failure is logged, and the next drain still runs. */
const drainOrLog = (drain: Effect.Effect<unknown>) =>
  drain.pipe(Effect.asVoid, Effect.catchAllCause((cause) => Effect.logError("drain after clock advance failed", cause)))

/**
 * "Advance the partner's clock, then run what became due": what `POST /sandbox/clock/advance` (and so the scenario
 * runner and the TUI) does. It moves the current fiber's partner's clock (`ServiceClock.advance`; the instance's
 * when the fiber acts for no partner), then drains the time-driven workers in order: the jobs due by the new time
 * (`Jobs.runDue`), then the webhook attempts due by then, those events of the jobs just run included
 * (`WebhookDispatcher.drain`). When it returns, everything due by the new time has run. Each drain selects due work
 * by each row's partner's own clock, so one partner's advance runs only work that its new time (or an untouched
 * clock of another partner) makes due.
 */
export class ClockAdvance extends Effect.Service<ClockAdvance>()("ClockAdvance", {
  effect: Effect.gen(function*() {
    const clock = yield* ServiceClock
    const jobs = yield* Jobs
    const dispatcher = yield* WebhookDispatcher

    /** Moves the clock `seconds` forward, runs what became due, and returns the clock's reading after the drains. */
    const advance = Command.fn("ClockAdvance.advance")(function*(seconds: number) {
      yield* clock.advance(seconds)
      yield* drainOrLog(jobs.runDue)
      yield* drainOrLog(dispatcher.drain)
      return yield* clock.now
    })

    return { advance } as const
  }),
  dependencies: [Jobs.Default, WebhookDispatcher.Default]
}) {}

export const layer = ClockAdvance.Default
