import * as Command from "../observability/Command.js"
import { Effect } from "effect"
import { Partners } from "../partners/Partners.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import type { ConsoleSession } from "./Api.js"
import { approvedPartner } from "./Company.js"

/** The console's webhook route (`POST /partner/update-webhook`): the same setting as the partner API's. */
export const make = Effect.gen(function*() {
  const partners = yield* Partners
  const webhooks = yield* Webhooks

  /** Only an approved partner has webhooks to receive: before, the service POSTs nothing anywhere for it. */
  const updateWebhook = Command.fn("Console.updateWebhook")((session: ConsoleSession, url: string, secret: string | undefined) =>
    Effect.zipRight(approvedPartner(partners, session), webhooks.setUrl(session.partnerId, url, secret)))

  return { updateWebhook } as const
})
