import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { transaction } from "../../src/events/Events.js"
import { Bank, type PayoutRequest } from "../../src/rails/Bank.js"
import type { RailMode, RailOutcome } from "../../src/rails/RailPolicy.js"
import { RailPolicies } from "../../simulators/RailPolicies.js"
import type { Customers } from "../../src/customers/Customers.js"
import type { Partners } from "../../src/partners/Partners.js"
import { bankContract, type BankFixtures } from "./BankContract.js"
import { jobsOf, newSubject, serviceNow, simulatedServicesLayer, type Subject, writeRailJob } from "./SimulatedRails.js"

/**
 * The Bank contract run against the bank simulator (simulators/bank), then what only the simulator promises:
 * its magic account numbers and the jobs it schedules per rail policy (docs/sandbox-rails.md). Every expected
 * value is a literal: the magic numbers and reasons from the documentation, holder names computed once by a
 * separate script (sha256 of `country:number` over the name lists).
 */
const nigeria: BankFixtures<Partners | Customers> = {
  country: "NG",
  currency: "NGN",
  unservedCountry: "FR",
  accountNumberLength: 10,
  bank: { code: "058", name: "Guaranty Trust Bank" },
  unknownBankCode: "999",
  resolvable: { accountNumber: "0152553388", accountName: "OKAFOR HALIMA MUSA" },
  notFound: "0000000001",
  wrongLength: "015255338",
  unavailable: "0000000002",
  subject: newSubject("NG")
}

const ghana: BankFixtures<Partners | Customers> = {
  country: "GH",
  currency: "GHS",
  unservedCountry: "DE",
  accountNumberLength: 13,
  bank: { code: "040100", name: "GCB Bank" },
  unknownBankCode: "058",
  resolvable: { accountNumber: "1234567890123", accountName: "ADDO KWABENA AMA" },
  notFound: "0000000000001",
  wrongLength: "0152553388",
  unavailable: "0000000000002",
  subject: newSubject("GH")
}

bankContract(simulatedServicesLayer, nigeria, "Bank contract: simulator, Nigeria")
bankContract(simulatedServicesLayer, ghana, "Bank contract: simulator, Ghana")

/** Independent NUBAN check (CBN: weights 3,7,3 over bank code + serial; check = (10 - sum mod 10) mod 10). */
const nubanOk = (bankCode: string, accountNumber: string) => {
  const digits = (bankCode + accountNumber.slice(0, 9)).split("").map(Number)
  const weights = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3]
  const sum = digits.reduce((total, d, i) => total + d * weights[i]!, 0)
  return (10 - (sum % 10)) % 10 === Number(accountNumber[9])
}

const setBankPolicy = (subject: Subject, mode: RailMode, outcome: RailOutcome = "success", delaySeconds?: number) =>
  Effect.flatMap(RailPolicies, (policies) => policies.set(subject.partnerId, "bank", { mode, outcome, delaySeconds }))

const payoutTo = (subject: Subject, accountNumber: string): PayoutRequest => ({
  partnerId: subject.partnerId,
  customerId: subject.customerId,
  payoutId: Crypto.randomUUID(),
  reference: `sim-${Crypto.randomBytes(6).toString("hex")}`,
  currency: "NGN",
  amount: 150_000n,
  bankCode: "058",
  accountNumber,
  accountName: "ANY NAME"
})

/** A withdrawal's hand-over: the bank's job written in the withdrawal's transaction. */
const submit = (payout: PayoutRequest) => Effect.flatMap(Bank, (bank) => transaction(Effect.flatMap(bank.submitPayout(payout), writeRailJob)))

const plus = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000)

layer(simulatedServicesLayer, { excludeTestServices: true })("bank simulator specifics", (it) => {
  describe("catalogue and collection accounts", () => {
    it.effect("lists Nigeria's 15 banks with their CBN codes; Providus and Wema collect", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const banks = yield* bank.banks("NG")
        expect(banks).toHaveLength(15)
        expect(banks).toContainEqual({ code: "044", name: "Access Bank" })
        expect(banks).toContainEqual({ code: "057", name: "Zenith Bank" })
        expect(banks).toContainEqual({ code: "101", name: "Providus Bank" })
      }))

    it.effect("issues Nigerian collection accounts at Providus Bank (101) carrying a valid NUBAN check digit", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const subject = yield* newSubject("NG")
        for (let i = 0; i < 20; i++) {
          const account = yield* bank.issueCollectionAccount({ ...subject, country: "NG", purpose: "charge" })
          expect(account).toMatchObject({ bankCode: "101", bankName: "Providus Bank" })
          expect(nubanOk("101", account.accountNumber), account.accountNumber).toBe(true)
          expect(account.accountNumber).not.toMatch(/^0{9}[1-4]$/)
        }
      }))

    it.effect("issues accounts outside Nigeria at the country's collection bank, never starting with 0", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const subject = yield* newSubject("NG")
        const expected = [
          ["GH", 13, "140100", "CalBank"],
          ["KE", 12, "68", "Equity Bank Kenya"],
          ["ZA", 10, "250655", "First National Bank"],
          ["UG", 10, "031", "Stanbic Bank Uganda"],
          ["US", 10, "021000021", "JPMorgan Chase Bank"]
        ] as const
        for (const [country, length, code, name] of expected) {
          const account = yield* bank.issueCollectionAccount({ ...subject, country, purpose: "virtual_account" })
          expect(account).toMatchObject({ bankCode: code, bankName: name })
          expect(account.accountNumber).toMatch(new RegExp(`^[1-9]\\d{${length - 1}}$`))
        }
      }))

    it.effect("magic numbers 3 and 4 resolve at any bank (only their payouts are special)", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        for (const [country, code, number] of [["NG", "044", "0000000003"], ["NG", "057", "0000000004"], ["KE", "68", "000000000003"]] as const) {
          expect((yield* bank.nameEnquiry(country, code, number))._tag).toBe("Resolved")
        }
        expect(yield* bank.nameEnquiry("KE", "68", "000000000001")).toEqual({ _tag: "NotFound" })
        expect(yield* bank.nameEnquiry("NG", "058", "01525533a8")).toEqual({ _tag: "InvalidAccountNumber", expected: "must be 10 digits" })
      }))
  })

  describe("submitPayout schedules a withdrawal.payout job on the auto bank rail", () => {
    it.effect("default policy (auto, success, 60 s): an ordinary account completes after 60 s", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const now = yield* serviceNow
        const payout = payoutTo(subject, "0152553388")
        yield* submit(payout)
        expect(yield* jobsOf(subject.partnerId)).toEqual([{
          kind: "withdrawal.payout",
          partnerId: subject.partnerId,
          customerId: subject.customerId,
          runAt: plus(now, 60),
          status: "PENDING",
          payload: { withdrawalId: payout.payoutId, move: "complete", reason: null, reverseAfterSeconds: null }
        }])
      }))

    it.effect("magic 0000000003 fails with its reason; 0000000004 completes, then returns after another delay", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const failing = payoutTo(subject, "0000000003")
        const returned = payoutTo(subject, "0000000004")
        yield* submit(failing)
        yield* submit(returned)
        const jobs = yield* jobsOf(subject.partnerId)
        expect(jobs.map((job) => [job.kind, job.payload])).toEqual([
          ["withdrawal.payout", { withdrawalId: failing.payoutId, move: "fail", reason: "Beneficiary account cannot receive credits", reverseAfterSeconds: null }],
          ["withdrawal.payout", { withdrawalId: returned.payoutId, move: "complete", reason: null, reverseAfterSeconds: 60 }]
        ])
      }))

    it.effect("auto with outcome failure and a 5 s delay: ordinary accounts fail, magic numbers still win", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        yield* setBankPolicy(subject, "auto", "failure", 5)
        const now = yield* serviceNow
        const ordinary = payoutTo(subject, "0152553388")
        const failing = payoutTo(subject, "0000000003")
        const returned = payoutTo(subject, "0000000004")
        for (const payout of [ordinary, failing, returned]) yield* submit(payout)
        const jobs = yield* jobsOf(subject.partnerId)
        expect(jobs.map((job) => job.runAt)).toEqual([plus(now, 5), plus(now, 5), plus(now, 5)])
        expect(jobs.map((job) => job.payload)).toEqual([
          { withdrawalId: ordinary.payoutId, move: "fail", reason: "Payout rejected by the beneficiary bank", reverseAfterSeconds: null },
          { withdrawalId: failing.payoutId, move: "fail", reason: "Beneficiary account cannot receive credits", reverseAfterSeconds: null },
          { withdrawalId: returned.payoutId, move: "complete", reason: null, reverseAfterSeconds: 5 }
        ])
      }))

    it.effect("manual mode schedules nothing, magic numbers included (the sandbox controls decide)", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        yield* setBankPolicy(subject, "manual", "failure")
        for (const number of ["0152553388", "0000000003", "0000000004"]) yield* submit(payoutTo(subject, number))
        expect(yield* jobsOf(subject.partnerId)).toEqual([])
      }))

    it.effect("submitPayout writes nothing itself; a rolled-back withdrawal transaction leaves no job behind", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const bank = yield* Bank
        const job = yield* transaction(bank.submitPayout(payoutTo(subject, "0152553388")))
        expect(Option.map(job, (each) => each.kind)).toEqual(Option.some("withdrawal.payout"))
        expect(yield* jobsOf(subject.partnerId)).toEqual([])
        const outcome = yield* transaction(
          Effect.zipRight(Effect.flatMap(bank.submitPayout(payoutTo(subject, "0152553388")), writeRailJob), Effect.fail("abort" as const))
        ).pipe(Effect.flip)
        expect(outcome).toBe("abort")
        expect(yield* jobsOf(subject.partnerId)).toEqual([])
      }))
  })

  describe("collectionOpened schedules the payer's payment only on auto with outcome success", () => {
    const open = (subject: Subject, chargeId: string) =>
      Effect.flatMap(Bank, (bank) =>
        transaction(bank.collectionOpened({ ...subject, chargeId, expiresAt: new Date(Date.now() + 30 * 60_000) })))

    it.effect("default policy: a funding.charge_autopay job after 60 s naming the charge", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const now = yield* serviceNow
        const chargeId = Crypto.randomUUID()
        yield* open(subject, chargeId)
        expect(yield* jobsOf(subject.partnerId)).toEqual([{
          kind: "funding.charge_autopay",
          partnerId: subject.partnerId,
          customerId: subject.customerId,
          runAt: plus(now, 60),
          status: "PENDING",
          payload: { chargeId }
        }])
      }))

    it.effect("auto with a 7 s delay pays after 7 s; auto failure and manual schedule nothing", () =>
      Effect.gen(function*() {
        const paying = yield* newSubject()
        yield* setBankPolicy(paying, "auto", "success", 7)
        const now = yield* serviceNow
        yield* open(paying, Crypto.randomUUID())
        expect((yield* jobsOf(paying.partnerId)).map((job) => [job.kind, job.runAt])).toEqual([["funding.charge_autopay", plus(now, 7)]])

        const failing = yield* newSubject()
        yield* setBankPolicy(failing, "auto", "failure")
        yield* open(failing, Crypto.randomUUID())
        expect(yield* jobsOf(failing.partnerId)).toEqual([])

        const manual = yield* newSubject()
        yield* setBankPolicy(manual, "manual")
        yield* open(manual, Crypto.randomUUID())
        expect(yield* jobsOf(manual.partnerId)).toEqual([])
      }))
  })
})
