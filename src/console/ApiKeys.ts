import * as Command from "../observability/Command.js"
import { Effect } from "effect"
import { Partners } from "../partners/Partners.js"
import type { KeyListRow } from "../partners/PartnersRepo.js"
import type { ConsoleSession } from "./Api.js"
import { approvedPartner } from "./Company.js"

/** The console's API keys (docs/console.md): listed without secrets; issued or rotated only once KYB is approved. */

export const toKeyView = (row: KeyListRow) => ({
  id: row.id,
  prefix: row.keyPrefix,
  status: row.revokedAt === null ? "ACTIVE" as const : "REVOKED" as const,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  revokedAt: row.revokedAt
})

export const make = Effect.gen(function*() {
  const partners = yield* Partners

  const listKeys = Command.fn("Console.listKeys")((session: ConsoleSession) =>
    Effect.map(partners.listKeys(session.partnerId), (rows) => rows.map(toKeyView)))

  /** A new key (shown once), every earlier key revoked; refused unless the partner's KYB is approved. */
  const rotateKey = Command.fn("Console.rotateKey")((session: ConsoleSession) =>
    Effect.zipRight(
      approvedPartner(partners, session),
      Effect.map(partners.rotateKey(session.partnerId), (issued) => ({ apiKey: issued.apiKey, key: toKeyView(issued.key) }))
    ))

  return { listKeys, rotateKey } as const
})
