import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { example, exampleOf, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { KycDocumentNotFound, KycPreviousTierNotApproved, KycRecord, KycStatus, KycTierAlreadyApproved, KycTierAwaitingDecision } from "../kyc/Api.js"
import { CustomerBusy } from "../ledger/Errors.js"
import { Envelope } from "../api/Envelope.js"
import { PayoutRailUnavailable } from "../rails/Errors.js"
import { Corridor } from "../reference/Corridors.js"
import { DestinationGroupKey, RegistrationFees } from "../reference/Groups.js"
import { Tier3Body } from "./Tier3.js"

/**
 * International verification and global-send reference data (docs/contract.md "International verification", "Corridor",
 * "Partner fee setting", "International status", "International group status"): the corridor list, the partner's
 * registration-fee setting, the Tier 3 submission, international status, resend and reject, and the payout partners'
 * decisions by hand (sandbox). Decisions: docs/international.md.
 */

/** One destination group's registration fees, as the fee setting lists them. */
export const GroupRegistrationFees = Schema.Struct({
  key: DestinationGroupKey,
  registrationFee: RegistrationFees
})
export type GroupRegistrationFees = typeof GroupRegistrationFees.Type

/** docs/contract.md "Partner fee setting": whether the partner pays its customers' Tier 3 registration fees. */
export const InternationalFeeSetting = example(Schema.Struct({
  paysForCustomers: Schema.Boolean,
  /** `PARTNER` when `paysForCustomers` is true, else `CUSTOMER`. */
  paidBy: Schema.Literal("PARTNER", "CUSTOMER"),
  /** Each destination group's fee per customer type, read from the group. */
  groups: Schema.Array(GroupRegistrationFees),
  /** When the partner last set it; null while it has never been set (the default, customers pay). */
  updatedAt: Schema.NullOr(Schema.Date)
}), {
  paysForCustomers: false,
  paidBy: "CUSTOMER",
  groups: [
    { key: "americas_europe", registrationFee: { individual: { amount: "3", currency: "USDT" }, business: { amount: "10", currency: "USDT" } } },
    { key: "china", registrationFee: { individual: { amount: "3", currency: "USDT" }, business: { amount: "10", currency: "USDT" } } }
  ],
  updatedAt: null
})
export type InternationalFeeSetting = typeof InternationalFeeSetting.Type

export const SetInternationalFeeSetting = example(Schema.Struct({
  paysForCustomers: Schema.Boolean
}), { paysForCustomers: true })
export type SetInternationalFeeSetting = typeof SetInternationalFeeSetting.Type

/** A group's status (docs/contract.md "International status"): NOT_STARTED while the customer has no enrolment in it. */
export const GroupStatus = Schema.Literal("NOT_STARTED", "PENDING", "REVIEW", "NEEDS_ATTENTION", "APPROVED", "REJECTED")
export type GroupStatus = typeof GroupStatus.Type

/** What the customer should do next for a group; null when nothing (awaiting a decision, approved, or NEEDS_ATTENTION). */
export const GroupAction = Schema.Literal("COMPLETE_TIER2", "SUBMIT_TIER3", "RESUBMIT_TIER3")
export type GroupAction = typeof GroupAction.Type

/** A group's `registrationFee` (docs/contract.md "International status"), plus what was actually taken (`charged`, null until it is taken). */
export const GroupRegistrationFee = Schema.Struct({
  amount: Schema.String,
  currency: Schema.Literal("USDT"),
  paidBy: Schema.Literal("CUSTOMER", "PARTNER"),
  paid: Schema.Boolean,
  /** The amount taken: the USDT fee, or its local-currency equivalent at the live rate; null while not taken. */
  charged: Schema.NullOr(Schema.Struct({ amount: Schema.String, currency: Schema.String }))
})
export type GroupRegistrationFee = typeof GroupRegistrationFee.Type

export const InternationalGroup = Schema.Struct({
  key: DestinationGroupKey,
  payoutPartner: Schema.String,
  status: GroupStatus,
  countries: Schema.Array(Schema.String),
  optedInCountries: Schema.Array(Schema.String),
  /** Present with NEEDS_ATTENTION (worded for the customer) and REJECTED (the payout partner's reason). */
  reason: Schema.optional(Schema.String),
  action: Schema.NullOr(GroupAction),
  registrationFee: GroupRegistrationFee
})
export type InternationalGroup = typeof InternationalGroup.Type

/** docs/contract.md "International status". */
export const InternationalStatus = example(Schema.Struct({
  eligible: Schema.Boolean,
  customerType: Schema.Literal("INDIVIDUAL", "BUSINESS"),
  groups: Schema.Array(InternationalGroup),
  /** Deprecated: repeats the `americas_europe` group's `registrationFee`. */
  registrationFee: GroupRegistrationFee
}), {
  eligible: true,
  customerType: "INDIVIDUAL",
  groups: [{
    key: "americas_europe",
    payoutPartner: "Meridian Payouts",
    status: "PENDING",
    countries: ["US", "CA", "MX", "BR", "GB", "DE", "FR"],
    optedInCountries: ["GB"],
    action: null,
    registrationFee: { amount: "3", currency: "USDT", paidBy: "CUSTOMER", paid: false, charged: null }
  }],
  registrationFee: { amount: "3", currency: "USDT", paidBy: "CUSTOMER", paid: false, charged: null }
})
export type InternationalStatus = typeof InternationalStatus.Type

/** The Tier 3 submission's answer: tier 3's status after it, the KYC record written, and the international status. */
export const Tier3Submission = example(Schema.Struct({
  status: KycStatus,
  record: KycRecord,
  international: InternationalStatus
}), {
  status: "PENDING",
  record: { ...exampleOf(KycRecord), level: 3 },
  international: exampleOf(InternationalStatus)
})
export type Tier3Submission = typeof Tier3Submission.Type

export const GroupQuery = Schema.Struct({ group: DestinationGroupKey })

export const RejectGroupBody = example(Schema.Struct({
  reason: Schema.String.pipe(Schema.trimmed({ message: () => "must not start or end with spaces" }), Schema.minLength(1, { message: () => "must not be empty" }), Schema.maxLength(500, { message: () => "must be at most 500 characters" }))
}), { reason: "The proof of address is older than three months" })

export class InternationalFeeInsufficientBalance extends ApiError(
  "InternationalFeeInsufficientBalance",
  400,
  "INTERNATIONAL_FEE_INSUFFICIENT_BALANCE",
  {
    /** The registration fees the submission needs, in USDT. */
    feeUsdt: Schema.Number,
    /** The same in the customer's local currency at the live rate (null when no rate could be read). */
    feeLocal: Schema.NullOr(Schema.Number),
    localCurrency: Schema.String
  }
) {}

export class InternationalGroupStateConflict extends ApiError(
  "InternationalGroupStateConflict",
  400,
  "INTERNATIONAL_GROUP_STATE_CONFLICT"
) {}

export class InternationalApi extends HttpApiGroup.make("international").annotateContext(resourceTag("international"))
  .add(
    HttpApiEndpoint.get("corridors", "/customers/:customerId/global-send/corridors")
      .annotateContext(OpenApi.annotations({
        summary: "List global-send corridors",
        description: "Where the customer can pay out (a plain array, no `meta`): each corridor's key (`KE-KES-mobile`), " +
          "`country`, `currency`, `region`, the destination `group` whose enrolment it needs (null for the African " +
          "corridors, which need none), `deliveryMethod` and `recipientSchema`, the recipient form (one descriptor per " +
          "`beneficiary[key]`; a `pattern` is an anchored ECMAScript regular expression used without flags, and " +
          "`placeholder` always matches it). The China corridor adds `recipientFields`, `requiredDocuments`, " +
          "`allowedPurposes` and `minAssetAmount` (USDT after fees). The same list for every customer of the partner, " +
          "the customer's own country's corridor included."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(example(Schema.Array(Corridor), [{
        corridor: "GB-GBP-bank",
        country: "GB",
        currency: "GBP",
        region: "europe",
        group: "americas_europe",
        deliveryMethod: "bank",
        recipientSchema: [
          { key: "sortCode", label: "Sort code", required: true, pattern: "^\\d{6}$", keyboard: "numeric", placeholder: "200000" },
          { key: "accountNumber", label: "Account number", required: true, keyboard: "numeric", placeholder: "55779911" },
          { key: "accountName", label: "Account holder's full name", required: true, keyboard: "text", placeholder: "James Smith" }
        ]
      }])))
      .addError(CustomerForbidden)
      .addError(PayoutRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("tier3", "/customers/:customerId/kyc/tier3")
      .annotateContext(OpenApi.annotations({
        summary: "Submit KYC Tier 3 (international verification)",
        description: "An individual's (`dateOfBirth`, `address`, optional `addressProofUrl`) or a business's " +
          "(`customerType: BUSINESS`, `business`) details, sent to the payout partner of `destinationCountry`'s group " +
          "(every group when absent). Requires Tier 2 approved. The first submission to a group reserves its " +
          "registration fee (USDT, else the local currency at the live rate; the partner's fee setting may pay it), " +
          "taken when the payout partner creates the customer. In an APPROVED group a new `destinationCountry` is only " +
          "recorded. Answers 201 `{ status, record, international }` (docs/international.md)."
      }))
      .setPath(CustomerIdPath)
      .setPayload(example(Tier3Body, {
        destinationCountry: "GB",
        dateOfBirth: "1990-05-14",
        address: { line1: "12 Admiralty Way", city: "Lagos", state: "Lagos", postalCode: "106104", country: "NG" },
        addressProofUrl: `https://api.example.com/api/v1/partner/v1/customers/${sample.customerId}/kyc/documents/${sample.documentId}`
      }))
      .addSuccess(Envelope(Tier3Submission), { status: 201 })
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(KycPreviousTierNotApproved)
      .addError(KycTierAwaitingDecision)
      .addError(KycTierAlreadyApproved)
      .addError(KycDocumentNotFound)
      .addError(InternationalFeeInsufficientBalance)
      .addError(CustomerBusy)
      .addError(PayoutRailUnavailable)
  )
  .add(
    HttpApiEndpoint.get("internationalStatus", "/customers/:customerId/global-send/international-status")
      .annotateContext(OpenApi.annotations({
        summary: "Get the international status",
        description: "Eligibility (Tier 2 approved), the customer type of the latest Tier 3 submission, and each " +
          "destination group's status, countries, opted-in countries, reason, action and registration fee."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(InternationalStatus))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.post("internationalResend", "/customers/:customerId/global-send/international-resend")
      .annotateContext(OpenApi.annotations({
        summary: "Re-send a group's enrolment",
        description: "Sends the held details again to the same enrolment of `group`, free. Only a REJECTED or " +
          "NEEDS_ATTENTION group that was submitted before can be re-sent; any other answers 400."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(GroupQuery)
      .addSuccess(Envelope(InternationalStatus))
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(CustomerBusy)
      .addError(PayoutRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("internationalReject", "/customers/:customerId/global-send/international-reject")
      .annotateContext(OpenApi.annotations({
        summary: "Mark a group as needing the customer's attention",
        description: "`{ reason }` worded for the customer: any group not APPROVED becomes NEEDS_ATTENTION with the " +
          "`reason` and no `action`; the customer's next Tier 3 submission clears it. A pending first submission is " +
          "withdrawn from the payout partner and its reserved fee released. An APPROVED group: 400 " +
          "`INTERNATIONAL_GROUP_STATE_CONFLICT`."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(GroupQuery)
      .setPayload(RejectGroupBody)
      .addSuccess(Envelope(InternationalStatus))
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(InternationalGroupStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.get("feeSetting", "/fees/international-verification")
      .annotateContext(OpenApi.annotations({
        summary: "Get the international verification fee setting",
        description: "Whether the partner pays its customers' Tier 3 registration fees (`paysForCustomers`, `paidBy` " +
          "`PARTNER` or `CUSTOMER`) and each destination group's fee per customer type. Until it is set: " +
          "`paysForCustomers: false`, `paidBy: CUSTOMER`, `updatedAt: null`."
      }))
      .addSuccess(Envelope(InternationalFeeSetting))
  )
  .add(
    HttpApiEndpoint.put("setFeeSetting", "/fees/international-verification")
      .annotateContext(OpenApi.annotations({
        summary: "Set the international verification fee setting",
        description: "`{ paysForCustomers: boolean }`: true makes the partner pay its customers' Tier 3 registration " +
          "fees (`paidBy: PARTNER`), false makes the customers pay (`paidBy: CUSTOMER`). Applies to fees charged from " +
          "now on; answers the setting as a read does."
      }))
      .setPayload(SetInternationalFeeSetting)
      .addSuccess(Envelope(InternationalFeeSetting))
      .addError(BadRequest)
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

export const SandboxGroupPath = Schema.Struct({ customerId: Schema.String, group: DestinationGroupKey })

export const SandboxRejectBody = Schema.Struct({ reason: RejectGroupBody.fields.reason })

/** The payout partners' enrolment decisions, given by hand (sandbox). */
export class SandboxInternationalApi extends HttpApiGroup.make("sandboxInternational").annotateContext(resourceTag("sandboxInternational"))
  .add(
    HttpApiEndpoint.post("approve", "/customers/:customerId/international/:group/approve")
      .annotateContext(OpenApi.annotations({
        summary: "Approve a group's enrolment (sandbox)",
        description: "The group's payout partner approves a PENDING or REVIEW enrolment: APPROVED, and " +
          "`global_send.enabled` the first time. A PENDING first submission is created first (its fee taken)."
      }))
      .setPath(SandboxGroupPath)
      .addSuccess(Envelope(InternationalStatus))
      .addError(BadRequest)
      .addError(InternationalGroupStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("review", "/customers/:customerId/international/:group/review")
      .annotateContext(OpenApi.annotations({
        summary: "Send a group's enrolment to review (sandbox)",
        description: "The payout partner creates the customer (the fee is taken) and reviews a PENDING enrolment: REVIEW."
      }))
      .setPath(SandboxGroupPath)
      .addSuccess(Envelope(InternationalStatus))
      .addError(BadRequest)
      .addError(InternationalGroupStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("reject", "/customers/:customerId/international/:group/reject")
      .annotateContext(OpenApi.annotations({
        summary: "Reject a group's enrolment (sandbox)",
        description: "`{ reason }`: the payout partner rejects a PENDING or REVIEW enrolment: REJECTED with the reason. " +
          "A PENDING first submission is created first (its fee taken: a rejection is a decision on a created customer)."
      }))
      .setPath(SandboxGroupPath)
      .setPayload(SandboxRejectBody)
      .addSuccess(Envelope(InternationalStatus))
      .addError(BadRequest)
      .addError(InternationalGroupStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("refuse", "/customers/:customerId/international/:group/refuse")
      .annotateContext(OpenApi.annotations({
        summary: "Refuse to create the customer (sandbox)",
        description: "The payout partner refuses to create the customer of a PENDING enrolment it never created: " +
          "REJECTED, no fee (the reserved fee is released) and every later submission to the group is free."
      }))
      .setPath(SandboxGroupPath)
      .addSuccess(Envelope(InternationalStatus))
      .addError(BadRequest)
      .addError(InternationalGroupStateConflict)
      .addError(CustomerBusy)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
