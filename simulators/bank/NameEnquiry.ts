import { createHash } from "node:crypto"
import { bankingFor, findBank, isValidAccountNumber } from "./Banks.js"

/**
 * The bank simulator's name enquiry: resolves the holder's name of an account number, deterministically (the same
 * number always gives the same realistic name, drawn from per-country name lists by a hash of the number). Any
 * well-formed number (digits, the country's length) resolves; a Nigerian number needs no NUBAN check digit.
 *
 * Magic account numbers: all zeros but a final digit N, padded to the country's length, behave as follows at every
 * bank of every country (`magicAccountNumber(country, N)` builds one). Documented for testers in
 * docs/sandbox-rails.md ("Bank rail magic account numbers").
 *
 * | N | NG, ZA, UG, US (10 digits) | KE (12) | GH (13) | name enquiry | payout |
 * |---|---|---|---|---|---|
 * | 1 | `0000000001` | `000000000001` | `0000000000001` | not found (400 BANK_ACCOUNT_NOT_FOUND) | - |
 * | 2 | `0000000002` | `000000000002` | `0000000000002` | bank unavailable (503 BANK_UNAVAILABLE) | - |
 * | 3 | `0000000003` | `000000000003` | `0000000000003` | resolves | fails (`magicFailureReason`; the whole total is returned) |
 * | 4 | `0000000004` | `000000000004` | `0000000000004` | resolves | completes, then the bank returns the funds (reversed) |
 */
export const MagicAccount = {
  notFound: 1,
  bankUnavailable: 2,
  payoutFails: 3,
  payoutReversed: 4
} as const
export type MagicAccount = (typeof MagicAccount)[keyof typeof MagicAccount]

const magicPattern = /^0+([1-4])$/

/** The magic digit of an account number, if it is one (zeros, then 1 to 4 as the last digit). */
export const magicOf = (accountNumber: string): MagicAccount | undefined => {
  const match = magicPattern.exec(accountNumber)
  return match === null ? undefined : Number(match[1]) as MagicAccount
}

/** The account number of `country` that triggers `magic` at any bank: `magic` zero-padded to the country's length. */
export const magicAccountNumber = (country: string, magic: MagicAccount): string => {
  const spec = bankingFor(country)
  if (spec === undefined) throw new Error(`no banking for ${country}`)
  return String(magic).padStart(spec.accountNumberLength, "0")
}

export type NameEnquiryResult =
  | { readonly _tag: "Resolved"; readonly bankName: string; readonly accountName: string }
  | { readonly _tag: "UnknownBank" }
  | { readonly _tag: "InvalidAccountNumber"; readonly expected: string }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "BankUnavailable" }

const names: Record<string, { readonly first: ReadonlyArray<string>; readonly last: ReadonlyArray<string> }> = {
  NG: {
    first: ["Chinedu", "Aisha", "Oluwaseun", "Ngozi", "Ibrahim", "Folake", "Emeka", "Halima", "Tunde", "Chiamaka", "Musa", "Adaeze"],
    last: ["Okafor", "Bello", "Adeyemi", "Eze", "Abubakar", "Ogunleye", "Nwosu", "Danjuma", "Balogun", "Okonkwo", "Yusuf", "Afolabi"]
  },
  GH: {
    first: ["Kwame", "Akosua", "Kofi", "Ama", "Yaw", "Efua", "Kwabena", "Abena"],
    last: ["Mensah", "Owusu", "Boateng", "Asante", "Osei", "Addo", "Agyeman", "Darko"]
  },
  KE: {
    first: ["Wanjiru", "Otieno", "Achieng", "Kamau", "Njeri", "Mwangi", "Atieno", "Kiprono"],
    last: ["Kariuki", "Odhiambo", "Wambui", "Mutua", "Chebet", "Njoroge", "Omondi", "Kiptoo"]
  },
  ZA: {
    first: ["Thabo", "Naledi", "Sipho", "Lerato", "Pieter", "Zanele", "Johan", "Ayanda"],
    last: ["Nkosi", "Dlamini", "van der Merwe", "Mokoena", "Botha", "Khumalo", "Naidoo", "Molefe"]
  },
  UG: {
    first: ["Okello", "Nakato", "Mugisha", "Namubiru", "Ssemakula", "Akello", "Kato", "Nansubuga"],
    last: ["Mukasa", "Ochieng", "Kaggwa", "Nabirye", "Tumusiime", "Lubega", "Atim", "Byaruhanga"]
  },
  US: {
    first: ["James", "Maria", "Robert", "Jennifer", "Michael", "Linda", "David", "Patricia"],
    last: ["Smith", "Garcia", "Johnson", "Williams", "Brown", "Martinez", "Davis", "Miller"]
  }
}

/** The account holder's name, upper case as banks return it: same number, same name. */
export const accountNameFor = (country: string, accountNumber: string): string => {
  const list = names[country] ?? names.NG!
  const digest = createHash("sha256").update(`${country}:${accountNumber}`).digest()
  const first = list.first[digest[0]! % list.first.length]!
  const middle = list.first[digest[1]! % list.first.length]!
  const last = list.last[digest[2]! % list.last.length]!
  const parts = middle === first ? [last, first] : [last, first, middle]
  return parts.join(" ").toUpperCase()
}

export const nameEnquiry = (country: string, bankCode: string, accountNumber: string): NameEnquiryResult => {
  const spec = bankingFor(country)
  const bank = findBank(country, bankCode)
  if (spec === undefined || bank === undefined) return { _tag: "UnknownBank" }
  if (!isValidAccountNumber(country, accountNumber)) {
    return { _tag: "InvalidAccountNumber", expected: `must be ${spec.accountNumberLength} digits` }
  }
  const magic = magicOf(accountNumber)
  if (magic === MagicAccount.notFound) return { _tag: "NotFound" }
  if (magic === MagicAccount.bankUnavailable) return { _tag: "BankUnavailable" }
  return { _tag: "Resolved", bankName: bank.name, accountName: accountNameFor(country, accountNumber) }
}
