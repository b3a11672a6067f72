/**
 * Replays of money-moving requests: a request whose `reference` was already used by the same customer on the same
 * endpoint is answered with the original record (nothing moves), marked `Idempotent-Replayed: true`; a first answer
 * carries no such header (docs/reference.md "Idempotency"). src/http/Replayed.ts sets the header; the OpenAPI document says so.
 */
export const replayedHeader = "Idempotent-Replayed"

/** The operations answered by reference (their handlers go through `answered` of src/http/Replayed.ts). */
export const replayableOperations: ReadonlyArray<string> = [
  "withdrawals.withdraw",
  "withdrawals.withdrawWallet",
  "sends.send",
  "globalSend.initiate",
  "globalSend.initiateAlias",
  "funding.createCharge",
  "funding.createChargeWallet"
]

type Json = any

/** Documents the header on the success responses of the replayable operations. */
export const describeReplays = (spec: Json): Json => {
  for (const pathItem of Object.values(spec.paths as Json)) {
    for (const operation of Object.values(pathItem as Json) as Array<Json>) {
      if (!replayableOperations.includes(operation?.operationId)) continue
      for (const [status, response] of Object.entries(operation.responses as Json) as Array<[string, Json]>) {
        if (Number(status) >= 300) continue
        response.headers = {
          ...response.headers,
          [replayedHeader]: {
            description: "`true` when this is the original record of an earlier request with the same `reference` " +
              "(nothing moved this time); absent on a first answer.",
            schema: { type: "string", enum: ["true"] }
          }
        }
      }
    }
  }
  return spec
}
