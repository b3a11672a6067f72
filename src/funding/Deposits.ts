import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import { BadRequest } from "../api/ApiError.js"
import { Ids } from "../ids/Ids.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, describeAmountProblem, isAsset, parseAmount, toDecimalString } from "../money/Money.js"
import { Chain } from "../rails/Chain.js"
import type { ChainRailUnavailable } from "../rails/Errors.js"
import { findNetwork, networks, supportsAsset, unsupportedEvmNetworks } from "../reference/Networks.js"
import { type CreateDeposit, type Deposit, TxHashInUse } from "./Api.js"
import * as FundingRepo from "./FundingRepo.js"

/** Decimals an unsupported token's amount may carry (ERC-20 tokens go up to 18). */
const unsupportedScaleMax = 18
const issueAttemptsMax = 5

export const omnibusAccount = (network: string) => `chain_omnibus:${network}`

const toDeposit = (row: FundingRepo.DepositRow): Deposit => ({
  id: row.id,
  customerId: row.customerId,
  asset: row.asset,
  network: row.network,
  amount: Number(row.amount),
  txHash: row.txHash,
  address: row.address,
  status: row.status,
  createdAt: row.createdAt
})

/** Exact decimal text of an unsupported token amount, or a problem; never rounds. */
const unsupportedAmount = (value: number): { ok: true; text: string } | { ok: false; message: string } => {
  const text = String(value)
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text)
  if (match === null || (match[2] ?? "").length > unsupportedScaleMax) {
    return { ok: false, message: `amount: allows at most ${unsupportedScaleMax} decimal places` }
  }
  return { ok: true, text }
}

/** What a supported deposit credits; an unsupported one credits nothing. */
interface Credit {
  readonly asset: Asset
  readonly minor: bigint
}

/** A validated deposit: the network whose address received it, its exact amount text, and what it credits. */
interface Plan {
  readonly addressNetwork: string
  readonly amountText: string
  readonly credit: Credit | undefined
}

/** A deposit as the chain reports it: the transaction hash is always known. */
export type ConfirmedDeposit = CreateDeposit & { readonly txHash: string }

/** Address family of a network: every EVM network shares the customer's one EVM address. */
const familyOf = (network: string) => (findNetwork(network)?.evm === false ? network : "evm")

/** Two addresses are the same account: EVM hex compares without case (EIP-55 is only a checksum); others exactly. */
export const sameAddress = (a: string, b: string) =>
  /^0x[0-9a-fA-F]{40}$/.test(a) && /^0x[0-9a-fA-F]{40}$/.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b

/** True when `address` is one of `own`, the customer's deposit addresses (EVM addresses in any letter case). */
export const isOwnAddress = (own: ReadonlyArray<string>, address: string) => own.some((each) => sameAddress(each, address))

/** Deposit addresses of a customer, one per supported network, and the on-chain deposits that arrive at them. */
export class Deposits extends Effect.Service<Deposits>()("Deposits", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* FundingRepo.FundingRepo
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    const actors = yield* CustomerActors
    const chain = yield* Chain

    /**
     * Address per network. Every EVM network shares one address (one key controls it on every EVM chain); TRON
     * and Solana have their own. Concurrent first reads both insert with ON CONFLICT, so one set wins for all.
     */
    const issued = (customer: Customer): Effect.Effect<ReadonlyMap<string, string>, ChainRailUnavailable> =>
      Effect.gen(function*() {
        for (let attempt = 0; attempt < issueAttemptsMax; attempt++) {
          const rows = yield* repo.addresses(customer.id)
          const byNetwork = new Map(rows.map((row) => [row.network, row.address]))
          const missing = networks.filter((n) => !byNetwork.has(n.network))
          if (missing.length === 0) return byNetwork
          const fresh = new Map<string, string>()
          for (const network of networks) {
            const address = byNetwork.get(network.network)
            if (address !== undefined) fresh.set(familyOf(network.network), address)
          }
          const now = yield* clock.now
          for (const network of missing) {
            const family = familyOf(network.network)
            if (!fresh.has(family)) {
              fresh.set(family, yield* chain.issueDepositAddress({ partnerId: customer.partnerId, customerId: customer.id, network: network.network }))
            }
            yield* repo.insertAddress({ customerId: customer.id, network: network.network, address: fresh.get(family)!, createdAt: now })
          }
        }
        return yield* Effect.dieMessage(`deposits: could not issue addresses after ${issueAttemptsMax} attempts`)
      })

    /**
     * One address per supported network, issued on the first read and the same on every later read. Read first;
     * only a customer still missing an address issues them, as a command of the customer's actor.
     */
    const addresses = Command.fn("Deposits.addresses")(
      function*(customer: Customer) {
        const stored = yield* repo.addresses(customer.id)
        const byNetwork = stored.length === networks.length
          ? new Map(stored.map((row) => [row.network, row.address]))
          : yield* actors.run(customer.partnerId, customer.id, (locked) => issued(locked).pipe(Effect.orDie)).pipe(
            Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("deposits: a customer vanished"))
          )
        return networks.map((n) => ({
          network: n.network,
          displayName: n.displayName,
          address: byNetwork.get(n.network)!,
          assets: [...n.assets],
          confirmations: n.confirmations
        }))
      },
      Effect.provideService(SqlClient.SqlClient, sql)
    )

    /** Validates the request before anything is written: which network family, which address, what amount. */
    const plan = (input: CreateDeposit) => {
      const known = findNetwork(input.network)
      const bad = (message: string) => Effect.fail(new BadRequest({ message }))
      if (input.unsupported === true) {
        if (known !== undefined && supportsAsset(input.network, input.asset)) {
          return bad(`unsupported: ${input.asset} on ${input.network} is supported; omit unsupported to credit it`)
        }
        if (known === undefined && !unsupportedEvmNetworks.includes(input.network)) {
          return bad(
            `network: no address of ours exists on ${input.network}; an unsupported deposit can arrive on a supported ` +
              `network or on an EVM network that shares the EVM address (${unsupportedEvmNetworks.join(", ")})`
          )
        }
        const amount = unsupportedAmount(input.amount)
        if (!amount.ok) return bad(amount.message)
        const addressNetwork = known?.network ?? networks.find((n) => n.evm)!.network
        return Effect.succeed<Plan>({ addressNetwork, amountText: amount.text, credit: undefined })
      }
      if (known === undefined) {
        return bad(`network: must be one of ${networks.map((n) => n.network).join(", ")} (got ${input.network})`)
      }
      const asset = input.asset
      if (!isAsset(asset) || !supportsAsset(known.network, asset)) {
        return bad(`asset: ${asset} is not supported on ${known.network}; supported: ${known.assets.join(", ")}`)
      }
      const parsed = parseAmount(asset, input.amount)
      if (!parsed.ok) return bad(`amount: ${describeAmountProblem(parsed.problem, asset)}`)
      return Effect.succeed<Plan>({
        addressNetwork: known.network,
        amountText: toDecimalString(asset, parsed.minor),
        credit: { asset, minor: parsed.minor }
      })
    }

    /** A repeated transaction hash: the chain shows one transfer, so it is recorded (and credited) once. */
    const alreadyRecorded = (partnerId: string, customer: Customer, input: ConfirmedDeposit) =>
      Effect.gen(function*() {
        const txHash = input.txHash
        const found = yield* repo.depositByTx(partnerId, input.network, txHash)
        if (Option.isNone(found)) return yield* Effect.dieMessage(`deposits: ${txHash} conflicted but is not recorded`)
        const existing = found.value
        if (existing.customerId !== customer.id) {
          return yield* new TxHashInUse({
            message: `txHash ${txHash} on ${input.network} is already recorded as another customer's deposit`
          })
        }
        return toDeposit(existing)
      })

    /** The deposit's event, and for a supported one the credit: omnibus -> the customer's available balance. */
    const announce = (partnerId: string, customer: Customer, input: ConfirmedDeposit, planned: Plan, deposit: Deposit) =>
      Effect.gen(function*() {
        const data = {
          customerId: customer.id,
          asset: deposit.asset,
          network: deposit.network,
          amount: deposit.amount,
          txHash: deposit.txHash,
          address: deposit.address
        }
        if (planned.credit === undefined) {
          yield* outbox.record({ partnerId, customerId: customer.id, type: "deposit.unsupported", data })
          return deposit
        }
        const { asset, minor } = planned.credit
        const event = yield* outbox.record({ partnerId, customerId: customer.id, type: "deposit.received", data })
        yield* ledger.post({
          partnerId,
          customerId: customer.id,
          reason: "deposit",
          resourceType: "deposit",
          resourceId: deposit.id,
          reference: input.txHash,
          eventId: event.envelope.id,
          postings: [
            { account: Ledger.available(customer.id, asset), amount: minor },
            { account: Ledger.house(omnibusAccount(input.network), asset), amount: -minor }
          ]
        }).pipe(Effect.catchTag("InsufficientBalance", Effect.die))
        return deposit
      })

    /** The customer's command: the deposit recorded once per transaction hash, announced and credited. */
    const record = (partnerId: string, customer: Customer, input: ConfirmedDeposit, planned: Plan) =>
      Effect.gen(function*() {
        // Only the chain's own adapter reports deposits: with no adapter there is nothing to receive.
        const address = (yield* issued(customer).pipe(Effect.catchTag("ChainRailUnavailable", Effect.die)))
          .get(planned.addressNetwork)!
        const inserted = yield* repo.insertDeposit({
          id: yield* ids.uuid,
          partnerId,
          customerId: customer.id,
          asset: input.asset,
          network: input.network,
          amount: planned.amountText,
          txHash: input.txHash,
          address,
          status: planned.credit === undefined ? "UNSUPPORTED" : "CREDITED",
          createdAt: yield* clock.now
        })
        if (Option.isNone(inserted)) return yield* alreadyRecorded(partnerId, customer, input)
        return yield* announce(partnerId, customer, input, planned, toDeposit(inserted.value))
      })

    /**
     * The chain rail's entry point for a confirmed on-chain deposit to the customer's address (or an unsupported
     * one, `unsupported: true`): from the sandbox control, or a live custody provider's callback.
     */
    const check = Command.fn("Deposits.check")(function*(input: ConfirmedDeposit) {
      const planned = yield* plan(input)
      if (!chain.isValidTxHash(planned.addressNetwork, input.txHash)) {
        return yield* new BadRequest({
          message: `txHash: a ${input.network} transaction hash is ${chain.txHashShape(planned.addressNetwork)}`
        })
      }
      return planned
    })

    const receive = Command.fn("Deposits.receive")(function*(partnerId: PartnerId, customerId: CustomerId, input: ConfirmedDeposit) {
      const planned = yield* check(input)
      return yield* actors.run(partnerId, customerId, (customer) => record(partnerId, customer, input, planned))
    })

    /**
     * The deposit addresses issued to the customer, as a read along another statement (src/db/Rows.ts `Along`): a
     * send reads them in its idempotency claim's statement and checks them with `isOwnAddress`.
     */
    const ownAddressesAlong = (customerId: string) => repo.addressesAlong(customerId)

    return { addresses, check, receive, ownAddressesAlong } as const
  }),
  dependencies: [FundingRepo.FundingRepo.Default, Outbox.Default, Ledger.Ledger.Default, CustomerActors.Default]
}) {}

export const layer = Deposits.Default
