import { HttpApi, OpenApi } from "@effect/platform"
import { CustomersApi } from "./customers/Api.js"
import { FundingApi, SandboxEftApi, SandboxFundingApi } from "./funding/Api.js"
import { HealthApi } from "./health/Api.js"
import { KycApi, SandboxKycApi } from "./kyc/Api.js"
import { LedgerApi } from "./ledger/Api.js"
import { SandboxRailsApi } from "./rails/Api.js"
import { SandboxApi, SandboxPartnersApi } from "./sandbox/Api.js"
import { WebhooksApi } from "./webhooks/Api.js"
import { BankAccountsApi } from "./bankaccounts/Api.js"
import { SandboxWithdrawalsApi, WithdrawalsApi } from "./withdrawals/Api.js"

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
  .annotate(OpenApi.Title, "Partner Money Movement Service")
  .annotate(OpenApi.Description, "Partner routes under /api/v1/partner/v1, authenticated with the x-api-key header.")

/** Sandbox control groups: each rail's controls are added here. */
export class Api extends base
  .add(SandboxPartnersApi)
  .add(SandboxApi)
  .add(SandboxRailsApi)
  .add(SandboxFundingApi)
  .add(SandboxEftApi)
  .add(SandboxKycApi)
  .add(SandboxWithdrawalsApi)
  .prefix("/api/v1")
{}

export class ProductionApi extends base.prefix("/api/v1") {}
