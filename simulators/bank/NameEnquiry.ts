import { createHash } from "node:crypto"
import { bankingFor, findBank, isValidAccountNumber, makeNuban } from "./Banks.js"

/**
 * The bank simulator's name enquiry: resolves the holder's name of an account number, deterministically (the same
 * number always gives the same realistic name, drawn from per-country name lists by a hash of the number).
 *
 * Magic account numbers: an account number whose first nine digits are `00000000N` (N below) behaves as follows,
 * at any bank of any country. In Nigeria the tenth digit is still the NUBAN check digit for the bank, so every
 * magic number is a valid NUBAN; `magicAccountNumber` builds one for a bank.
 *
 * | N | name enquiry | payout |
 * |---|---|---|
 * | 1 | not found (400 BANK_ACCOUNT_NOT_FOUND) | - |
 * | 2 | bank unavailable (503 BANK_UNAVAILABLE) | - |
 * | 3 | resolves | fails (the rail rejects it; the whole total is returned) |
 * | 4 | resolves | completes, then the bank returns the funds (reversed) |
 */
export const magicPrefix = "00000000"

export const MagicAccount = {
  notFound: 1,
  bankUnavailable: 2,
  payoutFails: 3,
  payoutReversed: 4
} as const
export type MagicAccount = (typeof MagicAccount)[keyof typeof MagicAccount]

/** The magic digit of an account number, if it is one. */
export const magicOf = (accountNumber: string): MagicAccount | undefined => {
  if (!accountNumber.startsWith(magicPrefix)) return undefined
  const digit = Number(accountNumber[magicPrefix.length])
  return (Object.values(MagicAccount) as ReadonlyArray<number>).includes(digit) ? digit as MagicAccount : undefined
}

/** A valid account number of `country` at `bankCode` that triggers `magic`. */
export const magicAccountNumber = (country: string, bankCode: string, magic: MagicAccount): string => {
  const spec = bankingFor(country)
  if (spec === undefined) throw new Error(`no banking for ${country}`)
  const serial = `${magicPrefix}${magic}`
  if (country === "NG") return makeNuban(bankCode, serial)
  return serial.padEnd(spec.accountNumberLength, "0")
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
  if (!isValidAccountNumber(country, bankCode, accountNumber)) {
    return {
      _tag: "InvalidAccountNumber",
      expected: country === "NG"
        ? "must be a 10-digit NUBAN valid for the bank (check digit)"
        : `must be ${spec.accountNumberLength} digits`
    }
  }
  const magic = magicOf(accountNumber)
  if (magic === MagicAccount.notFound) return { _tag: "NotFound" }
  if (magic === MagicAccount.bankUnavailable) return { _tag: "BankUnavailable" }
  return { _tag: "Resolved", bankName: bank.name, accountName: accountNameFor(country, accountNumber) }
}
