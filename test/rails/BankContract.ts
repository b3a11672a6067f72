import { describe, expect, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import type { SqlClient } from "@effect/sql"
import { Effect, type Layer } from "effect"
import * as Crypto from "node:crypto"
import { type EventBus, transaction } from "../../src/events/Events.js"
import { Bank, BankUnavailable, type PayoutRequest } from "../../src/rails/Bank.js"

/**
 * The contract of the `Bank` port (src/rails/Bank.ts): what ANY adapter must do, simulator or live. A live
 * adapter's test calls `bankContract(layer, fixtures)` with a layer that provides the port plus what the contract
 * needs to open a transaction like the domain does (SqlClient, EventBus: the app's database), and with fixtures
 * the provider is known to answer (a resolvable account, a missing one, ...). docs/rails.md.
 */
export interface BankFixtures<R = never> {
  /** A country the provider serves (ISO 3166-1 alpha-2). */
  readonly country: string
  /** Its currency (for a payout). */
  readonly currency: string
  /** A country the provider does not serve: `banks` answers empty. */
  readonly unservedCountry: string
  /** Digits of an account number of `country`. */
  readonly accountNumberLength: number
  /** A bank of `country`, as `banks(country)` lists it. */
  readonly bank: { readonly code: string; readonly name: string }
  /** A code that is no bank of `country`. */
  readonly unknownBankCode: string
  /** An account at `bank` that resolves; `accountName` when the holder's name is known in advance. */
  readonly resolvable: { readonly accountNumber: string; readonly accountName?: string | undefined }
  /** A well-formed account number of `country` that `bank` does not have. */
  readonly notFound: string
  /** An account number of the wrong length for `country`. */
  readonly wrongLength: string
  /** An account number whose enquiry the provider answers with an outage, when it has such a test hook. */
  readonly unavailable?: string | undefined
  /** A partner and one of its customers that the adapter's requests may name (they exist in the app's database). */
  readonly subject: Effect.Effect<{ readonly partnerId: string; readonly customerId: string }, never, R>
}

type ContractServices = Bank | SqlClient.SqlClient | EventBus

/** The contract's tests, for a suite that already has a layer (`it` from `layer(...)`). */
export const bankContractTests = <R = never>(it: Vitest.MethodsNonLive<ContractServices | R, true>, fixtures: BankFixtures<R>) => {
  const payout = (subject: { readonly partnerId: string; readonly customerId: string }): PayoutRequest => ({
    partnerId: subject.partnerId,
    customerId: subject.customerId,
    payoutId: Crypto.randomUUID(),
    reference: `contract-${Crypto.randomBytes(6).toString("hex")}`,
    currency: fixtures.currency,
    amount: 150_000n,
    bankCode: fixtures.bank.code,
    accountNumber: fixtures.resolvable.accountNumber,
    accountName: fixtures.resolvable.accountName ?? "CONTRACT TEST"
  })

  describe("banks", () => {
    it.effect("lists the banks of a served country: non-empty, unique non-empty codes, named, the fixture bank among them", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const banks = yield* bank.banks(fixtures.country)
        expect(banks.length).toBeGreaterThan(0)
        const codes = banks.map((b) => b.code)
        expect(new Set(codes).size).toBe(codes.length)
        for (const b of banks) {
          expect(b.code.trim()).not.toBe("")
          expect(b.name.trim()).not.toBe("")
        }
        expect(banks).toContainEqual({ code: fixtures.bank.code, name: fixtures.bank.name })
      }))

    it.effect("answers an empty list for a country it does not serve", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        expect(yield* bank.banks(fixtures.unservedCountry)).toEqual([])
      }))
  })

  describe("nameEnquiry", () => {
    it.effect("resolves a good account to a non-empty holder name and the bank's name, the same on a second call", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const first = yield* bank.nameEnquiry(fixtures.country, fixtures.bank.code, fixtures.resolvable.accountNumber)
        if (first._tag !== "Resolved") throw new Error(`expected Resolved, got ${first._tag}`)
        expect(first.bankName).toBe(fixtures.bank.name)
        expect(first.accountName.trim()).not.toBe("")
        if (fixtures.resolvable.accountName !== undefined) expect(first.accountName).toBe(fixtures.resolvable.accountName)
        const second = yield* bank.nameEnquiry(fixtures.country, fixtures.bank.code, fixtures.resolvable.accountNumber)
        expect(second).toEqual(first)
      }))

    it.effect("answers NotFound for an account the bank does not have", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        expect(yield* bank.nameEnquiry(fixtures.country, fixtures.bank.code, fixtures.notFound)).toEqual({ _tag: "NotFound" })
      }))

    it.effect("answers UnknownBank for a code that is no bank of the country", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        expect(yield* bank.nameEnquiry(fixtures.country, fixtures.unknownBankCode, fixtures.resolvable.accountNumber))
          .toEqual({ _tag: "UnknownBank" })
      }))

    it.effect("answers InvalidAccountNumber, saying what is expected, for a number of the wrong length", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const result = yield* bank.nameEnquiry(fixtures.country, fixtures.bank.code, fixtures.wrongLength)
        if (result._tag !== "InvalidAccountNumber") throw new Error(`expected InvalidAccountNumber, got ${result._tag}`)
        expect(result.expected.trim()).not.toBe("")
      }))

    it.effect.runIf(fixtures.unavailable !== undefined)("fails with BankUnavailable when the bank does not answer", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const error = yield* Effect.flip(bank.nameEnquiry(fixtures.country, fixtures.bank.code, fixtures.unavailable!))
        expect(error).toBeInstanceOf(BankUnavailable)
        expect(error._tag).toBe("BankUnavailable")
        expect(error instanceof BankUnavailable && error.reason.trim()).not.toBe("")
      }))
  })

  describe("issueCollectionAccount", () => {
    it.effect("issues, inside a transaction, an account of the country's length at a bank the country lists; two calls differ", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const subject = yield* fixtures.subject
        const listed = yield* bank.banks(fixtures.country)
        const issued = yield* transaction(Effect.all([
          bank.issueCollectionAccount({ ...subject, country: fixtures.country, purpose: "virtual_account" }),
          bank.issueCollectionAccount({ ...subject, country: fixtures.country, purpose: "virtual_account" }),
          bank.issueCollectionAccount({ ...subject, country: fixtures.country, purpose: "charge" })
        ]))
        for (const account of issued) {
          expect(account.accountNumber).toMatch(new RegExp(`^\\d{${fixtures.accountNumberLength}}$`))
          expect(listed).toContainEqual({ code: account.bankCode, name: account.bankName })
        }
        expect(new Set(issued.map((a) => a.accountNumber)).size).toBe(issued.length)
      }))
  })

  describe("collectionOpened and submitPayout", () => {
    it.effect("collectionOpened succeeds inside the charge's transaction", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const subject = yield* fixtures.subject
        yield* transaction(bank.collectionOpened({
          ...subject,
          chargeId: Crypto.randomUUID(),
          expiresAt: new Date(Date.now() + 30 * 60_000)
        }))
      }))

    it.effect("submitPayout succeeds inside the withdrawal's transaction", () =>
      Effect.gen(function*() {
        const bank = yield* Bank
        const subject = yield* fixtures.subject
        yield* transaction(bank.submitPayout(payout(subject)))
      }))
  })
}

/**
 * Runs the Bank contract against an adapter. `adapter` provides `Bank`, SqlClient and EventBus (and whatever the
 * fixtures' `subject` needs); it is built once for the suite and torn down after it.
 */
export const bankContract = <R = never, E = never>(
  adapter: Layer.Layer<ContractServices | R, E>,
  fixtures: BankFixtures<R>,
  name = "Bank contract"
) =>
  layer(adapter, { excludeTestServices: true })(name, (it) => bankContractTests(it, fixtures))
