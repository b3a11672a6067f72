import { Effect, Layer } from "effect"
import { OperationSources } from "../src/sandbox/Operations.js"
import * as BankSimulator from "./bank/BankSimulator.js"
import { SandboxEftHttp } from "./bank/EftHttp.js"
import { SandboxWithdrawalsHttp } from "./bank/SandboxWithdrawalsHttp.js"
import * as ChainSimulator from "./chain/ChainSimulator.js"
import * as ChainOperations from "./chain/Operations.js"
import { SandboxSendsHttp } from "./chain/SandboxSendsHttp.js"
import * as ExchangeSimulator from "./exchange/ExchangeSimulator.js"
import * as ExchangePrices from "./exchange/Prices.js"
import { SandboxRatesHttp } from "./exchange/RatesHttp.js"
import * as BankOperations from "./bank/Operations.js"
import * as IdentitySimulator from "./identity/IdentitySimulator.js"
import * as IdentityOperations from "./identity/Operations.js"
import * as PayoutEnrolments from "./payout/Enrolments.js"
import * as PayoutPayouts from "./payout/Payouts.js"
import * as PayoutSimulator from "./payout/PayoutSimulator.js"
import * as RailPolicies from "./RailPolicies.js"
import { SandboxRailsHttp } from "./RailsHttp.js"
import { SandboxFundingHttp } from "./SandboxFundingHttp.js"

/**
 * Everything simulated, for the one wiring place (src/App.ts): the rail adapters (built before the domain, which
 * calls them), their outcome jobs (built after it: they call its settlement entry points) and the sandbox
 * controls that drive them over HTTP.
 */
/**
 * The stores the sandbox controls read and write, wired in every mode (the controls are served in sandbox mode
 * only): the rail policies and the simulated exchange's prices.
 */
export const policiesLayer = Layer.mergeAll(RailPolicies.layer, ExchangePrices.layer)

export const railsLayer = Layer.mergeAll(
  BankSimulator.layer,
  ChainSimulator.layer,
  IdentitySimulator.layer,
  ExchangeSimulator.layer,
  PayoutSimulator.layer,
  PayoutEnrolments.layer,
  PayoutPayouts.layer
).pipe(Layer.provideMerge(policiesLayer))

/**
 * Each rail's pending operations, for `GET /sandbox/operations` (src/sandbox/Operations.ts): the `OperationSources`
 * port. A flow that starts operations on a rail adds its source here (docs/sandbox-inspect.md).
 */
export const operationSourcesLayer = Layer.effect(
  OperationSources,
  Effect.map(
    Effect.all([
      BankOperations.operationSources,
      IdentityOperations.operationSources,
      ChainOperations.operationSources,
      PayoutEnrolments.operationSources,
      PayoutPayouts.operationSources
    ]),
    (sources) => sources.flat()
  )
)

export const outcomesLayer = Layer.mergeAll(
  BankSimulator.outcomesLayer,
  IdentitySimulator.outcomesLayer,
  ChainSimulator.outcomesLayer,
  PayoutEnrolments.outcomesLayer,
  PayoutPayouts.outcomesLayer
)

/** Handlers of the rails' sandbox control groups. */
export const controlsLayer = Layer.mergeAll(
  SandboxRailsHttp,
  SandboxFundingHttp,
  SandboxEftHttp,
  SandboxWithdrawalsHttp,
  SandboxRatesHttp,
  SandboxSendsHttp,
  PayoutEnrolments.SandboxInternationalHttp,
  PayoutPayouts.SandboxGlobalSendsHttp
)
