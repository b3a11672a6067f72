import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import { CustomerId, PartnerId, storedId } from "../api/Ids.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import type { Customer } from "../customers/Customer.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { Outbox } from "../events/Events.js"
import { Deposits, isOwnAddress, omnibusAccount } from "../funding/Deposits.js"
import { BadRequest } from "../api/ApiError.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { Ids, isUuid } from "../ids/Ids.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import { Idempotency } from "../ledger/Idempotency.js"
import { Jobs } from "../jobs/Jobs.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, describeAmountProblem, parseAmount, toNumber } from "../money/Money.js"
import { Chain, type SendFailureCause, type SendOutcome } from "../rails/Chain.js"
import { findNetwork, type Network, type NetworkName, networks } from "../reference/Networks.js"
import {
  InvalidAddress,
  type Send,
  type SendBody,
  SendBelowMinimum,
  type SendNetwork,
  SendNotFound,
  type SendQuoteBody,
  SendStateConflict,
  SendToOwnAddress
} from "./Api.js"
import { defaultSendFees, type SendFee } from "./Fees.js"
import * as SendsRepo from "./SendsRepo.js"

/**
 * Crypto sends (docs/contract.md "Crypto send"). Accepting a send reserves the whole amount (available -> held), records
 * `send.pending` and hands the transaction to the chain rail (`Chain.broadcast`), in one transaction of the
 * customer's command. The chain's outcome comes back through `settle`, the one entry point for it (a simulator job,
 * a sandbox control or a live adapter's callback), and ends the reservation exactly once: CONFIRMED posts it (the
 * net amount to the network's chain omnibus, the fee to revenue), FAILED voids it (the whole amount back).
 *
 * The fee is the network's flat fee, denominated in USDT and taken in the sent asset at par (USDT and USDC are both
 * dollar stablecoins): a USDC send of 10 on BSC pays 0.3 USDC and delivers 9.7 USDC.
 */
export const idempotencyEndpoint = "send"

/** `failureReason` of a failed send, per cause (docs/sends.md). */
export const failureReasons: Readonly<Record<SendFailureCause, string>> = {
  rejected: "Rejected by the network before broadcast: nothing was sent",
  reverted: "Reverted on chain: the transaction was mined but failed",
  dropped: "Dropped from the mempool: the transaction was never mined",
  undeliverable: "Undeliverable: the receiving exchange could not credit the transfer and returned it"
}

export const toSend = (row: Omit<SendsRepo.SendRow, "seq">): Send => ({
  id: row.id,
  reference: row.reference,
  asset: row.asset,
  network: row.network,
  amount: toNumber(row.asset, row.amount),
  fee: toNumber(row.asset, row.fee),
  netAmount: toNumber(row.asset, row.netAmount),
  toAddress: row.toAddress,
  txHash: row.txHash,
  status: row.status,
  failureReason: row.failureReason,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

/** Every send event's `data`: the send as the API shows it, plus `customerId`. */
export const eventData = (customerId: string, send: Send) => ({
  customerId,
  ...send,
  createdAt: send.createdAt.toISOString(),
  updatedAt: send.updatedAt.toISOString()
})

interface Plan {
  readonly network: Network
  readonly asset: Asset
  readonly amount: bigint
  readonly fee: bigint
  readonly minimum: bigint
}

/**
 * Crypto sends of a customer: the quote, the send itself (reserve, `send.pending`, broadcast), the chain's outcome
 * (`settle`), and the reads (see the module comment above).
 */
export class Sends extends Effect.Service<Sends>()("Sends", {
  effect: Effect.gen(function*() {
    const repo = yield* SendsRepo.SendsRepo
    const config = yield* AppConfig
    const clock = yield* ServiceClock
    const outbox = yield* Outbox
    const ids = yield* Ids
    const ledger = yield* Ledger.Ledger
    const idempotency = yield* Idempotency
    const actors = yield* CustomerActors
    const chain = yield* Chain
    const jobs = yield* Jobs
    const deposits = yield* Deposits
    const cursors = yield* Cursors
    const fees = config.sendFees ?? defaultSendFees
    const feeOf = (network: Network): SendFee => fees[network.network as NetworkName]

    const cheapest = networks.reduce((best, n) => (feeOf(n).flatFee < feeOf(best).flatFee ? n : best), networks[0]!)
    const networkViews: ReadonlyArray<SendNetwork> = networks.map((n) => ({
      network: n.network,
      displayName: n.displayName,
      evm: n.evm,
      flatFeeUsdt: toNumber("USDT", feeOf(n).flatFee),
      minSendUsdt: toNumber("USDT", feeOf(n).minSend),
      recommended: n.network === cheapest.network,
      assets: [...n.assets]
    }))

    /** Network, asset and amount checked; the fee and the minimum of the network. */
    const plan = (body: { readonly asset: string; readonly amount: number; readonly network: string }) =>
      Effect.gen(function*() {
        const network = findNetwork(body.network)
        if (network === undefined) {
          return yield* new BadRequest({ message: `network: must be one of ${networks.map((n) => n.network).join(", ")} (got ${body.network})` })
        }
        if (!(network.assets as ReadonlyArray<string>).includes(body.asset)) {
          return yield* new BadRequest({ message: `asset: ${network.network} carries ${network.assets.join(" and ")}, not ${body.asset}` })
        }
        const asset = body.asset as Asset
        const parsed = parseAmount(asset, body.amount)
        if (!parsed.ok) return yield* new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, asset)}` })
        const fee = feeOf(network)
        return { network, asset, amount: parsed.minor, fee: fee.flatFee, minimum: fee.minSend } satisfies Plan
      })

    const available = (customerId: string, asset: Asset) =>
      Effect.map(ledger.balances(customerId), (rows) => rows.find((row) => row.currency === asset)?.available ?? 0n)

    /** The networks a send can use, each with its fee and minimum; the cheapest is `recommended`. */
    const networksOf = (): ReadonlyArray<SendNetwork> => networkViews

    /** What a send of `body` would cost and deliver, and whether the customer's balance covers it. */
    const quote = Command.fn("Sends.quote")(function*(customer: Customer, body: SendQuoteBody) {
      const planned = yield* plan(body)
      const balance = yield* available(customer.id, planned.asset)
      const meetsMin = planned.amount >= planned.minimum
      const sufficientBalance = balance >= planned.amount
      return {
        asset: planned.asset,
        network: planned.network.network,
        amount: toNumber(planned.asset, planned.amount),
        fee: toNumber(planned.asset, planned.fee),
        netAmount: toNumber(planned.asset, planned.amount - planned.fee),
        minSendUsdt: toNumber("USDT", planned.minimum),
        balance: toNumber(planned.asset, balance),
        meetsMin,
        sufficientBalance,
        valid: meetsMin && sufficientBalance
      }
    })

    const belowMinimum = (planned: Plan) =>
      new SendBelowMinimum({
        message: `amount: a send on ${planned.network.network} must be at least ${toNumber("USDT", planned.minimum)} ` +
          `${planned.asset} (the network's minimum; its fee is ${toNumber("USDT", planned.fee)})`,
        details: { minimumAmount: toNumber("USDT", planned.minimum), asset: planned.asset, network: planned.network.network }
      })

    const create = (customer: Customer, reference: string, planned: Plan, toAddress: string) => (id: string) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const draft = {
          id,
          partnerId: customer.partnerId,
          customerId: customer.id,
          reference,
          asset: planned.asset as "USDT" | "USDC",
          network: planned.network.network,
          amount: planned.amount,
          fee: planned.fee,
          netAmount: planned.amount - planned.fee,
          toAddress,
          txHash: null,
          status: "PENDING" as const,
          failureCause: null,
          failureReason: null,
          createdAt: now,
          updatedAt: now
        }
        // The event, the row and the chain's broadcast job are written by the reservation's journal statement
        // (`Ledger.Carried`, `Jobs.carry`).
        const event = yield* outbox.prepare({
          partnerId: customer.partnerId,
          customerId: customer.id,
          type: "send.pending",
          data: eventData(customer.id, toSend({ ...draft, reservationId: id }))
        })
        const row = { ...draft, reservationId: yield* ids.uuid }
        const broadcast = yield* jobs.carry(
          yield* chain.broadcast({
            partnerId: row.partnerId,
            customerId: row.customerId,
            sendId: row.id,
            network: row.network,
            asset: row.asset,
            toAddress: row.toAddress,
            amount: row.netAmount
          })
        )
        const reservation = yield* ledger.reserve({
          id: row.reservationId,
          partnerId: customer.partnerId,
          customerId: customer.id,
          reason: "send",
          resourceType: "send",
          resourceId: id,
          reference,
          eventId: event.id,
          currency: planned.asset,
          amount: planned.amount,
          carry: Ledger.carryAll(event.carried, repo.insertCarried(row), broadcast.carried)
        })
        yield* event.recorded(reservation.carried)
        yield* broadcast.recorded
        return toSend(row)
      })

    const load = (customerId: string) => (id: string) =>
      Effect.flatMap(repo.byId(customerId, id), Option.match({
        onNone: () => Effect.dieMessage(`sends: idempotency key points at a missing send ${id}`),
        onSome: (row) => Effect.succeed(toSend(row))
      }))

    /** A new send (not a repeated reference): checked, then created. */
    const checkedCreate = (customer: Customer, reference: string, body: SendBody) => (id: string, own: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        // Checked only for a new send: a repeated reference answers the original whatever it carries.
        const planned = yield* plan(body)
        const toAddress = body.toAddress
        if (!chain.isValidAddress(planned.network.network, toAddress)) {
          return yield* new InvalidAddress({
            message: `toAddress: not a valid ${planned.network.displayName} address` +
              (planned.network.evm ? " (0x and 40 hex digits; a mixed-case address must carry its EIP-55 checksum)" : "")
          })
        }
        if (planned.amount < planned.minimum) return yield* belowMinimum(planned)
        if (isOwnAddress(own, toAddress)) {
          return yield* new SendToOwnAddress({
            message: "toAddress: is one of the customer's own deposit addresses; a send to it would only come back"
          })
        }
        return yield* create(customer, reference, planned, toAddress)(id)
      })

    /** Sends `body` from the customer's balance (idempotent by `reference`): the whole amount is reserved. */
    const send = Command.fn("Sends.send")((partnerId: PartnerId, customerId: CustomerId, body: SendBody) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          if (body.reference === "." || body.reference === "..") {
            // A send is read and controlled at `/sends/{reference}`: URL parsers resolve these as dot segments.
            return yield* new BadRequest({ message: "reference: \".\" and \"..\" cannot name a send (they are dot segments in its URL)" })
          }
          const reference = body.reference ?? (yield* idempotency.generate)
          // The customer's deposit addresses are read in the claim's statement (one round trip fewer).
          return yield* idempotency.answerAlong(
            { partnerId, endpoint: idempotencyEndpoint, reference, customerId: customer.id },
            deposits.ownAddressesAlong(customer.id),
            checkedCreate(customer, reference, body),
            load(customer.id)
          )
        }))
    )

    /** Applies the chain's outcome to a send whose customer row is locked. */
    const apply = (row: SendsRepo.SendRow, outcome: SendOutcome) =>
      Effect.gen(function*() {
        if (row.status !== "PENDING") {
          return yield* new SendStateConflict({
            message: `A ${row.status} send cannot be ${outcome._tag === "Confirmed" ? "confirmed" : "failed"}`
          })
        }
        const now = yield* clock.now
        const updated = yield* repo.settle(
          outcome._tag === "Confirmed"
            ? { id: row.id, status: "CONFIRMED", txHash: outcome.txHash, failureCause: null, failureReason: null, at: now }
            : {
              id: row.id,
              status: "FAILED",
              txHash: outcome.cause === "rejected" ? null : outcome.txHash,
              failureCause: outcome.cause,
              failureReason: failureReasons[outcome.cause],
              at: now
            }
        )
        const view = toSend(updated)
        const event = yield* outbox.record({
          partnerId: row.partnerId,
          customerId: row.customerId,
          type: outcome._tag === "Confirmed" ? "send.confirmed" : "send.failed",
          data: eventData(row.customerId, view)
        })
        const eventId = event.envelope.id
        if (outcome._tag === "Confirmed") {
          const destinations: Array<Ledger.Posting> = [
            { account: Ledger.house(omnibusAccount(row.network), row.asset), amount: row.netAmount }
          ]
          if (row.fee > 0n) destinations.push({ account: Ledger.house("fee_revenue", row.asset), amount: row.fee })
          yield* ledger.postReservation({ reservationId: row.reservationId, reason: "send", eventId, reference: row.reference, destinations })
        } else {
          yield* ledger.voidReservation({ reservationId: row.reservationId, reason: "send_refund", eventId, reference: row.reference })
        }
        return view
      })

    const settleLocked = (partnerId: PartnerId, customerId: CustomerId, id: string, outcome: SendOutcome) =>
      actors.run(partnerId, customerId, () =>
        Effect.gen(function*() {
          const row = yield* repo.lock(id)
          if (Option.isNone(row)) return yield* Effect.dieMessage(`sends: send ${id} vanished`)
          return yield* apply(row.value, outcome)
        })).pipe(
          Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("sends: a send's customer vanished"))
        )

    /** The chain's outcome of one of the partner's sends, by our send id: the one entry point for it. */
    const settle = Command.fn("Sends.settle")(function*(partnerId: string, sendId: string, outcome: SendOutcome) {
      if (!isUuid(sendId) || !isUuid(partnerId)) return yield* SendNotFound.standard()
      const found = yield* repo.forPartner(partnerId, sendId.toLowerCase())
      if (Option.isNone(found)) return yield* SendNotFound.standard()
      return yield* settleLocked(storedId(PartnerId, partnerId), storedId(CustomerId, found.value.customerId), found.value.id, outcome)
    })

    /** The same, for a sandbox control that names the send by its (owned) customer and reference. */
    const settleByReference = Command.fn("Sends.settleByReference")(
      function*(customer: Customer, reference: string, outcome: SendOutcome) {
        const found = yield* repo.byReference(customer.id, reference)
        if (Option.isNone(found)) return yield* SendNotFound.standard()
        return yield* settleLocked(customer.partnerId, customer.id, found.value.id, outcome)
      }
    )

    const list = Command.fn("Sends.list")(
      (customer: Customer, page: PageRequest) =>
        paginate(
          cursors,
          { list: "sends", partnerId: customer.partnerId, customerId: customer.id },
          page,
          ({ beforeSeq, limit }) => repo.page(customer.id, beforeSeq, limit),
          (row) => String(row.seq)
        ),
      Effect.map((result) => ({ items: result.items.map(toSend), nextCursor: result.nextCursor }))
    )

    const get = Command.fn("Sends.get")(function*(customer: Customer, reference: string) {
      const row = yield* repo.byReference(customer.id, reference)
      if (Option.isNone(row)) return yield* SendNotFound.standard()
      return toSend(row.value)
    })

    /** The partner's sends still PENDING, newest first by (createdAt, id). */
    const pending = Command.fn("Sends.pending")((query: CreatedPageQuery) => repo.pending(query))

    return { networks: networksOf, quote, send, list, get, settle, settleByReference, pending } as const
  }),
  dependencies: [SendsRepo.SendsRepo.Default, Outbox.Default, Ledger.Ledger.Default, Idempotency.Default, CustomerActors.Default, Cursors.Default, Deposits.Default, Jobs.Default]
}) {}

export const layer = Sends.Default
