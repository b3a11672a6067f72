import { Effect, Layer } from "effect"
import { PayoutPartners } from "../../src/rails/PayoutPartners.js"
import { corridors } from "../../src/reference/Corridors.js"

/**
 * The simulated payout partners behind the `PayoutPartners` port (sandbox): Meridian Payouts (`americas_europe`)
 * and Silk Road Pay (`china`), plus the African mobile-money and bank networks that need no enrolment.
 *
 * - `corridors`: every corridor of src/reference/Corridors.ts, as it is, for every partner. The `payout` rail
 *   policy does not apply: it decides outcomes (enrolment decisions, payouts), and a list has none.
 *
 * Enrolment (`PayoutEnrolments`) and payouts (`PayoutSubmissions`) are declared on the rail but built with the flows
 * that call them (the Tier 3 enrolment and global-send issues), with their jobs, magic values and sandbox controls.
 */
export const layer = Layer.succeed(
  PayoutPartners,
  PayoutPartners.of({
    corridors: () => Effect.succeed(corridors)
  })
)
