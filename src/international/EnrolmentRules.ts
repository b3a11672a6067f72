import type { RecordStatus } from "../kyc/Api.js"
import { type Asset, toNumber } from "../money/Money.js"
import { type DestinationGroup, type DestinationGroupKey, destinationGroupOfCountry, destinationGroups } from "../reference/Groups.js"
import type { GroupAction, GroupRegistrationFee, GroupStatus, InternationalGroup } from "./Api.js"
import type { EnrolmentRow } from "./EnrolmentsRepo.js"

/** Pure rules of international enrolment (docs/international.md "Enrolment"): views, tier 3's status, planning. */

export type CustomerType = "INDIVIDUAL" | "BUSINESS"

/** The group's fee for a customer type, as read from the group. */
export const feeOf = (group: DestinationGroup, customerType: CustomerType) =>
  customerType === "BUSINESS" ? group.registrationFee.business : group.registrationFee.individual

/**
 * Tier 3's status from the groups (docs/contract.md "Verification summary": tier 3 follows the payout partners'
 * partners"): APPROVED when a group is approved; else REVIEW, else PENDING when one is; else REJECTED (a group
 * REJECTED or NEEDS_ATTENTION, with the most recently changed one's reason); null when no group was ever touched.
 */
export const tierStatusOf = (
  rows: ReadonlyArray<EnrolmentRow>
): { readonly status: RecordStatus; readonly reason: string | null } | null => {
  for (const status of ["APPROVED", "REVIEW", "PENDING"] as const) {
    if (rows.some((row) => row.status === status)) return { status, reason: null }
  }
  const refused = [...rows].filter((row) => row.reason !== null).sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
  return refused.length === 0 ? null : { status: "REJECTED", reason: refused[0]!.reason }
}

/** What the customer should do next for a group (null: nothing, wait, or read the reason). */
export const actionOf = (status: GroupStatus, eligible: boolean): GroupAction | null => {
  switch (status) {
    case "NOT_STARTED":
      return eligible ? "SUBMIT_TIER3" : "COMPLETE_TIER2"
    case "REJECTED":
      return "RESUBMIT_TIER3"
    default:
      return null
  }
}

export interface ViewContext {
  readonly eligible: boolean
  readonly customerType: CustomerType
  /** Who pays a fee not charged yet: the partner's setting now. */
  readonly partnerPays: boolean
}

export const feeView = (group: DestinationGroup, row: EnrolmentRow | undefined, context: ViewContext): GroupRegistrationFee => {
  const fee = feeOf(group, row?.customerType ?? context.customerType)
  const committed = row !== undefined && (row.feeStatus === "HELD" || row.feeStatus === "PAID") && row.feePaidBy !== null
  const paid = row?.feeStatus === "PAID"
  return {
    amount: fee.amount,
    currency: fee.currency,
    paidBy: committed ? row.feePaidBy! : context.partnerPays ? "PARTNER" : "CUSTOMER",
    paid,
    charged: paid && row.feeAmount !== null && row.feeCurrency !== null
      ? { amount: String(toNumber(row.feeCurrency as Asset, row.feeAmount)), currency: row.feeCurrency }
      : null
  }
}

export const groupView = (group: DestinationGroup, row: EnrolmentRow | undefined, context: ViewContext): InternationalGroup => {
  const status: GroupStatus = row?.status ?? "NOT_STARTED"
  return {
    key: group.key,
    payoutPartner: group.payoutPartnerName,
    status,
    countries: group.countries,
    optedInCountries: row?.optedInCountries ?? [],
    ...(row?.reason === null || row?.reason === undefined ? {} : { reason: row.reason }),
    action: actionOf(status, context.eligible),
    registrationFee: feeView(group, row, context)
  }
}

/** What a Tier 3 submission does to one group. */
export type GroupPlan =
  /** Send to the payout partner; `first`: no submission of the group reached creation yet, so the fee applies. */
  | { readonly _tag: "Send"; readonly group: DestinationGroup; readonly first: boolean }
  /** APPROVED: the new destination country is only recorded. */
  | { readonly _tag: "Record"; readonly group: DestinationGroup }
  /** Awaiting the partner's decision (PENDING or REVIEW): left alone. */
  | { readonly _tag: "Awaiting"; readonly group: DestinationGroup }

/** A group's plan for a submission, from its row. */
export const planGroup = (group: DestinationGroup, row: EnrolmentRow | undefined): GroupPlan => {
  if (row === undefined) return { _tag: "Send", group, first: true }
  switch (row.status) {
    case "APPROVED":
      return { _tag: "Record", group }
    case "PENDING":
    case "REVIEW":
      return { _tag: "Awaiting", group }
    default:
      // A group never sent (only marked NEEDS_ATTENTION) or withdrawn before creation still owes its first fee.
      return { _tag: "Send", group, first: row.feeStatus === "NONE" }
  }
}

/** The groups a submission concerns: `destinationCountry`'s group, or every group when it names none. */
export const targetGroups = (destinationCountry: string | undefined): ReadonlyArray<DestinationGroup> => {
  if (destinationCountry === undefined) return destinationGroups
  const group = destinationGroupOfCountry(destinationCountry)
  return group === undefined ? [] : [group]
}

export const groupKeyOrder = (key: DestinationGroupKey) => destinationGroups.findIndex((group) => group.key === key)
