import { Effect, Layer, Option, Schema } from "effect"
import type { RailJob } from "../../src/rails/RailJob.js"
import { Ids } from "../../src/ids/Ids.js"
import { type JobDescription, Jobs } from "../../src/jobs/Jobs.js"
import { Chain, type SendFailureCause, type SendOutcome, type SendRequest } from "../../src/rails/Chain.js"
import { Sends } from "../../src/sends/Sends.js"
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
  outcome: Schema.Literal("confirmed", "rejected", "reverted", "dropped", "undeliverable"),
  txHash: Schema.NullOr(Schema.String)
})
export type SendOutcomeJob = typeof SendOutcomeJob.Type

/** The failure cause of a send when the chain rail's policy outcome is `failure` (and no magic address decides). */
export const policyFailureCause: SendFailureCause = "rejected"

/**
 * Magic destination addresses (docs/sends.md): the account bytes all zero but the last, N, encoded in the
 * network's format (so each is a valid address: EIP-55, base58check, base58). They decide the outcome of a send on
 * the `auto` chain rail, whatever the policy's outcome; the policy's delay still sets the timing.
 */
export const magicOutcomes: ReadonlyArray<readonly [number, SendFailureCause]> = [
  [1, "rejected"],
  [2, "reverted"],
  [3, "dropped"],
  [4, "undeliverable"]
]

export const magicAddress = (format: AddressFormat, n: number): string => {
  const bytes = new Uint8Array(accountBytes(format))
  bytes[bytes.length - 1] = n
  return encodeAddress(format, bytes)
}

/** Every magic address by format, encoded once (EVM ones in lower case: they match in any letter case). */
const magicByFormat: Readonly<Record<AddressFormat, ReadonlyMap<string, SendFailureCause>>> = {
  evm: new Map(magicOutcomes.map(([n, cause]) => [magicAddress("evm", n).toLowerCase(), cause])),
  TRON: new Map(magicOutcomes.map(([n, cause]) => [magicAddress("TRON", n), cause])),
  SOLANA: new Map(magicOutcomes.map(([n, cause]) => [magicAddress("SOLANA", n), cause]))
}

/** The failure a magic address forces, if `address` is one. */
export const magicOutcomeOf = (network: string, address: string): SendFailureCause | undefined => {
  const format = formatOfNetwork(network)
  return magicByFormat[format].get(format === "evm" ? address.toLowerCase() : address)
}

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
    const policies = yield* RailPolicies

    /**
     * Answers the send by a job after the policy's delay (`auto`; the send's journal writes it): a magic address's
     * failure, else the policy's outcome; `manual` leaves it pending for a control call (no job).
     */
    const broadcast = (send: SendRequest) =>
      Effect.gen(function*() {
        const policy = yield* policies.policyFor(send.partnerId, "chain")
        if (policy.mode === "manual") return Option.none<RailJob>()
        const outcome = magicOutcomeOf(send.network, send.toAddress) ??
          (policy.outcome === "success" ? "confirmed" : policyFailureCause)
        // A hash exists for every transaction that reached the network (all but one rejected before broadcast).
        const txHash = outcome === "rejected" ? null : yield* Effect.provideService(randomTxHash(send.network), Ids, ids)
        return Option.some<RailJob>({
          kind: sendOutcomeJobKind,
          partnerId: send.partnerId,
          customerId: send.customerId,
          delaySeconds: policy.delaySeconds,
          payload: { sendId: send.sendId, outcome, txHash } satisfies SendOutcomeJob
        })
      }).pipe(Effect.orDie)

    return Chain.of({
      issueDepositAddress: ({ network }) => {
        const format = formatOfNetwork(network)
        return Effect.map(ids.bytes(accountBytes(format)), (bytes) => encodeAddress(format, bytes))
      },
      isValidAddress: (network, address) => isValidAddress(formatOfNetwork(network), address),
      isValidTxHash: (network, txHash) => isValidTxHash(formatOfNetwork(network), txHash),
      txHashShape: (network) => txHashShapes[formatOfNetwork(network)],
      broadcast
    })
  })
)

/** The port's outcome of a job's payload. */
export const outcomeOf = (job: SendOutcomeJob): SendOutcome =>
  job.outcome === "confirmed"
    ? { _tag: "Confirmed", txHash: job.txHash ?? "" }
    : { _tag: "Failed", cause: job.outcome, txHash: job.txHash }

const describeSendOutcome = (job: SendOutcomeJob): JobDescription => ({
  description: job.outcome === "confirmed" ? `the chain confirms send ${job.sendId}` : `send ${job.sendId} fails: ${job.outcome}`,
  resourceId: job.sendId
})

/** The chain's answers to sends: a job per broadcast, run on the service clock, settling through `Sends.settle`. */
export const outcomesLayer = Layer.effectDiscard(Effect.gen(function*() {
  const jobs = yield* Jobs
  const sends = yield* Sends
  yield* jobs.register(sendOutcomeJobKind, SendOutcomeJob, (payload, job) =>
    sends.settle(job.partnerId, payload.sendId, outcomeOf(payload)).pipe(
      // The operator answered first (a sandbox control call): the chain's later answer has nothing left to move.
      Effect.catchTag("SendStateConflict", () => Effect.void),
      Effect.asVoid
    ), { describe: describeSendOutcome })
}))
