import { describe, expect, it } from "vitest"
import { isValidAccountNumber, isValidNuban, makeNuban, nubanCheckDigit } from "../simulators/bank/Banks.js"
import { accountNameFor, MagicAccount, magicAccountNumber, magicOf, nameEnquiry } from "../simulators/bank/NameEnquiry.js"
import { bankReturnReason, magicFailureReason, planPayout, policyFailureReason } from "../simulators/bank/Payouts.js"
import { issueCollectionAccount } from "../simulators/bank/VirtualAccounts.js"
import {
  base58Decode,
  eip55,
  isValidEvmAddress,
  isValidSolanaAddress,
  isValidTronAddress,
  solanaAddress,
  tronAddress
} from "../simulators/chain/Addresses.js"

/**
 * Independent test vectors (STYLE habit 15): every expected value below is a literal taken from a published
 * source or worked out by hand (or by a separate script), never from the function under test.
 */
const hex = (text: string) => Uint8Array.from(Buffer.from(text, "hex"))

describe("NUBAN check digit (CBN: weights 3,7,3,3,7,3,3,7,3,3,7,3; check = (10 - sum mod 10) mod 10)", () => {
  it("the CBN's own example: First Bank 011, serial 000001457 -> 0000014579", () => {
    // 0*3 + 1*7 + 1*3 | 0*3 + 0*7 + 0*3 | 0*3 + 0*7 + 1*3 | 4*3 + 5*7 + 7*3
    // = 0 + 7 + 3 + 0 + 0 + 0 + 0 + 0 + 3 + 12 + 35 + 21 = 81; 81 mod 10 = 1; 10 - 1 = 9
    expect(nubanCheckDigit("011", "000001457")).toBe(9)
    expect(makeNuban("011", "000001457")).toBe("0000014579")
  })

  it("GTBank 058, serial 015255338 -> 0152553389", () => {
    // 0*3 + 5*7 + 8*3 | 0*3 + 1*7 + 5*3 | 2*3 + 5*7 + 5*3 | 3*3 + 3*7 + 8*3
    // = 0 + 35 + 24 + 0 + 7 + 15 + 6 + 35 + 15 + 9 + 21 + 24 = 191; 191 mod 10 = 1; 10 - 1 = 9
    expect(nubanCheckDigit("058", "015255338")).toBe(9)
    expect(makeNuban("058", "015255338")).toBe("0152553389")
    expect(isValidNuban("058", "0152553389")).toBe(true)
    expect(isValidNuban("058", "0152553388")).toBe(false)
  })

  it("small serials, and a sum that is a multiple of 10 gives check digit 0, not 10", () => {
    // Providus 101, serial 000000003: 1*3 + 1*3 + 3*3 = 15 -> 5; serial 000000001: 1*3 + 1*3 + 1*3 = 9 -> 1
    expect(nubanCheckDigit("101", "000000003")).toBe(5)
    expect(nubanCheckDigit("101", "000000001")).toBe(1)
    // GTBank 058, serial 000000041: 5*7 + 8*3 + 4*7 + 1*3 = 35 + 24 + 28 + 3 = 90 -> (10 - 0) mod 10 = 0
    expect(nubanCheckDigit("058", "000000041")).toBe(0)
    expect(makeNuban("058", "000000041")).toBe("0000000410")
  })
})

describe("account numbers: any well-formed number, magic numbers the same at every bank", () => {
  it("accepts digits of the country's length, whatever the check digit; refuses other lengths and non-digits", () => {
    expect(isValidAccountNumber("NG", "0152553389")).toBe(true)
    expect(isValidAccountNumber("NG", "0152553388")).toBe(true)
    expect(isValidAccountNumber("NG", "015255338")).toBe(false)
    expect(isValidAccountNumber("NG", "01525533890")).toBe(false)
    expect(isValidAccountNumber("NG", "01525533a9")).toBe(false)
    expect(isValidAccountNumber("GH", "1234567890123")).toBe(true)
    expect(isValidAccountNumber("KE", "123456789012")).toBe(true)
    expect(isValidAccountNumber("KE", "1234567890")).toBe(false)
    expect(isValidAccountNumber("FR", "1234567890")).toBe(false)
    expect(nameEnquiry("NG", "058", "0152553388")).toEqual({ _tag: "Resolved", bankName: "Guaranty Trust Bank", accountName: "OKAFOR HALIMA MUSA" })
    expect(nameEnquiry("NG", "058", "015255338")).toEqual({ _tag: "InvalidAccountNumber", expected: "must be 10 digits" })
    expect(nameEnquiry("GH", "040100", "123")).toEqual({ _tag: "InvalidAccountNumber", expected: "must be 13 digits" })
    expect(nameEnquiry("NG", "999", "0152553389")).toEqual({ _tag: "UnknownBank" })
  })

  it("magic N is N zero-padded to the country's length", () => {
    expect(magicAccountNumber("NG", MagicAccount.notFound)).toBe("0000000001")
    expect(magicAccountNumber("NG", MagicAccount.bankUnavailable)).toBe("0000000002")
    expect(magicAccountNumber("NG", MagicAccount.payoutFails)).toBe("0000000003")
    expect(magicAccountNumber("NG", MagicAccount.payoutReversed)).toBe("0000000004")
    expect(magicAccountNumber("GH", MagicAccount.notFound)).toBe("0000000000001")
    expect(magicAccountNumber("KE", MagicAccount.payoutFails)).toBe("000000000003")
    expect(magicAccountNumber("ZA", MagicAccount.bankUnavailable)).toBe("0000000002")
    expect(magicOf("0000000001")).toBe(1)
    expect(magicOf("0000000000004")).toBe(4)
    for (const ordinary of ["0000000005", "0000000000", "0000000010", "1000000001", "0000000018"]) {
      expect(magicOf(ordinary), ordinary).toBeUndefined()
    }
  })

  it("magic numbers answer the same at every bank of every country", () => {
    for (const [country, bank] of [["NG", "058"], ["NG", "044"], ["GH", "040100"], ["KE", "68"], ["US", "021000021"]] as const) {
      const length = { NG: 10, GH: 13, KE: 12, US: 10 }[country]
      const magic = (n: number) => String(n).padStart(length, "0")
      expect(nameEnquiry(country, bank, magic(1))).toEqual({ _tag: "NotFound" })
      expect(nameEnquiry(country, bank, magic(2))).toEqual({ _tag: "BankUnavailable" })
      expect(nameEnquiry(country, bank, magic(3))._tag).toBe("Resolved")
      expect(nameEnquiry(country, bank, magic(4))._tag).toBe("Resolved")
    }
  })

  it("payout plans and their reasons are fixed strings", () => {
    expect(policyFailureReason).toBe("Payout rejected by the beneficiary bank")
    expect(magicFailureReason).toBe("Beneficiary account cannot receive credits")
    expect(bankReturnReason).toBe("Returned by the beneficiary bank")
    expect(planPayout("0000000003", "success")).toEqual({ _tag: "Fail", reason: "Beneficiary account cannot receive credits" })
    expect(planPayout("0000000004", "failure")).toEqual({ _tag: "Complete", thenReverse: true })
    expect(planPayout("1234567896", "failure")).toEqual({ _tag: "Fail", reason: "Payout rejected by the beneficiary bank" })
    expect(planPayout("1234567896", "success")).toEqual({ _tag: "Complete", thenReverse: false })
  })
})

describe("holder names are deterministic (sha256 of `country:number` picks from the country's lists)", () => {
  it("pins the names of literal numbers (computed once by a separate script)", () => {
    expect(accountNameFor("NG", "0123456789")).toBe("OGUNLEYE MUSA")
    expect(accountNameFor("NG", "1234567890")).toBe("OKAFOR AISHA OLUWASEUN")
    expect(accountNameFor("NG", "1234567896")).toBe("OGUNLEYE CHINEDU AISHA")
    expect(accountNameFor("NG", "0000000003")).toBe("ADEYEMI FOLAKE EMEKA")
  })
})

describe("collection accounts issued by the simulator", () => {
  it("Nigeria: a NUBAN of Providus 101 from the random digits (byte mod 10)", () => {
    // bytes 0..8 -> serial 012345678; 1*3 + 0*7 + 1*3 | 0*3 + 1*7 + 2*3 | 3*3 + 4*7 + 5*3 | 6*3 + 7*7 + 8*3
    // = 3 + 0 + 3 + 0 + 7 + 6 + 9 + 28 + 15 + 18 + 49 + 24 = 162 -> 8
    expect(issueCollectionAccount("NG", Uint8Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8]))).toEqual({
      accountNumber: "0123456788",
      bankName: "Providus Bank",
      bankCode: "101"
    })
  })

  it("never issues a magic number: an all-zero serial becomes 100000000 (101: 3 + 3 + 3 = 9 -> check 1)", () => {
    // Serial 000000000 at 101 would be 0000000004 (1*3 + 1*3 = 6 -> 4), the magic "payout reversed" number.
    expect(issueCollectionAccount("NG", new Uint8Array(9)).accountNumber).toBe("1000000001")
    expect(issueCollectionAccount("GH", new Uint8Array(13)).accountNumber).toBe("1000000000000")
  })
})

describe("chain addresses", () => {
  // The four mixed-case vectors of EIP-55 itself (ethereum/EIPs, EIPS/eip-55.md, "Test Cases").
  const eip55Vectors = [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"
  ]

  it("EVM: eip55 reproduces the EIP-55 vectors from lower and upper case; a flipped letter is refused", () => {
    for (const vector of eip55Vectors) {
      expect(eip55(vector.slice(2).toLowerCase())).toBe(vector)
      expect(eip55(vector.slice(2).toUpperCase())).toBe(vector)
      expect(isValidEvmAddress(vector)).toBe(true)
      expect(isValidEvmAddress(vector.toLowerCase())).toBe(true)
    }
    expect(isValidEvmAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")).toBe(false)
    expect(isValidEvmAddress("0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359")).toBe(false)
    expect(isValidEvmAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe")).toBe(false)
  })

  it("TRON: the USDT-TRC20 contract TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t is 41a614f803b6fd780986a42c78ec9c7f77e6ded13c", () => {
    // Checked with a separate base58 decoder: 25 bytes 41a614f8...d13c + 710277f5, and the first 4 bytes of
    // sha256(sha256(41a614f8...d13c)) are 710277f5.
    expect(tronAddress(hex("a614f803b6fd780986a42c78ec9c7f77e6ded13c"))).toBe("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")
    expect(Buffer.from(base58Decode("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")!).toString("hex"))
      .toBe("41a614f803b6fd780986a42c78ec9c7f77e6ded13c710277f5")
    expect(isValidTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe(true)
    expect(isValidTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u")).toBe(false)
  })

  it("Solana: 32 zero bytes are the system program 111...1 (32 ones); the USDC mint decodes to its key", () => {
    expect(solanaAddress(new Uint8Array(32))).toBe("11111111111111111111111111111111")
    expect(isValidSolanaAddress("11111111111111111111111111111111")).toBe(true)
    const usdcMint = "c6fa7af3bedbad3a3d65f36aabc97431b1bbe4c2d2f6e0e47ca60203452f5d61"
    expect(solanaAddress(hex(usdcMint))).toBe("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
    expect(isValidSolanaAddress("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")).toBe(true)
    expect(isValidSolanaAddress("1111111111111111111111111111111")).toBe(false)
  })
})
