import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CustomerIdPath } from "../customers/Api.js"
import { BadRequest, CustomerForbidden } from "../http/ApiError.js"
import { PartnerAuth } from "../http/Auth.js"
import { Envelope } from "../http/Envelope.js"
import { PayoutRailUnavailable } from "../rails/Errors.js"
import { Corridor } from "../reference/Corridors.js"
import { DestinationGroupKey, RegistrationFees } from "../reference/Groups.js"

/**
 * International verification and global-send reference data (SPEC.md "International verification", "Corridor",
 * "Partner fee setting"). What exists so far: the corridor list and the partner's registration-fee setting; the
 * Tier 3 enrolment, international status, resend/reject and global send itself come later. Decisions:
 * docs/international.md.
 */

/** One destination group's registration fees, as the fee setting lists them. */
export const GroupRegistrationFees = Schema.Struct({
  key: DestinationGroupKey,
  registrationFee: RegistrationFees
})
export type GroupRegistrationFees = typeof GroupRegistrationFees.Type

/** SPEC.md "Partner fee setting": whether the partner pays its customers' Tier 3 registration fees. */
export const InternationalFeeSetting = Schema.Struct({
  paysForCustomers: Schema.Boolean,
  /** `PARTNER` when `paysForCustomers` is true, else `CUSTOMER`. */
  paidBy: Schema.Literal("PARTNER", "CUSTOMER"),
  /** Each destination group's fee per customer type, read from the group. */
  groups: Schema.Array(GroupRegistrationFees),
  /** When the partner last set it; null while it has never been set (the default, customers pay). */
  updatedAt: Schema.NullOr(Schema.Date)
})
export type InternationalFeeSetting = typeof InternationalFeeSetting.Type

export const SetInternationalFeeSetting = Schema.Struct({
  paysForCustomers: Schema.Boolean
})
export type SetInternationalFeeSetting = typeof SetInternationalFeeSetting.Type

export class InternationalApi extends HttpApiGroup.make("international")
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
      .addSuccess(Envelope(Schema.Array(Corridor)))
      .addError(CustomerForbidden)
      .addError(PayoutRailUnavailable)
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
