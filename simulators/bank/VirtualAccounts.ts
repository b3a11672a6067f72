import { bankingFor, collectionBank, makeNuban, type Bank } from "./Banks.js"

/**
 * The bank simulator's collection accounts: dedicated virtual accounts and the one-off accounts of bank-transfer
 * funding charges, both issued by the country's collection bank (Banks.ts). Account numbers follow the country's
 * format: a 10-digit NUBAN with its CBN check digit in Nigeria (3-digit bank code + 9-digit serial; name enquiry
 * does not require the check digit, but issued accounts carry it), and the country's account number length
 * elsewhere, never starting with 0. An issued number is never a magic one.
 */
export interface CollectionAccount {
  readonly accountNumber: string
  readonly bankName: string
  readonly bankCode: string
}

/** Random digits the issuer needs for one account number in the country. */
export const serialDigits = (country: string): number => {
  const spec = bankingFor(country)
  if (spec === undefined) throw new Error(`no banking for ${country}`)
  return country === "NG" ? 9 : spec.accountNumberLength
}

export const collectionBankOf = (country: string): Bank => {
  const bank = collectionBank(country)
  if (bank === undefined) throw new Error(`no collection bank for ${country}`)
  return bank
}

/** Turns random bytes into `count` decimal digits (each byte mod 10; the bias is irrelevant for a sandbox). */
const digitsFrom = (random: Uint8Array, count: number): string => {
  if (random.length < count) throw new Error("not enough random bytes for an account number")
  return Array.from(random.subarray(0, count), (byte) => String(byte % 10)).join("")
}

/** A collection account number at the country's collection bank. `random` needs `serialDigits(country)` bytes. */
export const issueCollectionAccount = (country: string, random: Uint8Array): CollectionAccount => {
  const bank = collectionBankOf(country)
  const count = serialDigits(country)
  let digits = digitsFrom(random, count)
  // Real account numbers do not start with 0 outside Nigeria (where the serial may). An all-zero Nigerian serial
  // could make a magic number (0000000001-4, NameEnquiry.ts) once the check digit is added: never issue one.
  if ((country !== "NG" && digits.startsWith("0")) || /^0+$/.test(digits)) digits = "1" + digits.slice(1)
  const accountNumber = country === "NG" ? makeNuban(bank.code, digits) : digits
  return { accountNumber, bankName: bank.name, bankCode: bank.code }
}
