import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import { Context, Schema } from "effect"
import { PartnerNotApproved, Unauthorized } from "./ApiError.js"
import { RateLimited, TooManyFailedAuthentications } from "./LimitErrors.js"
import type { PartnerId } from "./Ids.js"

export interface Partner {
  readonly id: PartnerId
  readonly name: string
  readonly kybStatus: "PENDING" | "APPROVED" | "REJECTED"
  readonly kybReason: string | null
  readonly isDemo: boolean
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** The partner whose API key made the request. */
export class CurrentPartner extends Context.Tag("CurrentPartner")<CurrentPartner, Partner>() {}

export const apiKeySecurity = HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" })

/**
 * Partner routes: a known key of a partner whose KYB is approved (docs/contract.md "Authentication" 1-6), within
 * the limits on abuse (429 `RATE_LIMITED` per key, `TOO_MANY_FAILED_AUTHENTICATIONS` per client address;
 * docs/contract.md "Rate limits").
 */
export class PartnerAuth extends HttpApiMiddleware.Tag<PartnerAuth>()("PartnerAuth", {
  failure: Schema.Union(Unauthorized, PartnerNotApproved, RateLimited, TooManyFailedAuthentications),
  provides: CurrentPartner,
  security: { apiKey: apiKeySecurity }
}) {}

/** Sandbox control routes: a known key, whatever the partner's KYB status (a tester approves KYB here). */
export class SandboxAuth extends HttpApiMiddleware.Tag<SandboxAuth>()("SandboxAuth", {
  failure: Schema.Union(Unauthorized, RateLimited, TooManyFailedAuthentications),
  provides: CurrentPartner,
  security: { apiKey: apiKeySecurity }
}) {}
