import { Effect, Layer, Schema } from "effect"
import { Ids } from "../../src/ids/Ids.js"
import { Jobs } from "../../src/jobs/Jobs.js"
import { Chain } from "../../src/rails/Chain.js"
import { findNetwork } from "../../src/reference/Networks.js"
import { RailPolicies } from "../RailPolicies.js"
import {
  accountBytes,
  type AddressFormat,
  encodeAddress,
  encodeTxHash,
  formatOf,
  isValidAddress,
  isValidTxHash,
  txHashBytes
} from "./Addresses.js"

/**
 * The simulated chain behind the `Chain` port (sandbox): addresses and transaction hashes in each network's real
 * format (Addresses.ts), deposits played by `POST /sandbox/customers/{id}/deposits`, and sends answered per the
 * partner's `chain` rail policy by a job on the service clock (`auto`), or left pending for a control call
 * (`manual`).
 */
export const sendOutcomeJobKind = "chain.send_outcome"

export const SendOutcomeJob = Schema.Struct({
  sendId: Schema.String,
  outcome: Schema.Literal("confirmed", "failed"),
  txHash: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String)
})

/** Failure reason of a send when the chain rail's policy outcome is `failure`. */
export const sendFailureReason = "The network rejected the transaction"

/** Address format of a network; a network we do not list is an EVM network (the only kind an address of ours spans). */
export const formatOfNetwork = (network: string): AddressFormat => {
  const known = findNetwork(network)
  return known === undefined ? "evm" : formatOf(known.network, known.evm) ?? "evm"
}

const txHashShapes: Record<AddressFormat, string> = {
  evm: "0x and 64 hex digits",
  TRON: "64 hex digits",
  SOLANA: "a base58 transaction signature (64 bytes)"
}

/** A fresh transaction hash in the network's format. */
export const randomTxHash = (network: string) =>
  Effect.flatMap(Ids, (ids) => {
    const format = formatOfNetwork(network)
    return Effect.map(ids.bytes(txHashBytes(format)), (bytes) => encodeTxHash(format, bytes))
  })

export const layer = Layer.effect(
  Chain,
  Effect.gen(function*() {
    const ids = yield* Ids
    const jobs = yield* Jobs
    const policies = yield* RailPolicies

    return Chain.of({
      issueDepositAddress: ({ network }) => {
        const format = formatOfNetwork(network)
        return Effect.map(ids.bytes(accountBytes(format)), (bytes) => encodeAddress(format, bytes))
      },
      isValidAddress: (network, address) => isValidAddress(formatOfNetwork(network), address),
      isValidTxHash: (network, txHash) => isValidTxHash(formatOfNetwork(network), txHash),
      txHashShape: (network) => txHashShapes[formatOfNetwork(network)],
      broadcast: (send) =>
        Effect.gen(function*() {
          const policy = yield* policies.policyFor(send.partnerId, "chain")
          if (policy.mode === "manual") return
          const confirmed = policy.outcome === "success"
          yield* jobs.schedule({
            kind: sendOutcomeJobKind,
            partnerId: send.partnerId,
            customerId: send.customerId,
            delaySeconds: policy.delaySeconds,
            payload: {
              sendId: send.sendId,
              outcome: confirmed ? "confirmed" : "failed",
              txHash: confirmed ? yield* Effect.provideService(randomTxHash(send.network), Ids, ids) : null,
              reason: confirmed ? null : sendFailureReason
            }
          })
        }).pipe(Effect.orDie)
    })
  })
)
