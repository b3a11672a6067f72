import type { DataMatch, StoredEvent } from "../events/Events.js"

/**
 * Which resource an event is about, for the event chain (`GET /sandbox/events/{eventId}`). First choice: the
 * ledger transaction recorded with the event (`ledger_transactions.event_id`: its `resource_type` and
 * `resource_id`). An event that moved no money names its resource in its `data`, by type, as this table says
 * (docs/sandbox-inspect.md shows it). A type in neither place (`webhook.test`, `deposit.unsupported`) has no
 * resource.
 */
export interface ResourceRule {
  /** The event type, or with `prefix` every type that starts with it. */
  readonly type: string
  readonly prefix: boolean
  readonly resourceType: string
  /** The `data` field holding the resource's id. */
  readonly key: string
}

export const resourceRules: ReadonlyArray<ResourceRule> = [
  { type: "withdrawal.", prefix: true, resourceType: "withdrawal", key: "id" },
  { type: "funding.charge_", prefix: true, resourceType: "funding_charge", key: "id" },
  { type: "kyc.status_updated", prefix: false, resourceType: "kyc_record", key: "kycId" },
  { type: "customer.registered", prefix: false, resourceType: "customer", key: "customerId" },
  { type: "kyc.reverification_requested", prefix: false, resourceType: "customer", key: "customerId" },
  { type: "partner.", prefix: true, resourceType: "partner", key: "partnerId" },
  { type: "send.", prefix: true, resourceType: "send", key: "id" },
  { type: "purchase.completed", prefix: false, resourceType: "trade", key: "quoteId" },
  { type: "sale.completed", prefix: false, resourceType: "trade", key: "quoteId" },
  { type: "international.group_updated", prefix: false, resourceType: "international_enrolment", key: "enrolmentId" },
  { type: "global_send.enabled", prefix: false, resourceType: "customer", key: "customerId" }
]

const matches = (rule: ResourceRule, type: string) => (rule.prefix ? type.startsWith(rule.type) : type === rule.type)

/** The resource an event's data names, by the table above. */
export const resourceFromData = (event: StoredEvent): { readonly type: string; readonly id: string } | undefined => {
  const rule = resourceRules.find((candidate) => matches(candidate, event.envelope.type))
  const id = rule === undefined ? undefined : event.envelope.data[rule.key]
  return rule === undefined || typeof id !== "string" || id === "" ? undefined : { type: rule.resourceType, id }
}

/** How to find the other events naming a resource of `resourceType` in their data. */
export const dataMatchesOf = (resourceType: string, resourceId: string): ReadonlyArray<DataMatch> =>
  resourceRules
    .filter((rule) => rule.resourceType === resourceType)
    .map((rule) => ({ type: rule.type, prefix: rule.prefix, key: rule.key, value: resourceId }))
