import { SqlClient } from "@effect/sql"
import * as NodeCrypto from "node:crypto"
import { Cause, Effect, Exit, Layer, Logger, ManagedRuntime, Option, Schema } from "effect"
import { makeServicesLayer, type DatabaseLayer } from "../../src/App.js"
import { ClockAdvance } from "../../src/clock/ClockAdvance.js"
import * as ServiceClock from "../../src/clock/ServiceClock.js"
import { AppConfig, type AppConfigShape } from "../../src/config/AppConfig.js"
import { CreateCustomer } from "../../src/customers/Api.js"
import { Customers } from "../../src/customers/Customers.js"
import { Deposits } from "../../src/funding/Deposits.js"
import { Enrolments } from "../../src/international/Enrolments.js"
import { Tier3Body } from "../../src/international/Tier3Body.js"
import { Outbox } from "../../src/events/Events.js"
import * as Ids from "../../src/ids/Ids.js"
import type { DocumentType, KycItem, Tier2Body } from "../../src/kyc/Api.js"
import { documentUrlOf } from "../../src/kyc/DocumentFields.js"
import { Documents } from "../../src/kyc/Documents.js"
import { Kyc } from "../../src/kyc/Kyc.js"
import { Ledger } from "../../src/ledger/Ledger.js"
import { checkLedger, type LedgerReport } from "../../src/ledger/LedgerCheck.js"
import { toNumber, type Asset } from "../../src/money/Money.js"
import { Partners } from "../../src/partners/Partners.js"
import { RailPolicies } from "../../simulators/RailPolicies.js"
import { customerBody, testConfig, testDatabaseLayer } from "./TestApp.js"

/**
 * The services over the suite's database, without an HTTP server (test/support/TestApp.ts starts the whole
 * service; this builds only `makeServicesLayer`): the rules are tested by calling the services' commands, the
 * contract stays with the HTTP suites. The database is the one TestApp picks (a PGlite cloned from the migrated
 * template, or a database created from the PostgreSQL template with TEST_DATABASE_URL), the clock is frozen
 * (`ServiceClock.layerFixed`, moved only by `advance`), the rails are the simulators (sandbox mode; `config` can
 * ask for production).
 *
 * A command runs as a request would run it: on its partner's clock (`ServiceClock.forPartner`). Its outcome is
 * typed: `attempt` answers the success value or the failure (the tagged error itself, with its `code`), and a
 * defect throws.
 */
export type Outcome<A, E> =
  | { readonly ok: true; readonly value: A }
  | { readonly ok: false; readonly error: E; readonly code: string | undefined; readonly tag: string | undefined }

export interface ServiceHarness {
  /** Runs an effect needing the services; a failure or a defect rejects the promise. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
  /** Runs an effect on `partnerId`'s clock; a failure rejects the promise. */
  readonly as: <A, E>(partnerId: string, effect: Effect.Effect<A, E, any>) => Promise<A>
  /** Runs an effect on `partnerId`'s clock and answers its typed outcome; a defect rejects the promise. */
  readonly attempt: <A, E>(partnerId: string, effect: Effect.Effect<A, E, any>) => Promise<Outcome<A, E>>
  /** A new partner (KYB APPROVED unless told), as `POST /sandbox/partners` creates it. */
  readonly newPartner: (kybStatus?: "APPROVED" | "PENDING" | "REJECTED") => Promise<{ readonly partnerId: string; readonly apiKey: string }>
  /** A new customer of the partner (`customerBody` with the overrides); its id. */
  readonly newCustomer: (partnerId: string, overrides?: Partial<CreateCustomer> & Record<string, unknown>) => Promise<string>
  /** Sets a rail's sandbox policy for the partner (`PUT /sandbox/rails/{rail}`). */
  readonly railPolicy: (
    partnerId: string,
    rail: "bank" | "chain" | "identity" | "exchange" | "payout",
    policy: { readonly mode: "auto" | "manual"; readonly outcome?: "success" | "failure"; readonly delaySeconds?: number }
  ) => Promise<void>
  /** Advances the partner's clock and runs what became due (`POST /sandbox/clock/advance`); the new reading. */
  readonly advance: (partnerId: string, seconds: number) => Promise<Date>
  /** The partner's clock reading. */
  readonly now: (partnerId: string) => Promise<Date>
  /** The customer's events, newest first (optionally of one type), as `GET /sandbox/events` lists them. */
  readonly events: (partnerId: string, customerId: string, type?: string) => Promise<ReadonlyArray<{ readonly id: string; readonly type: string; readonly createdAt: string; readonly data: any }>>
  /** Available and held of one currency, in major units (numbers), as `GET /sandbox/balances` answers them. */
  readonly money: (customerId: string, currency: Asset) => Promise<{ readonly available: number; readonly held: number }>
  /** Raw SQL on the harness's database. */
  readonly query: <T = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<T>>
  readonly ledgerReport: () => Promise<LedgerReport>
  readonly close: () => Promise<void>
}

/**
 * An id as the services take it. The harness and its callers hold ids as text (what a request carries); src/ is
 * moving its commands to branded ids (src/api/Ids.ts), which a request's decoding produces. A test hands its text
 * on unchecked, as the routes' decoding would have accepted it, whichever form the command's parameter has.
 */
export const asId = (id: string): any => id

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : undefined

const tagOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && typeof (error as { _tag?: unknown })._tag === "string" ? (error as { _tag: string })._tag : undefined

/** Builds the services over a fresh database cloned from the template (or `options.database`). */
export const startServices = async (
  options: {
    readonly config?: Partial<AppConfigShape>
    readonly seed?: string
    readonly database?: { readonly layer: DatabaseLayer; readonly url?: string }
  } = {}
): Promise<ServiceHarness> => {
  const database = options.database ?? await testDatabaseLayer()
  const config = testConfig(options.config)
  const ids = options.seed === undefined ? Ids.layer : Ids.layerSeeded(options.seed)
  const layer = makeServicesLayer(database.layer, ids, ServiceClock.layerFixed(new Date())).pipe(
    Layer.provide(Logger.minimumLogLevel(config.logLevel)),
    Layer.provideMerge(Layer.succeed(AppConfig, config))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<any, any, never>)
  // Build the services now (migrations, daemons), so that the first command's timing is the command's.
  await runtime.runPromise(Effect.void)

  return harnessOver((effect) => runtime.runPromise(effect as Effect.Effect<any, any, never>), () => runtime.dispose())
}

/**
 * The same commands over the services of a running test app (`startTestApp(...).run`): a file that keeps one HTTP
 * server for the contract tests its rules on that server's services and database, without a second database.
 * `close` is the app's to call.
 */
export const servicesOf = (app: { readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A> }): ServiceHarness =>
  harnessOver(app.run, async () => {})

const harnessOver = (run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>, close: () => Promise<void>): ServiceHarness => {
  const as = <A, E>(partnerId: string, effect: Effect.Effect<A, E, any>) => run(ServiceClock.forPartner(partnerId)(effect))
  const attempt = async <A, E>(partnerId: string, effect: Effect.Effect<A, E, any>): Promise<Outcome<A, E>> => {
    const exit = await run(Effect.exit(ServiceClock.forPartner(partnerId)(effect)))
    if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
    const failure = Cause.failureOption(exit.cause)
    if (Option.isNone(failure)) throw new Error(`defect: ${Cause.pretty(exit.cause)}`)
    return { ok: false, error: failure.value, code: codeOf(failure.value), tag: tagOf(failure.value) }
  }

  return {
    run,
    as,
    attempt,
    newPartner: async (kybStatus = "APPROVED") => {
      const created = await run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Sandbox Partner", kybStatus })))
      return { partnerId: created.partner.id, apiKey: created.apiKey }
    },
    newCustomer: async (partnerId, overrides = {}) =>
      (await as(partnerId, Effect.flatMap(Customers, (customers) => customers.create(asId(partnerId), Schema.decodeUnknownSync(CreateCustomer)(customerBody(overrides)))))).id,
    railPolicy: async (partnerId, rail, policy) => {
      await as(partnerId, Effect.flatMap(RailPolicies, (policies) => policies.set(asId(partnerId), rail, policy)))
    },
    advance: (partnerId, seconds) => as(partnerId, Effect.flatMap(ClockAdvance, (clock) => clock.advance(seconds))),
    now: (partnerId) => as(partnerId, Effect.flatMap(ServiceClock.ServiceClock, (clock) => clock.now)),
    events: async (partnerId, customerId, type) =>
      (await as(partnerId, Effect.flatMap(Outbox, (outbox) => outbox.list({ partnerId: asId(partnerId), customerId: asId(customerId), type, limit: 100 })))).map((e) => e.envelope),
    money: async (customerId, currency) => {
      const balances = await run(Effect.flatMap(Ledger, (ledger) => ledger.balances(asId(customerId))))
      const row = balances.find((b) => b.currency === currency)
      return {
        available: row === undefined ? 0 : toNumber(currency, row.available),
        held: row === undefined ? 0 : toNumber(currency, row.held)
      }
    },
    query: (text, params = []) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text, params as Array<any>))) as Promise<ReadonlyArray<any>>,
    ledgerReport: () => run(checkLedger),
    close
  }
}

/** A url of an uploaded document as the service hands it out (`documentUrlOf`; the host is never compared). */
export const documentUrl = (customerId: string, documentId: string) => documentUrlOf("http://127.0.0.1", customerId, documentId)

/**
 * The KYC steps over the services (the partner's commands and the sandbox controls), for suites whose rules need a
 * customer at some tier: uploads, Tier 1, Tier 2 (its body and submission), reviewer decisions, the summary.
 */
export const kycSteps = (services: ServiceHarness, partnerId: string) => {
  const kyc = <A, E>(f: (kyc: Kyc) => Effect.Effect<A, E, any>) => Effect.flatMap(Kyc, f)
  const upload = async (customerId: string, bytes: Uint8Array, type: DocumentType = "OTHER") => {
    const stored = await services.as(partnerId, Effect.flatMap(Documents, (documents) => documents.upload(asId(partnerId), asId(customerId), { bytes, type })))
    return documentUrl(customerId, stored.id)
  }
  const tier1 = (customerId: string, bvn = "12345678901", nin = "10987654321") =>
    services.attempt(partnerId, kyc((k) => k.submitTier1(asId(partnerId), asId(customerId), { bvn, nin })))
  const tier2Body = async (customerId: string, number = "A12345678"): Promise<Tier2Body> => ({
    idDocument: { type: "PASSPORT", number, frontUrl: await upload(customerId, jpeg(), "ID_FRONT") },
    selfieUrl: await upload(customerId, png(), "SELFIE")
  })
  const submitTier2 = (customerId: string, body: Tier2Body) => services.attempt(partnerId, kyc((k) => k.submitTier2(asId(partnerId), asId(customerId), body)))
  const tier2 = async (customerId: string, number = "A12345678") => submitTier2(customerId, await tier2Body(customerId, number))
  const decide = (customerId: string, level: number, decision: { readonly status: "APPROVED" | "REJECTED"; readonly reason?: string }) =>
    services.attempt(partnerId, kyc((k) => k.decide(asId(partnerId), asId(customerId), level, decision)))
  const summary = (customerId: string) => services.as(partnerId, kyc((k) => k.summary(asId(partnerId), asId(customerId))))
  const reverification = (customerId: string) => services.as(partnerId, kyc((k) => k.reverification(asId(partnerId), asId(customerId))))
  const requestReverification = (customerId: string, items: ReadonlyArray<KycItem>, message: string) =>
    services.attempt(partnerId, kyc((k) => k.requestReverification(asId(partnerId), asId(customerId), { items, message })))
  const customer = (customerId: string) => services.as(partnerId, Effect.flatMap(Customers, (customers) => customers.getOwned(asId(partnerId), asId(customerId))))
  return { upload, tier1, tier2Body, submitTier2, tier2, decide, summary, reverification, requestReverification, customer }
}

const jpeg = () => Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9])
const png = () => Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52])

/** The value of a success, or a thrown error naming the failure. */
export const valueOf = <A, E>(outcome: Outcome<A, E>): A => {
  if (outcome.ok) return outcome.value
  throw new Error(`expected a success, got ${outcome.tag ?? "a failure"} ${outcome.code ?? ""}: ${String((outcome.error as { message?: unknown })?.message ?? "")}`)
}

/**
 * The international enrolment steps over the services: a verified customer (Tier 1, Tier 2 approved by the
 * reviewer) with USDT, the Tier 3 submission (decoded by the route's schema first, as the route does) and the
 * international status.
 */
export const internationalSteps = (services: ServiceHarness, partnerId: string) => {
  const kyc = kycSteps(services, partnerId)
  const depositUsdt = async (customerId: string, amount: number) => {
    await services.as(partnerId, Effect.gen(function*() {
      const deposits = yield* Deposits
      const txHash = NodeCrypto.randomBytes(32).toString("hex")
      return yield* deposits.receive(asId(partnerId), asId(customerId), { asset: "USDT", network: "TRON", amount, txHash })
    }))
  }
  const verifiedCustomer = async (funds: { readonly USDT?: number } = {}, tier2 = true) => {
    const id = await services.newCustomer(partnerId)
    valueOf(await kyc.tier1(id))
    if (tier2) {
      valueOf(await kyc.tier2(id))
      valueOf(await kyc.decide(id, 2, { status: "APPROVED" }))
    }
    if (funds.USDT !== undefined) await depositUsdt(id, funds.USDT)
    return id
  }
  const tier3 = (customerId: string, body: unknown) =>
    services.attempt(partnerId, Effect.flatMap(Enrolments, (enrolments) =>
      enrolments.submitTier3(asId(partnerId), asId(customerId), Schema.decodeUnknownSync(Tier3Body)(body))))
  const status = (customerId: string) => services.as(partnerId, Effect.flatMap(Enrolments, (enrolments) => enrolments.status(asId(partnerId), asId(customerId))))
  return { ...kyc, depositUsdt, verifiedCustomer, tier3, status }
}
