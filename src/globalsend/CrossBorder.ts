import { BigDecimal, Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Ids } from "../ids/Ids.js"
import type { Customer } from "../customers/Customer.js"
import { BadRequest } from "../api/ApiError.js"
import { Enrolments } from "../international/Enrolments.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, describeAmountProblem, parseAmount, toNumber } from "../money/Money.js"
import { PayoutSubmissions } from "../rails/PayoutPartners.js"
import { Jobs } from "../jobs/Jobs.js"
import type { Corridor } from "../reference/Corridors.js"
import { usdtToFiat } from "../trading/Pricing.js"
import { GlobalSendBelowMinimum, type GlobalSendBody, GlobalSendNotEnabled } from "./Api.js"
import * as GlobalSendsRepo from "./GlobalSendsRepo.js"
import { defaultFees, minimumAmountFor, minimumAssetOf, splitCrossBorder } from "./Rules.js"
import { commonFields, makePrepare, toGlobalSend } from "./View.js"

/**
 * A new cross-border send inside the customer's command: the customer's USDT (or its local-currency equivalent at
 * the live buy rate, `prices`) is reserved and handed, less our transfer fee and the payout partner's fee, to the
 * corridor's payout partner (`PayoutSubmissions`). Its outcome comes back through `GlobalSends.settle`.
 */
export const make = Effect.gen(function*() {
  const repo = yield* GlobalSendsRepo.GlobalSendsRepo
  const clock = yield* ServiceClock
  const ledger = yield* Ledger.Ledger
  const enrolments = yield* Enrolments
  const submissions = yield* PayoutSubmissions
  const jobs = yield* Jobs
  const prepare = yield* makePrepare
  const ids = yield* Ids
  const fees = defaultFees

  /** A corridor of a destination group needs the customer's approval for that group (international KYC). */
  const checkEnrolled = (customer: Customer, corridor: Corridor) =>
    Effect.gen(function*() {
      if (corridor.group === null) return
      const status = yield* enrolments.groupStatus(customer.id, corridor.group)
      if (status !== "APPROVED") {
        return yield* new GlobalSendNotEnabled({
          message: `The customer is not approved for the ${corridor.group} destination group (status ${status}); ` +
            "complete international verification (POST .../kyc/tier3) and wait for global_send.enabled",
          details: { group: corridor.group, status }
        })
      }
    })

  /** The amount parsed and split into the fees; refuses what leaves less than the corridor's minimum. */
  const price = (customer: Customer, corridor: Corridor, amount: number) =>
    Effect.gen(function*() {
      const parsed = parseAmount("USDT", amount)
      if (!parsed.ok) return yield* new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, "USDT")}` })
      yield* checkEnrolled(customer, corridor)
      const sameCountry = corridor.country === customer.country
      const split = splitCrossBorder(fees, corridor, parsed.minor, sameCountry)
      const minimum = minimumAssetOf(fees, corridor)
      if (split.assetAmount < minimum) {
        const minimumAmount = toNumber("USDT", minimumAmountFor(fees, corridor, minimum, sameCountry))
        return yield* new GlobalSendBelowMinimum({
          message: `amount: ${toNumber("USDT", parsed.minor)} USDT leaves ${toNumber("USDT", split.assetAmount)} USDT after the fees ` +
            `(transfer ${toNumber("USDT", split.transferFee)}, payout partner ${toNumber("USDT", split.partnerFee)}); the ` +
            `${corridor.corridor} corridor needs at least ${toNumber("USDT", minimum)} USDT after fees. The smallest amount that works is ` +
            `${minimumAmount} USDT`,
          details: { minimumAmount, asset: "USDT" }
        })
      }
      return split
    })

  /** Reserves the funding, stores the send and hands it to the payout partner; `draft` is recorded first. */
  const reserveAndSubmit = (customer: Customer, draft: GlobalSendsRepo.NewGlobalSendRow) =>
    Effect.gen(function*() {
      // The event, the row and the payout partner's job are written by the reservation's journal statement
      // (`Ledger.Carried`, `Jobs.carry`).
      const event = yield* prepare(draft, "global_send.initiated")
      const row = { ...draft, reservationId: yield* ids.uuid }
      const payout = yield* jobs.carry(
        yield* submissions.submitPayout({
          partnerId: row.partnerId,
          customerId: row.customerId,
          payoutId: row.id,
          reference: draft.reference,
          corridor: row.corridor,
          purpose: row.purpose,
          beneficiary: row.beneficiary,
          asset: row.asset,
          assetAmount: row.assetAmount,
          destinationCurrency: row.destinationCurrency
        })
      )
      const reservation = yield* ledger.reserve({
        id: row.reservationId,
        partnerId: customer.partnerId,
        customerId: customer.id,
        reason: "global_send",
        resourceType: "global_send",
        resourceId: draft.id,
        reference: draft.reference,
        eventId: event.id,
        currency: draft.fundingCurrency as Asset,
        amount: draft.fundingAmount,
        carry: Ledger.carryAll(event.carried, repo.insertCarried(row), payout.carried)
      })
      yield* event.recorded(reservation.carried)
      yield* payout.recorded
      return toGlobalSend(row)
    })

  return (
    customer: Customer,
    corridor: Corridor,
    body: GlobalSendBody,
    reference: string,
    beneficiary: Readonly<Record<string, unknown>>,
    prices: Option.Option<BigDecimal.BigDecimal>
  ) => (id: string) =>
    Effect.gen(function*() {
      const split = yield* price(customer, corridor, body.amount)
      const fiat = customer.currency as Asset
      const local = Option.isSome(prices)
      const fundingCurrency: Asset = local ? fiat : "USDT"
      const fundingAmount = Option.match(prices, { onNone: () => split.amount, onSome: (rate) => usdtToFiat(split.amount, fiat, rate, "up") })
      return yield* reserveAndSubmit(customer, {
        ...commonFields(customer, corridor, body, reference, id, yield* clock.now),
        asset: "USDT",
        amount: split.amount,
        transferFee: split.transferFee,
        partnerFee: split.partnerFee,
        assetAmount: split.assetAmount,
        settledBy: local ? "LOCAL_CONVERSION" : "USDT_BALANCE",
        fundingCurrency,
        fundingAmount,
        rate: Option.match(prices, { onNone: () => null, onSome: (rate) => BigDecimal.format(BigDecimal.normalize(rate)) }),
        beneficiary,
        reservationId: null,
        withdrawalId: null
      })
    })
})
