import { Context, Effect, Layer, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { CustomerForbidden } from "../api/ApiError.js"
import type { PayoutRailUnavailable } from "../rails/Errors.js"
import { PayoutPartners } from "../rails/PayoutPartners.js"
import type { Corridor } from "../reference/Corridors.js"
import { destinationGroups } from "../reference/Groups.js"
import type { InternationalFeeSetting } from "./Api.js"
import * as InternationalRepo from "./InternationalRepo.js"

/**
 * International verification, the parts that exist so far (docs/international.md): the global-send corridors a
 * customer can pay out through, read from the payout partners, and the partner's registration-fee setting (who
 * pays a customer's Tier 3 registration fee), stored per partner for the enrolment flow to read.
 */
export class International extends Context.Tag("International")<International, {
  /** The corridors for one of the partner's customers (403 for any other id), as the payout partners serve them. */
  readonly corridors: (
    partnerId: string,
    customerId: string
  ) => Effect.Effect<ReadonlyArray<Corridor>, CustomerForbidden | PayoutRailUnavailable>
  /** The partner's fee setting; the default (customers pay, `updatedAt` null) until it is set. */
  readonly feeSetting: (partnerId: string) => Effect.Effect<InternationalFeeSetting>
  readonly setFeeSetting: (partnerId: string, paysForCustomers: boolean) => Effect.Effect<InternationalFeeSetting>
}>() {}

/** The groups' fees, read from the groups (src/reference/Groups.ts). */
const groupFees = destinationGroups.map((group) => ({ key: group.key, registrationFee: group.registrationFee }))

const view = (paysForCustomers: boolean, updatedAt: Date | null): InternationalFeeSetting => ({
  paysForCustomers,
  paidBy: paysForCustomers ? "PARTNER" : "CUSTOMER",
  groups: groupFees,
  updatedAt
})

export const layer = Layer.effect(
  International,
  Effect.gen(function*() {
    const repo = yield* InternationalRepo.make
    const customers = yield* Customers
    const payoutPartners = yield* PayoutPartners
    const clock = yield* ServiceClock

    return International.of({
      corridors: (partnerId, customerId) =>
        Effect.zipRight(customers.getOwned(partnerId, customerId), payoutPartners.corridors(partnerId)),
      feeSetting: (partnerId) =>
        repo.find(partnerId).pipe(
          Effect.map(Option.match({
            onNone: () => view(false, null),
            onSome: (row) => view(row.paysForCustomers, row.updatedAt)
          })),
          Effect.orDie
        ),
      setFeeSetting: (partnerId, paysForCustomers) =>
        Effect.gen(function*() {
          const updatedAt = yield* clock.now
          const row = yield* repo.upsert({ partnerId, paysForCustomers, updatedAt })
          return view(row.paysForCustomers, row.updatedAt)
        }).pipe(Effect.orDie)
    })
  })
)
