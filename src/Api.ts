import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { CustomersApi } from "./customers/Api.js"
import { FundingApi, SandboxEftApi, SandboxFundingApi } from "./funding/Api.js"
import { HealthApi } from "./health/Api.js"
import { ConsoleApi, ConsolePublicApi, SandboxConsoleApi } from "./console/Api.js"
import { GlobalSendApi, SandboxGlobalSendsApi } from "./globalsend/Api.js"
import { InternationalApi, SandboxInternationalApi } from "./international/Api.js"
import { KycApi, SandboxKycApi } from "./kyc/Api.js"
import { LedgerApi, SandboxLedgerApi } from "./ledger/Api.js"
import { SandboxRailsApi } from "./rails/Api.js"
import { SandboxApi, SandboxPartnersApi } from "./sandbox/Api.js"
import { SandboxInspectApi } from "./sandbox/InspectApi.js"
import { SandboxWebhookChaosApi, WebhooksApi } from "./webhooks/Api.js"
import { BankAccountsApi } from "./bankaccounts/Api.js"
import { describeErrors } from "./api/ApiError.js"
import { describeReplays } from "./api/Replays.js"
import { forPartners } from "./api/Docs.js"
import { withPartnerMessagesApi } from "./api/Messages.js"
import { SandboxSendsApi, SendsApi } from "./sends/Api.js"
import { SandboxRatesApi, TradingApi } from "./trading/Api.js"
import { SandboxWithdrawalsApi, WithdrawalsApi } from "./withdrawals/Api.js"

const description = [
  "Partner routes under /api/v1/partner/v1, authenticated with the `x-api-key` header; sandbox controls under " +
  "/api/v1/sandbox (sandbox mode only).",
  "Requests: JSON bodies (`application/json`; the KYC document upload is `multipart/form-data`). A field a body " +
  "schema does not list, at any level, and a query parameter a route does not list are refused (400 `BAD_REQUEST` " +
  "naming each one, with the closest known name); the one exception is a `customerId` at the top of a body, " +
  "which is ignored: the path names the customer.",
  "Successes: `{ success: true, data }`; cursor lists add `meta: { nextCursor }`. Create 201, read and update 200.",
  "Errors: `{ success: false, statusCode, code, message, error, timestamp, path }`, plus `details` on a few " +
  "refusals. Clients branch on `statusCode` and `code`; `message` may change. A path that no operation has " +
  "answers 404 `NOT_FOUND` and a known path with another method 405 `METHOD_NOT_ALLOWED` (components.responses " +
  "`RouteNotFound` and `MethodNotAllowed`).",
  "Money-moving calls take an optional `reference`: the same reference again on the same endpoint returns the " +
  "original record and moves nothing; after a time-out or 5xx, retry with the same reference."
].join("\n\n")

/**
 * The whole HTTP contract, importable without any server code (the scenario runner, the TUI and typed clients
 * derive from it). `Api` is what sandbox mode serves; `ProductionApi` is the same without the sandbox groups, so
 * in production the control API does not exist at all (404) and is absent from the OpenAPI document.
 */
const base = HttpApi.make("api")
  .add(HealthApi)
  .add(CustomersApi)
  .add(LedgerApi)
  .add(FundingApi)
  .add(KycApi)
  .add(WebhooksApi)
  .add(BankAccountsApi)
  .add(WithdrawalsApi)
  .add(TradingApi)
  .add(SendsApi)
  .add(InternationalApi)
  .add(GlobalSendApi)
  .add(ConsolePublicApi)
  .add(ConsoleApi)
  .annotate(OpenApi.Title, "Partner Money Movement Service")
  .annotate(OpenApi.Description, description)
  .annotate(OpenApi.Servers, [{ url: "/", description: "The origin that serves this document (every path starts with /api/v1)" }])
  .annotate(OpenApi.Transform, (spec) => forPartners(describeReplays(describeErrors(spec))))

/**
 * Sandbox control groups: each rail's controls are added here. Both APIs pass through `withPartnerMessagesApi`: a
 * request their schemas refuse is answered in the partner's wording (src/api/Messages.ts).
 */
export class Api extends withPartnerMessagesApi(base
  .add(SandboxPartnersApi)
  .add(SandboxApi)
  .add(SandboxRailsApi)
  .add(SandboxFundingApi)
  .add(SandboxEftApi)
  .add(SandboxKycApi)
  .add(SandboxWithdrawalsApi)
  .add(SandboxLedgerApi)
  .add(SandboxInspectApi)
  .add(SandboxRatesApi)
  .add(SandboxSendsApi)
  .add(SandboxInternationalApi)
  .add(SandboxGlobalSendsApi)
  .add(SandboxConsoleApi)
  .add(SandboxWebhookChaosApi)
  .prefix("/api/v1"))
{}

export class ProductionApi extends withPartnerMessagesApi(base.prefix("/api/v1")) {}
