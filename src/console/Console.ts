import { Effect } from "effect"
import { Keys } from "../crypto/Keys.js"
import { Partners } from "../partners/Partners.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import * as ApiKeys from "./ApiKeys.js"
import * as Company from "./Company.js"
import * as ConsoleRepo from "./ConsoleRepo.js"
import * as Sessions from "./Sessions.js"
import * as SignIn from "./SignIn.js"
import { Limits } from "../limits/Limits.js"
import * as WebhookSettings from "./WebhookSettings.js"

/**
 * The partner console (docs/console.md): accounts (scrypt passwords, lockout per email: SignIn.ts), sessions (HS256
 * access tokens on the service clock naming a session row; rotating refresh tokens stored as hashes; sign-out revokes
 * the session: Sessions.ts), the company details and KYB (DRAFT → UNDER_REVIEW → APPROVED | REJECTED | back to DRAFT
 * with a resubmission request, each decision through `Partners.setKyb`, which emits the `partner.*` event:
 * Company.ts), the API key (issued or rotated only once approved: ApiKeys.ts) and the console's webhook route
 * (WebhookSettings.ts). The tables are ConsoleRepo.ts's.
 */
export { lockout } from "./SignIn.js"
export { decideKybInTransaction, type KybStage, stageOf } from "./Company.js"
export { toKeyView } from "./ApiKeys.js"

export class Console extends Effect.Service<Console>()("Console", {
  effect: Effect.gen(function*() {
    const repo = yield* ConsoleRepo.ConsoleRepo
    const sessions = yield* Sessions.make(repo)
    const accounts = yield* SignIn.make(repo, sessions.openSession)
    const company = yield* Company.make(repo)
    const keys = yield* ApiKeys.make
    const webhooks = yield* WebhookSettings.make
    return {
      signUp: accounts.signUp,
      signIn: accounts.signIn,
      refresh: sessions.refresh,
      authenticate: sessions.authenticate,
      signOut: sessions.signOut,
      view: company.view,
      setCompany: company.setCompany,
      submitKyb: company.submitKyb,
      decideKyb: company.decideKyb,
      listKeys: keys.listKeys,
      rotateKey: keys.rotateKey,
      updateWebhook: webhooks.updateWebhook
    } as const
  }),
  dependencies: [ConsoleRepo.ConsoleRepo.Default, Partners.Default, Keys.Default, Webhooks.Default, Limits.Default]
}) {}

export const layer = Console.Default
