import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { example, resourceTag } from "../api/Docs.js"
import { Email } from "../customers/Api.js"
import { ApiError, BadRequest, PartnerNotApproved, Unauthorized } from "../api/ApiError.js"
import { Envelope } from "../api/Envelope.js"
import { IsoCountryCode } from "../international/Tier3.js"
import { SetWebhook, WebhookSecretIssued } from "../webhooks/Api.js"

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

export const Password = Schema.String.pipe(
  Schema.minLength(12, { message: () => "must be 12 to 128 characters" }),
  Schema.maxLength(128, { message: () => "must be 12 to 128 characters" })
)

const text = (max: number) =>
  Schema.compose(
    Schema.Trim,
    Schema.String.pipe(
      Schema.minLength(1, { message: () => `must be 1 to ${max} characters` }),
      Schema.maxLength(max, { message: () => `must be 1 to ${max} characters` })
    )
  )

export const SignUpBody = example(Schema.Struct({ email: Email, password: Password, companyName: text(200) }), { email: "founder@acmewallet.example.com", password: "correct-horse-battery-9", companyName: "Acme Wallet" })
/** Sign-in checks the password, not its shape: any string up to 1024 characters (a longer one is refused as wrong). */
export const SignInBody = example(Schema.Struct({ email: Schema.String.pipe(Schema.maxLength(254, { message: () => "must be at most 254 characters" })), password: Schema.String.pipe(Schema.maxLength(1024, { message: () => "must be at most 1024 characters" })) }), { email: "founder@acmewallet.example.com", password: "correct-horse-battery-9" })
export const RefreshBody = example(Schema.Struct({ refreshToken: Schema.String.pipe(Schema.maxLength(200, { message: () => "must be at most 200 characters" })) }), { refreshToken: "rt_Vb3kQ9xZ2mN7pL4wR8tY1cF6hJ0sD5gA" })

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
  /** Your own signing secret (32 to 256 printable ASCII characters), encrypted at rest; omitted: one is minted. */
  secret: Schema.optional(Schema.String.pipe(Schema.pattern(/^[\x21-\x7e]{32,256}$/, {
    message: () => "must be 32 to 256 printable ASCII characters without spaces"
  })))
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
  )
  .add(
    HttpApiEndpoint.post("refresh", "/token/refresh")
      .annotateContext(OpenApi.annotations({
        summary: "Refresh a console session",
        description: "`{ refreshToken }` → a new access token and a new refresh token (the old one is spent). A spent, " +
          "expired, unknown or signed-out refresh token: 401 `UNAUTHORIZED`."
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
  .middleware(ConsoleAuth)
  .prefix("/sandbox")
{}
