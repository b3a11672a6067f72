import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import { PayoutPartners } from "../rails/PayoutPartners.js"
import { destinationGroups } from "../reference/Groups.js"
import type { InternationalFeeSetting } from "./Api.js"
import * as InternationalRepo from "./InternationalRepo.js"

/** The groups' fees, read from the groups (src/reference/Groups.ts). */
const groupFees = destinationGroups.map((group) => ({ key: group.key, registrationFee: group.registrationFee }))

const view = (paysForCustomers: boolean, updatedAt: Date | null): InternationalFeeSetting => ({
  paysForCustomers,
  paidBy: paysForCustomers ? "PARTNER" : "CUSTOMER",
  groups: groupFees,
  updatedAt
})

/**
 * International verification, the parts that exist so far (docs/international.md): the global-send corridors a
 * customer can pay out through, read from the payout partners, and the partner's registration-fee setting (who
 * pays a customer's Tier 3 registration fee), stored per partner for the enrolment flow to read.
 */
export class International extends Effect.Service<International>()("International", {
  effect: Effect.gen(function*() {
    const repo = yield* InternationalRepo.InternationalRepo
    const customers = yield* Customers
    const payoutPartners = yield* PayoutPartners
    const clock = yield* ServiceClock

    /** The corridors for one of the partner's customers (403 for any other id), as the payout partners serve them. */
    const corridors = Command.fn("International.corridors")((partnerId: PartnerId, customerId: CustomerId) =>
      Effect.zipRight(customers.getOwned(partnerId, customerId), payoutPartners.corridors(partnerId))
    )

    /** The partner's fee setting; the default (customers pay, `updatedAt` null) until it is set. */
    const feeSetting = Command.fn("International.feeSetting")((partnerId: string) =>
      repo.find(partnerId).pipe(
        Effect.map(Option.match({
          onNone: () => view(false, null),
          onSome: (row) => view(row.paysForCustomers, row.updatedAt)
        }))
      )
    )

    /** Sets who pays the partner's customers' registration fees. */
    const setFeeSetting = Command.fn("International.setFeeSetting")(
      function*(partnerId: string, paysForCustomers: boolean) {
        const updatedAt = yield* clock.now
        const row = yield* repo.upsert({ partnerId, paysForCustomers, updatedAt })
        return view(row.paysForCustomers, row.updatedAt)
      }
    )

    return { corridors, feeSetting, setFeeSetting } as const
  }),
  dependencies: [InternationalRepo.InternationalRepo.Default, Customers.Default]
}) {}

export const layer = International.Default
