import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { SqlClient, SqlError } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { Console, Effect, Layer } from "effect"
import { createServer, maxHeaderSize } from "node:http"
import { Api, ProductionApi } from "./Api.js"
import * as ClockAdvance from "./clock/ClockAdvance.js"
import * as ServiceClock from "./clock/ServiceClock.js"
import { AppConfig, type AppConfigShape } from "./config/AppConfig.js"
import * as KeyCheck from "./crypto/KeyCheck.js"
import * as Keys from "./crypto/Keys.js"
import * as Customers from "./customers/Customers.js"
import { CustomersHttp } from "./customers/Http.js"
import * as Caches from "./db/Caches.js"
import * as Database from "./db/Database.js"
import { EventBusLayer, OutboxLayer } from "./events/Events.js"
import * as Funding from "./funding/Funding.js"
import { FundingHttp } from "./funding/Http.js"
import { closeLingering, ShutdownLayer, ShutdownTrigger } from "./http/Shutdown.js"
import { HealthHttp } from "./health/Http.js"
import { InternationalHttp } from "./international/Http.js"
import * as PartnerConsole from "./console/Console.js"
import { ConsoleAuthLive, ConsoleHttp, ConsolePublicHttp, SandboxConsoleHttp } from "./console/Http.js"
import * as ConsoleWeb from "./console/web/Serve.js"
import * as GlobalSends from "./globalsend/GlobalSends.js"
import { GlobalSendHttp } from "./globalsend/Http.js"
import * as Enrolments from "./international/Enrolments.js"
import * as International from "./international/International.js"
import { PartnerAuthLive, SandboxAuthLive } from "./http/AuthLive.js"
import { answerClientError } from "./http/ClientErrors.js"
import * as DocsPage from "./http/DocsPage.js"
import * as OpenApiDocument from "./http/OpenApiDocument.js"
import { clientAddressLayer, makeHttpMiddleware } from "./http/Middleware.js"
import { routeTable } from "./http/RouteTable.js"
import * as Observability from "./observability/Observability.js"
import { CursorsLayer } from "./api/Pagination.js"
import { scalarConfiguration } from "./api/Docs.js"
import * as Ids from "./ids/Ids.js"
import * as Jobs from "./jobs/Jobs.js"
import * as KycDocuments from "./kyc/Documents.js"
import { KycHttp, SandboxKycHttp } from "./kyc/Http.js"
import * as Kyc from "./kyc/Kyc.js"
import * as Simulators from "../simulators/Simulators.js"
import * as UnavailableRails from "./rails/Unavailable.js"
import * as Partners from "./partners/Partners.js"
import { LedgerHttp, SandboxLedgerHttp } from "./ledger/Http.js"
import * as CustomerActors from "./ledger/CustomerActors.js"
import * as Idempotency from "./ledger/Idempotency.js"
import * as Ledger from "./ledger/Ledger.js"
import * as LedgerReads from "./ledger/LedgerReads.js"
import { SandboxHttp, SandboxPartnersHttp } from "./sandbox/Http.js"
import { SendsHttp } from "./sends/Http.js"
import * as Sends from "./sends/Sends.js"
import { TradingHttp } from "./trading/Http.js"
import * as Trading from "./trading/Trading.js"
import { SandboxInspectHttp } from "./sandbox/InspectHttp.js"
import * as PendingOperations from "./sandbox/Operations.js"
import { SandboxWebhookChaosHttp, WebhooksHttp } from "./webhooks/Http.js"
import * as WebhookDispatcher from "./webhooks/WebhookDispatcher.js"
import * as Webhooks from "./webhooks/Webhooks.js"
import * as WebhookSender from "./webhooks/WebhookSender.js"
import { BankAccountsHttp } from "./bankaccounts/Http.js"
import { WithdrawalsHttp } from "./withdrawals/Http.js"
import * as Withdrawals from "./withdrawals/Withdrawals.js"
import * as BankAccounts from "./bankaccounts/BankAccounts.js"
import * as FollowWithdrawals from "./globalsend/FollowWithdrawals.js"

/**
 * Which adapters the rails get. Sandbox mode: the simulators. Production mode: no live adapter exists yet, so every
 * rail answers 503 `<RAIL>_RAIL_UNAVAILABLE`, unless a staging deployment opts in to the simulators with
 * SIMULATED_RAILS=true. Listed in the start-up banner.
 */
export const railAdaptersOf = (config: AppConfigShape): "simulated" | "unavailable" =>
  config.mode === "sandbox" || config.simulatedRails === true ? "simulated" : "unavailable"

const simulated = Effect.map(AppConfig, (config) => railAdaptersOf(config) === "simulated")

/** The rail policies' store is always there (the sandbox controls read it); the adapters depend on the mode. */
const railsLayer = Layer.unwrapEffect(Effect.map(simulated, (on) =>
  on ? Simulators.railsLayer : UnavailableRails.layer.pipe(Layer.provideMerge(Simulators.policiesLayer))))

const outcomesLayer = Layer.unwrapEffect(Effect.map(simulated, (on) => (on ? Simulators.outcomesLayer : Layer.empty)))

/** `GET /sandbox/operations`: the rails' operation sources (the simulators'), none without simulated rails. */
const pendingOperationsLayer = Layer.unwrapEffect(Effect.map(simulated, (on) =>
  PendingOperations.layer.pipe(Layer.provide(on ? Simulators.operationSourcesLayer : PendingOperations.noOperationSources))))

export type DatabaseLayer = Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError.SqlError, AppConfig>

/**
 * Domain services over a database. Wired here and nowhere else: this is the one place that chooses the rails'
 * adapters (the simulators of simulators/, the only import of that folder in src/). `clock` defaults to the
 * wall-clock service clock; the scenario runner passes `ServiceClock.layerFixed(...)` for replayable readings.
 *
 * Two levels, and no order to keep by hand inside either:
 * - the ports — the migrated database, ids, the clock, the event bus, the shutdown signal and the rails' adapters —
 *   which have several implementations and are chosen here;
 * - the services (`Effect.Service`s), each declaring its own dependencies: the list below names the ones the
 *   handlers, the daemons, the rails' answers and the tools over a running app (the ledger harness, ledger-check,
 *   the benchmarks) use. A layer named by several services is built once (layers are memoised by reference within
 *   one build), so the order of the list carries no meaning.
 * Reactions across modules are ports too: `SettledWithdrawals` (a settled withdrawal moves its domestic global send,
 * src/globalsend/FollowWithdrawals.ts) and `OperationSources` (the rails' pending operations).
 */
export const makeServicesLayer = (database: DatabaseLayer, ids: Layer.Layer<Ids.Ids> = Ids.layer, clockLayer: ServiceClock.ClockLayer = ServiceClock.layer) => {
  const foundation = Layer.mergeAll(Database.MigrationsLayer.pipe(Layer.provideMerge(database)), ids, EventBusLayer, ShutdownLayer)
  const clock = clockLayer.pipe(Layer.provideMerge(foundation))
  // The services the ports' adapters (the simulators' jobs), the handlers and the operator commands use directly.
  // The key check runs before anything can seal, sign or send with the key (src/crypto/KeyCheck.ts).
  const keys = KeyCheck.layer.pipe(Layer.provideMerge(Keys.layer), Layer.provideMerge(clock))
  const infrastructure = Layer.mergeAll(OutboxLayer, CursorsLayer, Caches.layer, Jobs.layer).pipe(Layer.provideMerge(keys))
  const ports = railsLayer.pipe(Layer.provideMerge(infrastructure))
  const services = Layer.mergeAll(
    Ledger.layer,
    CustomerActors.layer,
    Idempotency.layer,
    Partners.layer,
    PartnerConsole.layer,
    Customers.layer,
    Kyc.layer,
    KycDocuments.layer,
    LedgerReads.layer,
    Funding.layer,
    BankAccounts.layer,
    Withdrawals.layer,
    Trading.layer,
    Sends.layer,
    International.layer,
    Enrolments.layer,
    GlobalSends.layer,
    Webhooks.layer,
    WebhookSender.layer,
    WebhookDispatcher.layer,
    Jobs.daemonLayer,
    ClockAdvance.layer
  ).pipe(Layer.provideMerge(FollowWithdrawals.layer))
  // The rails' answers (the simulators' outcome jobs) call the services' settlement entry points.
  return Layer.mergeAll(outcomesLayer, pendingOperationsLayer).pipe(Layer.provideMerge(services), Layer.provideMerge(ports))
}

/**
 * What the operator commands need (`service partner-kyb`): the database with its migrations, the service clock and
 * the partners (with the outbox and the caches they declare: an approval reaches a running server through
 * LISTEN/NOTIFY) — no job daemons, no webhook dispatcher, no rails.
 */
export const makeOperatorLayer = (database: DatabaseLayer) => {
  const foundation = Layer.mergeAll(Database.MigrationsLayer.pipe(Layer.provideMerge(database)), Ids.layer, EventBusLayer)
  return Partners.layer.pipe(Layer.provideMerge(ServiceClock.layer.pipe(Layer.provideMerge(foundation))))
}

/** Handlers of the partner-facing groups (served in both modes). */
const partnerGroups = Layer.mergeAll(HealthHttp, CustomersHttp, LedgerHttp, FundingHttp, KycHttp, WebhooksHttp, BankAccountsHttp, WithdrawalsHttp, TradingHttp, SendsHttp, InternationalHttp, GlobalSendHttp, ConsolePublicHttp, ConsoleHttp)

/** Handlers of the sandbox control groups (sandbox mode only). */
const sandboxGroups = Layer.mergeAll(SandboxHttp, SandboxPartnersHttp, SandboxKycHttp, SandboxLedgerHttp, SandboxInspectHttp, SandboxConsoleHttp, SandboxWebhookChaosHttp, Simulators.controlsLayer)

/**
 * Idle keep-alive connections stay open 65 s: longer than clients' and load balancers' own idle time-outs, so the
 * server is never the side that closes a connection a client is about to reuse (an ECONNRESET on the client).
 * A request Node cannot read itself (headers over its 16 KB limit, malformed HTTP) is answered with the error
 * envelope rather than Node's bare status line (`answerClientError`).
 */
const makeNodeServer = () => {
  const server = createServer()
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  server.on("clientError", (error, socket) => answerClientError(error, socket, maxHeaderSize))
  return server
}

const docsPath = "/api/v1/docs"
const openApiPath = "/api/v1/openapi.json"

/** The HTTP server for the configured mode, listening on HOST:PORT. */
export const ServerLayer = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  const sandbox = config.mode === "sandbox"
  const api = sandbox ? Api : ProductionApi
  // The docs page: in sandbox mode the demo partner's key (the one the banner prints) is preselected in "Test Request".
  const docsPage: HttpApiScalar.ScalarConfig = scalarConfiguration(sandbox ? Keys.demoApiKey(yield* Keys.Keys) : undefined)
  const apiLayer = (sandbox
    ? HttpApiBuilder.api(Api).pipe(Layer.provide(partnerGroups), Layer.provide(sandboxGroups))
    : HttpApiBuilder.api(ProductionApi).pipe(Layer.provide(partnerGroups))
  ).pipe(Layer.provide([PartnerAuthLive, SandboxAuthLive, ConsoleAuthLive]))
  const extraRoutes = [{ method: "GET", path: docsPath }, { method: "GET", path: openApiPath }, ...ConsoleWeb.routes]
  // Each request's id, pre-checks, error envelope, Retry-After on every 429 and log line (src/http/Middleware.ts).
  const middleware = makeHttpMiddleware({
    maxJsonBodyBytes: config.maxJsonBodyBytes,
    routes: routeTable(api, extraRoutes),
    clock: yield* ServiceClock.ServiceClock
  })
  // Metrics around the middleware, spans inside it, each only when configured (docs/observability.md).
  const observability = Observability.make(config, api, extraRoutes)
  // The API's app with its router built for any parameter length: a path parameter can be no longer than the
  // request line, which node bounds by maxHeaderSize (find-my-way's default of 100 answered "no route" past it).
  // The middleware wraps this app, not the server's handling of it (as `HttpApiBuilder.serve(middleware)` would):
  // the request it provides to the API (the body text it read, a routable URL) is the one the router and the
  // handlers see, while the server writes the response through the request it made itself (platform-node writes
  // through its own request class, which the middleware's request is not).
  const served = Layer.unwrapEffect(
    Effect.map(
      HttpApiBuilder.httpApp.pipe(HttpRouter.withRouterConfig({ maxParamLength: maxHeaderSize })),
      (app) => HttpServer.serve(observability.aroundMiddleware(middleware(app)))
    )
  ).pipe(
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    // The client address for the limits on abuse, read from the request when a limit asks.
    Layer.provide(clientAddressLayer({ header: config.trustedProxyHeader, proxies: config.trustedProxies }))
  )
  let node: ReturnType<typeof makeNodeServer> | undefined
  return Layer.merge(ShutdownTrigger, closeLingering(() => node)).pipe(
    // Without a trace exporter (OTEL_EXPORTER_OTLP_ENDPOINT) the span per request (and, src/http/Middleware.ts, per SQL
    // statement) would be built for nobody: `HttpMiddleware.withTracerDisabledWhen(() => true)` (src/observability/
    // Observability.ts). With one, both are on and exported.
    Layer.provideMerge(observability.server(served)),
    Layer.merge(Observability.metricsServerLayer),
    Layer.provide(DocsPage.layer({ path: docsPath, scalar: docsPage })),
    // The web console at /console (docs/console.md "The web console"); the sandbox extras only in sandbox mode.
    Layer.provide(ConsoleWeb.layer(config.mode)),
    Layer.provide(OpenApiDocument.layer({ path: openApiPath })),
    Layer.provide(apiLayer),
    Layer.provideMerge(NodeHttpServer.layer(() => (node = makeNodeServer()), { port: config.port, host: config.host }))
  )
}))

export const baseUrlOf = (address: HttpServer.Address) =>
  address._tag === "TcpAddress"
    ? `http://${address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname}:${address.port}/api/v1`
    : `unix:${address.path}`

/** Prints where the service listens and, in sandbox mode, the demo partner's API key. */
export const Banner = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  // With WORKERS > 1 every worker serves the same address: the first one says so, once.
  if ((config.workerNumber ?? 1) !== 1) return
  const server = yield* HttpServer.HttpServer
  const baseUrl = baseUrlOf(server.address)
  const lines = [
    `Partner Money Movement Service (${config.mode}) listening`,
    `  Base URL:  ${baseUrl}`,
    `  Docs:      ${baseUrl}/docs`,
    `  Console:   ${baseUrl.replace(/\/api\/v1$/, "")}/console`
  ]
  const rails = railAdaptersOf(config) === "simulated"
    ? "simulated (bank, chain, identity, exchange, payout)" + (config.mode === "production" ? " — SIMULATED_RAILS=true: no real money moves" : "")
    : "none configured: bank, chain, identity, exchange and payout routes answer 503 <RAIL>_RAIL_UNAVAILABLE"
  lines.push(`  Rails:     ${rails}; payout partners serve corridors, Tier 3 enrolment and global-send payouts`)
  if ((config.workers ?? 1) > 1) lines.push(`  Workers:   ${config.workers} processes sharing the port (WORKERS)`)
  if (config.mode === "sandbox") {
    const partners = yield* Partners.Partners
    const demo = yield* partners.ensureDemo
    lines.push(`  API key:   ${demo.apiKey}   (demo partner ${demo.partner.id}, KYB APPROVED)`)
    lines.push(`  Try:       curl -H "x-api-key: ${demo.apiKey}" ${baseUrl}/partner/v1/customers`)
  }
  yield* Console.log(lines.join("\n"))
}))
