import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Schema } from "effect"
import { example, resourceTag } from "../api/Docs.js"
import { Email } from "../customers/Api.js"
import { ApiError, BadRequest, InvalidCursor, PartnerNotApproved, Unauthorized } from "../api/ApiError.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { TooManySignIns } from "../api/LimitErrors.js"
import { IsoCountryCode } from "../international/Tier3.js"
import { AdvanceClock, ClockReading } from "../sandbox/Api.js"
import { OperationFilter, PendingOperation } from "../sandbox/InspectApi.js"
import {
  DeliveryFilter,
  DeliveryIdPath,
  SetWebhook,
  WebhookConfig,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryNotFound,
  WebhookSecretIssued,
  WebhookUrlNotSet
} from "../webhooks/Api.js"
import * as PasswordRules from "./PasswordRules.js"
import * as SecretStrength from "./SecretStrength.js"

/**
 * The partner console (docs/contract.md "Overview": a separate surface; "Authentication" 2, 3, 6, 7): sign-up and
 * sign-in with email and password, a short-lived JWT for the rest, company details and KYB, API keys and their
 * rotation, and `POST /partner/update-webhook`. Under `/api/v1/partner/...`, beside `/partner/v1`. An API key is never
 * accepted here; a console token is never accepted on `/partner/v1`. docs/console.md.
 */

/** The signed-in console user's session, from a valid access token of a session not signed out. */
export interface ConsoleSession {
  readonly userId: string
  readonly partnerId: string
  readonly sessionId: string
}
export class CurrentConsoleSession extends Context.Tag("CurrentConsoleSession")<CurrentConsoleSession, ConsoleSession>() {}

export const consoleBearer = HttpApiSecurity.bearer

/** Console routes: `Authorization: Bearer <access token>`; an `x-api-key` is not a way in. */
export class ConsoleAuth extends HttpApiMiddleware.Tag<ConsoleAuth>()("ConsoleAuth", {
  failure: Unauthorized,
  provides: CurrentConsoleSession,
  security: { bearer: consoleBearer }
}) {}

/**
 * A new password: 12 to 128 characters, not only whitespace, not one character repeated, not a common password
 * (PasswordRules.ts). The common list loads on the first check (asynchronously), so this schema decodes only
 * through an Effect (as a request's body is decoded); a body that carries it gives its example by hand.
 */
export const Password = Schema.String.pipe(
  Schema.minLength(12, { message: () => "must be 12 to 128 characters" }),
  Schema.maxLength(128, { message: () => "must be 12 to 128 characters" }),
  Schema.filter((password) => PasswordRules.shapeProblem(password)),
  Schema.filterEffect((password) => PasswordRules.commonProblem(password))
)

const text = (max: number) =>
  Schema.compose(
    Schema.Trim,
    Schema.String.pipe(
      Schema.minLength(1, { message: () => `must be 1 to ${max} characters` }),
      Schema.maxLength(max, { message: () => `must be 1 to ${max} characters` })
    )
  )

/** Its example is given as it is (`example` decodes synchronously, and `Password` needs an Effect). */
export const SignUpBody = Schema.Struct({ email: Email, password: Password, companyName: text(200) }).annotations({
  examples: [{ email: "founder@acmewallet.example.com", password: "correct-horse-battery-9", companyName: "Acme Wallet" }]
})
/** Sign-in checks the password, not its shape: any string up to 1024 characters (a longer one is refused as wrong). */
export const SignInBody = example(Schema.Struct({ email: Schema.String.pipe(Schema.maxLength(254, { message: () => "must be at most 254 characters" })), password: Schema.String.pipe(Schema.maxLength(1024, { message: () => "must be at most 1024 characters" })) }), { email: "founder@acmewallet.example.com", password: "correct-horse-battery-9" })
/**
 * `refreshToken` may be omitted by the web console: the refresh token then comes from its HttpOnly cookie, and the
 * request must carry the CSRF header (docs/console.md "The web console").
 */
export const RefreshBody = example(Schema.Struct({ refreshToken: Schema.optional(Schema.String.pipe(Schema.maxLength(200, { message: () => "must be at most 200 characters" }))) }), { refreshToken: "rt_Vb3kQ9xZ2mN7pL4wR8tY1cF6hJ0sD5gA" })

export const Session = Schema.Struct({
  tokenType: Schema.Literal("Bearer"),
  accessToken: Schema.String,
  /** Seconds the access token stays valid (on the service clock). */
  expiresIn: Schema.Number,
  expiresAt: Schema.Date,
  /** Exchanges for a new pair once (`POST /partner/token/refresh`); valid 30 days. */
  refreshToken: Schema.String,
  refreshExpiresAt: Schema.Date
})
export type Session = typeof Session.Type

export const CompanyDetails = example(Schema.Struct({
  legalName: text(200),
  registrationNumber: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9 ./-]{0,49}$/, {
    message: () => "must be 1 to 50 letters, digits, spaces or . / -"
  })),
  country: IsoCountryCode,
  address: text(300),
  website: Schema.optional(Schema.String.pipe(Schema.pattern(/^https:\/\/[^\s/$.?#].[^\s]*$/, { message: () => "must be an https:// URL" }), Schema.maxLength(200, { message: () => "must be at most 200 characters" }))),
  contactEmail: Email
}), {
  legalName: "Acme Wallet Limited",
  registrationNumber: "RC 1234567",
  country: "NG",
  address: "12 Admiralty Way, Lekki Phase 1, Lagos",
  website: "https://acmewallet.example.com",
  contactEmail: "compliance@acmewallet.example.com"
})
export type CompanyDetails = typeof CompanyDetails.Type

/** Where KYB stands: `DRAFT` (not submitted, or resubmission requested), `UNDER_REVIEW`, `APPROVED`, `REJECTED`. */
export const KybStage = Schema.Literal("DRAFT", "UNDER_REVIEW", "APPROVED", "REJECTED")

export const ConsoleView = Schema.Struct({
  user: Schema.Struct({ id: Schema.String, email: Schema.String, createdAt: Schema.Date }),
  partner: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    /** docs/contract.md "Partner account": PENDING, APPROVED, REJECTED. */
    kybStatus: Schema.Literal("PENDING", "APPROVED", "REJECTED"),
    kybStage: KybStage,
    /** Compliance's reason for a rejection or a resubmission request; null otherwise. */
    kybReason: Schema.NullOr(Schema.String),
    kybSubmittedAt: Schema.NullOr(Schema.Date),
    company: Schema.NullOr(CompanyDetails),
    createdAt: Schema.Date
  })
})
export type ConsoleView = typeof ConsoleView.Type

export const SignUpResult = Schema.Struct({ session: Session, console: ConsoleView })

export const ApiKeyView = Schema.Struct({
  id: Schema.String,
  /** The first characters of the key (`sk_live_AbCd`), to recognise it; the secret is never shown again. */
  prefix: Schema.String,
  status: Schema.Literal("ACTIVE", "REVOKED"),
  createdAt: Schema.Date,
  lastUsedAt: Schema.NullOr(Schema.Date),
  revokedAt: Schema.NullOr(Schema.Date)
})
export const IssuedApiKey = Schema.Struct({ apiKey: Schema.String, key: ApiKeyView })

export const UpdateWebhookBody = example(Schema.Struct({
  url: SetWebhook.fields.url,
  /**
   * Your own signing secret (32 to 256 printable ASCII characters that look random: SecretStrength.ts), encrypted at
   * rest; omitted: one is minted.
   */
  secret: Schema.optional(Schema.String.pipe(
    Schema.pattern(/^[\x21-\x7e]{32,256}$/, { message: () => "must be 32 to 256 printable ASCII characters without spaces" }),
    Schema.filter((secret) => SecretStrength.weakness(secret))
  ))
}), { url: "https://hooks.example.com/pmm" })

export class EmailTaken extends ApiError("EmailTaken", 409, "EMAIL_TAKEN") {}
export class InvalidCredentials extends ApiError("InvalidCredentials", 401, "INVALID_CREDENTIALS") {}
export class TooManySignInAttempts extends ApiError("TooManySignInAttempts", 429, "TOO_MANY_SIGN_IN_ATTEMPTS", {
  retryAfterSeconds: Schema.Number
}) {}
export class KybNotEditable extends ApiError("KybNotEditable", 400, "KYB_NOT_EDITABLE") {}
export class KybNotUnderReview extends ApiError("KybNotUnderReview", 400, "KYB_NOT_UNDER_REVIEW") {}

export class ConsolePublicApi extends HttpApiGroup.make("consolePublic").annotateContext(resourceTag("consolePublic"))
  .add(
    HttpApiEndpoint.post("signUp", "/sign-up")
      .annotateContext(OpenApi.annotations({
        summary: "Sign up a partner business",
        description: "`{ email, password (12 to 128 characters), companyName }`: creates the partner (KYB PENDING, no API " +
          "key) and its console user, and signs in: 201 `{ session, console }`. An email already signed up: 409 " +
          "`EMAIL_TAKEN`."
      }))
      .setPayload(SignUpBody)
      .addSuccess(Envelope(SignUpResult), { status: 201 })
      .addError(BadRequest)
      .addError(EmailTaken)
      .addError(TooManySignIns)
  )
  .add(
    HttpApiEndpoint.post("signIn", "/sign-in")
      .annotateContext(OpenApi.annotations({
        summary: "Sign in to the console",
        description: "`{ email, password }` → a session: a Bearer access token (15 minutes) and a refresh token. A wrong " +
          "password and an unknown email answer the same 401 `INVALID_CREDENTIALS`; 5 failures within 15 minutes lock " +
          "the email for 15 minutes (429 `TOO_MANY_SIGN_IN_ATTEMPTS`, known or not)."
      }))
      .setPayload(SignInBody)
      .addSuccess(Envelope(Session))
      .addError(BadRequest)
      .addError(InvalidCredentials)
      .addError(TooManySignInAttempts)
      .addError(TooManySignIns)
  )
  .add(
    HttpApiEndpoint.post("refresh", "/token/refresh")
      .annotateContext(OpenApi.annotations({
        summary: "Refresh a console session",
        description: "`{ refreshToken }` → a new access token and a new refresh token (the old one is spent). A spent, " +
          "expired, unknown or signed-out refresh token: 401 `UNAUTHORIZED`. Without `refreshToken` in the body the " +
          "refresh token is read from the `pmm_console_refresh` cookie (HttpOnly, set by sign-up, sign-in and refresh), " +
          "and the `X-CSRF-Token` header must equal the `pmm_console_csrf` cookie, else 401 `UNAUTHORIZED`."
      }))
      .setPayload(RefreshBody)
      .addSuccess(Envelope(Session))
      .addError(BadRequest)
      .addError(Unauthorized)
  )
  .prefix("/partner")
{}

export class ConsoleApi extends HttpApiGroup.make("console").annotateContext(resourceTag("console"))
  .add(
    HttpApiEndpoint.post("signOut", "/sign-out")
      .annotateContext(OpenApi.annotations({
        summary: "Sign out",
        description: "Ends the session: its access and refresh tokens stop working at once. 200 `{ signedOut: true }`."
      }))
      .addSuccess(Envelope(Schema.Struct({ signedOut: Schema.Literal(true) })))
  )
  .add(
    HttpApiEndpoint.get("me", "/me")
      .annotateContext(OpenApi.annotations({ summary: "The signed-in user and the partner", description: "KYB status and stage, company details." }))
      .addSuccess(Envelope(ConsoleView))
  )
  .add(
    HttpApiEndpoint.put("setCompany", "/company")
      .annotateContext(OpenApi.annotations({
        summary: "Set the company details",
        description: "`{ legalName, registrationNumber, country, address, website?, contactEmail }`; while KYB is a " +
          "DRAFT (not submitted, or resubmission requested), else 400 `KYB_NOT_EDITABLE`."
      }))
      .setPayload(CompanyDetails)
      .addSuccess(Envelope(ConsoleView))
      .addError(BadRequest)
      .addError(KybNotEditable)
  )
  .add(
    HttpApiEndpoint.post("submitKyb", "/kyb/submit")
      .annotateContext(OpenApi.annotations({
        summary: "Submit KYB",
        description: "Sends the company details to compliance: KYB stage UNDER_REVIEW (status PENDING). Needs the company " +
          "details; only from DRAFT, else 400 `KYB_NOT_EDITABLE`."
      }))
      .addSuccess(Envelope(ConsoleView))
      .addError(KybNotEditable)
  )
  .add(
    HttpApiEndpoint.get("listKeys", "/api-keys")
      .annotateContext(OpenApi.annotations({
        summary: "List API keys",
        description: "Every key, newest first: `id`, `prefix`, `status`, `createdAt`, `lastUsedAt` (to the minute), " +
          "`revokedAt`; never the secret."
      }))
      .addSuccess(Envelope(Schema.Array(ApiKeyView)))
  )
  .add(
    HttpApiEndpoint.post("rotateKey", "/api-keys")
      .annotateContext(OpenApi.annotations({
        summary: "Issue (or rotate) the API key",
        description: "Issues a new API key, shown once in this answer (201 `{ apiKey, key }`); every earlier key stops " +
          "working at once (rotation invalidates the old key immediately). Only after KYB approval: before, " +
          "403 `PARTNER_NOT_APPROVED`."
      }))
      .addSuccess(Envelope(IssuedApiKey), { status: 201 })
      .addError(PartnerNotApproved)
  )
  .add(
    HttpApiEndpoint.post("updateWebhook", "/update-webhook")
      .annotateContext(OpenApi.annotations({
        summary: "Set the webhook URL (console)",
        description: "`{ url, secret? }`: the same URL rules as `PUT /partner/v1/webhook`; a supplied `secret` is " +
          "encrypted at rest like a minted one (omitted: one is minted and returned). Sends `webhook.test`. Only once " +
          "KYB is approved (before: 403 `PARTNER_NOT_APPROVED`)."
      }))
      .setPayload(UpdateWebhookBody)
      .addSuccess(Envelope(WebhookSecretIssued))
      .addError(BadRequest)
      .addError(PartnerNotApproved)
  )
  // The webhook's configuration and delivery log for the console: the same answers as the `/partner/v1/webhook...`
  // routes, under the console's token (the page never holds an API key: a key is shown once).
  .add(
    HttpApiEndpoint.get("getWebhook", "/webhook")
      .annotateContext(OpenApi.annotations({
        summary: "Get the webhook configuration (console)",
        description: "As `GET /partner/v1/webhook`: `{ url, hasSecret, updatedAt }`; never the secret."
      }))
      .addSuccess(Envelope(WebhookConfig))
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSecret", "/webhook/rotate-secret")
      .annotateContext(OpenApi.annotations({
        summary: "Rotate the webhook secret (console)",
        description: "As `POST /partner/v1/webhook/rotate-secret`: a new secret, shown once, and a `webhook.test`."
      }))
      .addSuccess(Envelope(WebhookSecretIssued))
      .addError(WebhookUrlNotSet)
  )
  .add(
    HttpApiEndpoint.get("webhookDeliveries", "/webhook/deliveries")
      .annotateContext(OpenApi.annotations({
        summary: "List webhook deliveries (console)",
        description: "As `GET /partner/v1/webhook/deliveries`: newest first, a cursor list, optionally for one `status`."
      }))
      .setUrlParams(DeliveryFilter)
      .addSuccess(PageEnvelope(WebhookDelivery))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("webhookDelivery", "/webhook/deliveries/:id")
      .annotateContext(OpenApi.annotations({
        summary: "Get a webhook delivery (console)",
        description: "As `GET /partner/v1/webhook/deliveries/{id}`: the delivery with the exact `payload` sent."
      }))
      .setPath(DeliveryIdPath)
      .addSuccess(Envelope(WebhookDeliveryDetail))
      .addError(WebhookDeliveryNotFound)
  )
  .add(
    HttpApiEndpoint.post("replayWebhookDelivery", "/webhook/deliveries/:id/replay")
      .annotateContext(OpenApi.annotations({
        summary: "Replay a webhook delivery (console)",
        description: "As `POST /partner/v1/webhook/deliveries/{id}/replay`: back to `PENDING`, due now, a fresh schedule."
      }))
      .setPath(DeliveryIdPath)
      .addSuccess(Envelope(WebhookDelivery))
      .addError(WebhookDeliveryNotFound)
  )
  .middleware(ConsoleAuth)
  .prefix("/partner")
{}

export const KybDecisionBody = example(Schema.Struct({
  decision: Schema.Literal("APPROVED", "REJECTED", "RESUBMISSION_REQUESTED").annotations({
    message: () => "must be APPROVED, REJECTED or RESUBMISSION_REQUESTED"
  }),
  reason: Schema.optional(text(500))
}), { decision: "APPROVED" })
export type KybDecisionBody = typeof KybDecisionBody.Type

/** Compliance's KYB decision on the signed-in partner, played by the tester (sandbox mode only). */
export class SandboxConsoleApi extends HttpApiGroup.make("sandboxConsole").annotateContext(resourceTag("sandboxConsole"))
  .add(
    HttpApiEndpoint.post("decideKyb", "/console/kyb-decision")
      .annotateContext(OpenApi.annotations({
        summary: "Decide the signed-in partner's KYB (sandbox)",
        description: "Console token. `{ decision: APPROVED | REJECTED | RESUBMISSION_REQUESTED, reason? }` (reason " +
          "required but for APPROVED) on a KYB UNDER_REVIEW, else 400 `KYB_NOT_UNDER_REVIEW`; emits `partner.approved`, " +
          "`partner.rejected` or `partner.resubmission_requested`."
      }))
      .setPayload(KybDecisionBody)
      .addSuccess(Envelope(ConsoleView))
      .addError(BadRequest)
      .addError(KybNotUnderReview)
  )
  // The partner's clock and its pending rail operations, as `/sandbox/clock...` and `/sandbox/operations` answer them
  // for an API key: the web console's sandbox page.
  .add(
    HttpApiEndpoint.get("clock", "/console/clock")
      .annotateContext(OpenApi.annotations({
        summary: "Read the partner's clock (sandbox, console)",
        description: "Console token. As `GET /sandbox/clock`: `{ now, offsetSeconds, partnerOffsetSeconds }`."
      }))
      .addSuccess(Envelope(ClockReading))
  )
  .add(
    HttpApiEndpoint.post("advanceClock", "/console/clock/advance")
      .annotateContext(OpenApi.annotations({
        summary: "Advance the partner's clock (sandbox, console)",
        description: "Console token. As `POST /sandbox/clock/advance`: `{ seconds }` (1 second to 400 days); answers " +
          "after every job and webhook attempt of the partner due by its new time has run."
      }))
      .setPayload(AdvanceClock)
      .addSuccess(Envelope(ClockReading))
  )
  .add(
    HttpApiEndpoint.get("operations", "/console/operations")
      .annotateContext(OpenApi.annotations({
        summary: "List pending rail operations (sandbox, console)",
        description: "Console token. As `GET /sandbox/operations`: newest first, a cursor list, each with its " +
          "`actions` (sandbox controls, sent with an API key)."
      }))
      .setUrlParams(OperationFilter)
      .addSuccess(PageEnvelope(PendingOperation))
      .addError(InvalidCursor)
  )
  .middleware(ConsoleAuth)
  .prefix("/sandbox")
{}
