import { Effect, Option } from "effect"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import { Kyc } from "../kyc/Kyc.js"
import { type DestinationGroupKey, destinationGroups, findDestinationGroup } from "../reference/Groups.js"
import type { InternationalStatus } from "./Api.js"
import { groupView, tierStatusOf, type ViewContext } from "./EnrolmentRules.js"
import * as EnrolmentsRepo from "./EnrolmentsRepo.js"
import * as InternationalRepo from "./InternationalRepo.js"

/**
 * What every enrolment command reads and writes (src/international/Enrolments.ts): the customer's rows with the
 * context of their views, the status view, the write of a row with its `international.group_updated` event and
 * tier 3's record kept in step with the groups. Each runs in the caller's transaction (the customer's actor).
 */

export const eventTypes = {
  groupUpdated: "international.group_updated",
  enabled: "global_send.enabled"
} as const

export type Repo = Effect.Effect.Success<typeof EnrolmentsRepo.make>

/** The customer's status in every group, from its rows. */
export const statusView = (rows: ReadonlyArray<EnrolmentsRepo.EnrolmentRow>, context: ViewContext): InternationalStatus => {
  const groups = destinationGroups.map((group) => groupView(group, rows.find((row) => row.groupKey === group.key), context))
  return {
    eligible: context.eligible,
    customerType: context.customerType,
    groups,
    registrationFee: groups.find((group) => group.key === "americas_europe")!.registrationFee
  }
}

export const make = (repo: Repo) =>
  Effect.gen(function*() {
    const settings = yield* InternationalRepo.InternationalRepo
    const outbox = yield* Outbox
    const kyc = yield* Kyc

    const partnerPays = (partnerId: string) =>
      Effect.map(settings.find(partnerId), Option.match({ onNone: () => false, onSome: (row) => row.paysForCustomers }))

    /** Everything a view needs, read in the caller's transaction. */
    const contextOf = (customer: Customer) =>
      Effect.gen(function*() {
        const rows = yield* repo.ofCustomer(customer.id)
        const latest = yield* kyc.latestTier3(customer.id)
        const context: ViewContext = {
          eligible: (yield* kyc.tierStatus(customer.id, 2)) === "APPROVED",
          customerType: latest?.details.customerType === "BUSINESS" ? "BUSINESS" : "INDIVIDUAL",
          partnerPays: yield* partnerPays(customer.partnerId)
        }
        return { rows, latest, context }
      })

    const currentStatus = (customer: Customer) =>
      Effect.map(contextOf(customer), ({ context, rows }) => statusView(rows, context))

    /** Writes a row (new or changed) and its `international.group_updated` event; answers the row and the event id. */
    const save = (
      customer: Customer,
      row: EnrolmentsRepo.NewEnrolmentRow,
      isNew: boolean,
      context: ViewContext
    ) =>
      Effect.gen(function*() {
        const saved = yield* (isNew ? repo.insert(row) : repo.update(row))
        const group = findDestinationGroup(saved.groupKey)!
        const event = yield* outbox.record({
          partnerId: customer.partnerId,
          customerId: customer.id,
          type: eventTypes.groupUpdated,
          data: { customerId: customer.id, enrolmentId: saved.id, ...groupView(group, saved, context) }
        })
        return { row: saved, eventId: event.envelope.id }
      })

    /** After enrolments changed: tier 3's record follows the groups. */
    const syncTier = (customerId: string) =>
      Effect.gen(function*() {
        const tier = tierStatusOf(yield* repo.ofCustomer(customerId))
        if (tier !== null) yield* kyc.syncTier3(customerId, tier.status, tier.reason)
      })

    /** The customer's row of a group, if any. */
    const rowOfGroup = (customerId: string, group: DestinationGroupKey) =>
      Effect.map(repo.ofCustomer(customerId), (rows) => rows.find((row) => row.groupKey === group))

    return { repo, contextOf, currentStatus, save, syncTier, rowOfGroup } as const
  })

export type EnrolmentStore = Effect.Effect.Success<ReturnType<typeof make>>
