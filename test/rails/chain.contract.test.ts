import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import type { Customers } from "../../src/customers/Customers.js"
import { transaction } from "../../src/events/Events.js"
import type { Partners } from "../../src/partners/Partners.js"
import { Chain, type SendRequest } from "../../src/rails/Chain.js"
import type { RailMode, RailOutcome } from "../../src/rails/RailPolicy.js"
import { RailPolicies } from "../../simulators/RailPolicies.js"
import { chainContract, type ChainFixtures } from "./ChainContract.js"
import { jobsOf, newSubject, serviceNow, simulatedServicesLayer, type Subject, writeRailJob } from "./SimulatedRails.js"

/**
 * The Chain contract run against the chain simulator (simulators/chain), then what only the simulator promises:
 * the literal hash shapes it describes and the send-outcome jobs it schedules per the `chain` rail policy.
 */
const simulator: ChainFixtures<Partners | Customers> = {
  networks: { tron: "TRON", solana: "SOLANA", evm: ["ETHEREUM", "BSC", "POLYGON"] },
  subject: newSubject()
}

chainContract(simulatedServicesLayer, simulator, "Chain contract: simulator")

const setChainPolicy = (subject: Subject, mode: RailMode, outcome: RailOutcome = "success", delaySeconds?: number) =>
  Effect.flatMap(RailPolicies, (policies) => policies.set(subject.partnerId, "chain", { mode, outcome, delaySeconds }))

const send = (subject: Subject, network: string, toAddress: string): SendRequest => ({
  partnerId: subject.partnerId,
  customerId: subject.customerId,
  sendId: Crypto.randomUUID(),
  network,
  asset: "USDT",
  toAddress,
  amount: 25_000_000n
})

/** A send's hand-over: the chain's job written in the send's transaction. */
const broadcast = (request: SendRequest) => Effect.flatMap(Chain, (chain) => transaction(Effect.flatMap(chain.broadcast(request), writeRailJob)))

layer(simulatedServicesLayer, { excludeTestServices: true })("chain simulator specifics", (it) => {
  it.effect("describes each network's transaction hash shape", () =>
    Effect.gen(function*() {
      const chain = yield* Chain
      expect(chain.txHashShape("ETHEREUM")).toBe("0x and 64 hex digits")
      expect(chain.txHashShape("BSC")).toBe("0x and 64 hex digits")
      expect(chain.txHashShape("POLYGON")).toBe("0x and 64 hex digits")
      expect(chain.txHashShape("TRON")).toBe("64 hex digits")
      expect(chain.txHashShape("SOLANA")).toBe("a base58 transaction signature (64 bytes)")
    }))

  it.effect("issues EIP-55 checksummed EVM addresses (a case-flipped copy is refused), TRON and Solana addresses of their lengths", () =>
    Effect.gen(function*() {
      const chain = yield* Chain
      const subject = yield* newSubject()
      let mixed = 0
      for (let i = 0; i < 10; i++) {
        const evm = yield* chain.issueDepositAddress({ ...subject, network: "ETHEREUM" })
        const body = evm.slice(2)
        if (body !== body.toLowerCase() && body !== body.toUpperCase()) {
          mixed++
          const flipped = "0x" + [...body].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("")
          expect(chain.isValidAddress("ETHEREUM", flipped), flipped).toBe(false)
        }
        expect(chain.isValidAddress("ETHEREUM", evm.toLowerCase())).toBe(true)
        expect(yield* chain.issueDepositAddress({ ...subject, network: "TRON" })).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/)
        expect(yield* chain.issueDepositAddress({ ...subject, network: "SOLANA" })).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
      }
      expect(mixed).toBeGreaterThan(0)
    }))

  describe("broadcast schedules a chain.send_outcome job on the auto chain rail", () => {
    it.effect("default policy (auto, success, 180 s): confirmed with a transaction hash of the send's network", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        const subject = yield* newSubject()
        const now = yield* serviceNow
        const requests = [
          send(subject, "TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"),
          send(subject, "ETHEREUM", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"),
          send(subject, "SOLANA", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
        ]
        for (const request of requests) yield* broadcast(request)
        const jobs = yield* jobsOf(subject.partnerId)
        expect(jobs).toHaveLength(3)
        jobs.forEach((job, i) => {
          const request = requests[i]!
          expect(job).toMatchObject({
            kind: "chain.send_outcome",
            partnerId: subject.partnerId,
            customerId: subject.customerId,
            runAt: new Date(now.getTime() + 180_000),
            status: "PENDING",
            payload: { sendId: request.sendId, outcome: "confirmed" }
          })
          const txHash = job.payload.txHash as string
          expect(chain.isValidTxHash(request.network, txHash), `${request.network} ${txHash}`).toBe(true)
        })
        expect(jobs[0]!.payload.txHash).toMatch(/^[0-9a-f]{64}$/)
        expect(jobs[1]!.payload.txHash).toMatch(/^0x[0-9a-f]{64}$/)
      }))

    it.effect("auto with outcome failure fails as rejected (no hash) after the policy's delay; manual schedules nothing", () =>
      Effect.gen(function*() {
        const failing = yield* newSubject()
        yield* setChainPolicy(failing, "auto", "failure", 30)
        const now = yield* serviceNow
        const request = send(failing, "BSC", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
        yield* broadcast(request)
        expect((yield* jobsOf(failing.partnerId)).map((job) => [job.kind, job.runAt, job.payload])).toEqual([[
          "chain.send_outcome",
          new Date(now.getTime() + 30_000),
          { sendId: request.sendId, outcome: "rejected", txHash: null }
        ]])

        const manual = yield* newSubject()
        yield* setChainPolicy(manual, "manual")
        yield* broadcast(send(manual, "TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"))
        expect(yield* jobsOf(manual.partnerId)).toEqual([])
      }))
  })
})
