import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import type { Scenario, Step } from "../../scenario/Language.js"
import { loadFile } from "../../scenario/Loader.js"

/**
 * Every event type of docs/contract.md "Event types", in a fixed order, and how `npm run trigger` produces each: the flow file under
 * scenarios/triggers/ that causes it (a scenario-language file that is also a passing library scenario), whether
 * `--customer` may replace the flow's new customer, and which rail the flow answers for with a sandbox control.
 */
export const specEventTypes = [
  "customer.registered",
  "kyc.status_updated",
  "kyc.reverification_requested",
  "deposit.received",
  "funding.received",
  "withdrawal.submitted",
  "withdrawal.completed",
  "withdrawal.failed",
  "withdrawal.reversed",
  "send.pending",
  "send.confirmed",
  "send.failed",
  "send.broadcast",
  "global_send.initiated",
  "global_send.completed",
  "global_send.failed",
  "global_send.enabled",
  "sale.completed",
  "purchase.completed",
  "partner.approved",
  "partner.rejected",
  "partner.resubmission_requested",
  "webhook.test"
] as const
export type EventType = typeof specEventTypes[number]

/** The rails whose answer a flow gives by a sandbox control before the rail's own (auto) answer. */
export type ControlledRail = "bank" | "chain" | "payout"

/** Whether `--customer <id>` may stand in for the new customer the flow registers. */
export type CustomerUse =
  | { readonly reusable: true; readonly needs: string }
  | { readonly reusable: false; readonly why: string }

export type Entry =
  | {
    readonly type: EventType
    readonly producible: true
    /** The flow's file name under the flows directory. */
    readonly flow: string
    readonly customer: CustomerUse
    /** Where the events land: the calling partner, or a new sandbox partner the flow creates. */
    readonly partner: "caller" | "new"
    readonly rail?: ControlledRail | undefined
  }
  | { readonly type: EventType; readonly producible: false; readonly why: string }

/** scenarios/triggers/ of this checkout. */
export const flowsDir = NodePath.resolve(NodeUrl.fileURLToPath(new URL("../../../scenarios/triggers/", import.meta.url)))

const anyCustomer: CustomerUse = { reusable: true, needs: "any customer of the partner" }
const tier1: CustomerUse = { reusable: true, needs: "a customer with Tier 1 approved" }
const newPartner = (why: string): CustomerUse => ({ reusable: false, why })

const flow = (type: EventType, customer: CustomerUse, extra: { partner?: "caller" | "new"; rail?: ControlledRail } = {}): Entry =>
  ({ type, producible: true, flow: `${type}.yaml`, customer, partner: extra.partner ?? "caller", rail: extra.rail })

const kybWhy = "KYB decisions apply to the partner that calls: the flow creates a new sandbox partner (no customer)"

export const catalog: ReadonlyArray<Entry> = [
  flow("customer.registered", newPartner("the event is the registration of a new customer")),
  flow("kyc.status_updated", { reusable: true, needs: "a customer whose Tier 1 is NOT_STARTED or REJECTED" }),
  flow("kyc.reverification_requested", anyCustomer),
  flow("deposit.received", anyCustomer),
  flow("funding.received", tier1),
  flow("withdrawal.submitted", tier1),
  flow("withdrawal.completed", tier1, { rail: "bank" }),
  flow("withdrawal.failed", tier1, { rail: "bank" }),
  flow("withdrawal.reversed", tier1, { rail: "bank" }),
  flow("send.pending", anyCustomer),
  flow("send.confirmed", anyCustomer, { rail: "chain" }),
  flow("send.failed", anyCustomer, { rail: "chain" }),
  {
    type: "send.broadcast",
    producible: false,
    why: "deprecated (docs/contract.md, Event types and Versioning): sent only for sends submitted before the change, on retries of " +
      "their deliveries; the service never emits it for a new send, so no flow can cause one (send.pending, " +
      "send.confirmed and send.failed are what a send emits now)"
  },
  flow("global_send.initiated", tier1),
  flow("global_send.completed", tier1, { rail: "payout" }),
  flow("global_send.failed", tier1, { rail: "payout" }),
  flow("global_send.enabled", { reusable: true, needs: "a customer with Tier 2 approved, not yet enabled for the group" }, { rail: "payout" }),
  flow("sale.completed", { reusable: true, needs: "any customer of the partner (set currency to its own currency)" }),
  flow("purchase.completed", tier1),
  flow("partner.approved", newPartner(kybWhy), { partner: "new" }),
  flow("partner.rejected", newPartner(kybWhy), { partner: "new" }),
  flow("partner.resubmission_requested", newPartner(kybWhy), { partner: "new" }),
  flow("webhook.test", newPartner("setting a webhook URL replaces the caller's URL and secret: the flow creates a new sandbox partner"), { partner: "new" })
]

export const findEntry = (type: string): Entry | undefined => catalog.find((entry) => entry.type === type)

/** Edit distance (insertions, deletions, substitutions). */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** The known type nearest a mistyped one, if it is near (a typo, not another word). */
export const closest = (type: string): string | undefined => {
  const ranked = catalog.map((entry) => ({ type: entry.type, d: distance(type.toLowerCase(), entry.type) })).sort((x, y) => x.d - y.d)
  return ranked[0] !== undefined && ranked[0].d <= 3 ? ranked[0].type : undefined
}

/** The include that registers the flow's new customer: skipped when `--customer` names one. */
export const isCustomerStage = (step: Step): boolean => step.kind === "include" && step.spec.include.startsWith("customers/")

/** A flow's summary: its scenario name after "<type> - ". */
export const summaryOf = (scenario: Scenario): string => scenario.name.replace(/^[a-z_.]+ - /, "")

export type LoadedFlow =
  | { readonly _tag: "Flow"; readonly scenario: Scenario }
  | { readonly _tag: "Invalid"; readonly message: string }

export const loadFlow = (entry: Extract<Entry, { producible: true }>, dir: string = flowsDir): LoadedFlow => {
  const loaded = loadFile(NodePath.join(dir, entry.flow))
  if (loaded._tag === "Scenario") return { _tag: "Flow", scenario: loaded.scenario }
  if (loaded._tag === "Fixture") return { _tag: "Invalid", message: `${loaded.file} is a fixture, not a flow` }
  return { _tag: "Invalid", message: loaded.errors.map((e) => `${e.file}:${e.line}:${e.column}  ${e.message}`).join("\n") }
}
