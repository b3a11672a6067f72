import { Layer } from "effect"
import * as BankSimulator from "./bank/BankSimulator.js"
import { SandboxEftHttp } from "./bank/EftHttp.js"
import { SandboxWithdrawalsHttp } from "./bank/SandboxWithdrawalsHttp.js"
import * as ChainSimulator from "./chain/ChainSimulator.js"
import * as IdentitySimulator from "./identity/IdentitySimulator.js"
import * as RailPolicies from "./RailPolicies.js"
import { SandboxRailsHttp } from "./RailsHttp.js"
import { SandboxFundingHttp } from "./SandboxFundingHttp.js"

/**
 * Everything simulated, for the one wiring place (src/App.ts): the rail adapters (built before the domain, which
 * calls them), their outcome jobs (built after it: they call its settlement entry points) and the sandbox
 * controls that drive them over HTTP.
 */
export const policiesLayer = RailPolicies.layer

export const railsLayer = Layer.mergeAll(BankSimulator.layer, ChainSimulator.layer, IdentitySimulator.layer).pipe(
  Layer.provideMerge(policiesLayer)
)

export const outcomesLayer = Layer.mergeAll(BankSimulator.outcomesLayer, IdentitySimulator.outcomesLayer)

/** Handlers of the rails' sandbox control groups. */
export const controlsLayer = Layer.mergeAll(SandboxRailsHttp, SandboxFundingHttp, SandboxEftHttp, SandboxWithdrawalsHttp)
