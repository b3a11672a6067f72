import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { replayedHeader } from "../api/Replays.js"
import type { Answered } from "../ledger/Idempotency.js"

const markReplayed = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, replayedHeader.toLowerCase(), "true"))
)

/**
 * A money-moving handler's answer: the record, with `Idempotent-Replayed: true` on the response when it is the
 * original record of an earlier request with the same `reference` (docs/reference.md "Idempotency"). A first answer has no such
 * header.
 */
export const answered = <A, E, R>(effect: Effect.Effect<Answered<A>, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(effect, ({ replayed, value }) => (replayed ? Effect.as(markReplayed, value) : Effect.succeed(value)))
