/**
 * The bank simulator's catalogue: realistic banks per supported country, their codes, and the account number
 * length of each country. Any number of the right length made of digits is accepted; the NUBAN check digit is
 * only used to issue Nigerian collection accounts. Shared by virtual accounts, funding charges, name enquiry and
 * payouts.
 */
export interface Bank {
  readonly code: string
  readonly name: string
  /** Issues virtual accounts and collects bank-transfer funding charges. */
  readonly collections?: boolean
}

export interface CountryBanking {
  readonly country: string
  readonly currency: string
  /** Digits in an account number. */
  readonly accountNumberLength: number
  readonly banks: ReadonlyArray<Bank>
}

export const banking: ReadonlyArray<CountryBanking> = [
  {
    country: "NG",
    currency: "NGN",
    accountNumberLength: 10,
    banks: [
      { code: "044", name: "Access Bank" },
      { code: "050", name: "Ecobank Nigeria" },
      { code: "070", name: "Fidelity Bank" },
      { code: "011", name: "First Bank of Nigeria" },
      { code: "214", name: "First City Monument Bank" },
      { code: "058", name: "Guaranty Trust Bank" },
      { code: "082", name: "Keystone Bank" },
      { code: "076", name: "Polaris Bank" },
      { code: "101", name: "Providus Bank", collections: true },
      { code: "221", name: "Stanbic IBTC Bank" },
      { code: "232", name: "Sterling Bank" },
      { code: "032", name: "Union Bank of Nigeria" },
      { code: "033", name: "United Bank for Africa" },
      { code: "035", name: "Wema Bank", collections: true },
      { code: "057", name: "Zenith Bank" }
    ]
  },
  {
    country: "GH",
    currency: "GHS",
    accountNumberLength: 13,
    banks: [
      { code: "030100", name: "Absa Bank Ghana" },
      { code: "140100", name: "CalBank", collections: true },
      { code: "130100", name: "Ecobank Ghana" },
      { code: "240100", name: "Fidelity Bank Ghana" },
      { code: "040100", name: "GCB Bank" },
      { code: "190100", name: "Stanbic Bank Ghana" }
    ]
  },
  {
    country: "KE",
    currency: "KES",
    accountNumberLength: 12,
    banks: [
      { code: "03", name: "Absa Bank Kenya" },
      { code: "11", name: "Co-operative Bank of Kenya" },
      { code: "68", name: "Equity Bank Kenya", collections: true },
      { code: "01", name: "Kenya Commercial Bank" },
      { code: "07", name: "NCBA Bank Kenya" },
      { code: "31", name: "Stanbic Bank Kenya" }
    ]
  },
  {
    country: "ZA",
    currency: "ZAR",
    accountNumberLength: 10,
    banks: [
      { code: "632005", name: "Absa Bank" },
      { code: "470010", name: "Capitec Bank" },
      { code: "250655", name: "First National Bank", collections: true },
      { code: "198765", name: "Nedbank" },
      { code: "051001", name: "Standard Bank" },
      { code: "678910", name: "TymeBank" }
    ]
  },
  {
    country: "UG",
    currency: "UGX",
    accountNumberLength: 10,
    banks: [
      { code: "022", name: "Absa Bank Uganda" },
      { code: "051", name: "Centenary Bank" },
      { code: "011", name: "dfcu Bank" },
      { code: "031", name: "Stanbic Bank Uganda", collections: true }
    ]
  },
  {
    country: "US",
    currency: "USD",
    accountNumberLength: 10,
    banks: [
      { code: "026009593", name: "Bank of America" },
      { code: "021000089", name: "Citibank" },
      { code: "021000021", name: "JPMorgan Chase Bank", collections: true },
      { code: "121000248", name: "Wells Fargo Bank" }
    ]
  }
]

export const bankingFor = (country: string): CountryBanking | undefined => banking.find((b) => b.country === country)

export const findBank = (country: string, code: string): Bank | undefined =>
  bankingFor(country)?.banks.find((bank) => bank.code === code)

/** The bank that issues virtual accounts and collects charges in a country. */
export const collectionBank = (country: string): Bank | undefined => bankingFor(country)?.banks.find((bank) => bank.collections)

const nubanWeights = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3]

/**
 * CBN NUBAN check digit for a 3-digit bank code and a 9-digit serial: weights 3,7,3 repeated over the 12 digits,
 * check digit = (10 - sum mod 10) mod 10.
 */
export const nubanCheckDigit = (bankCode: string, serial: string): number => {
  const digits = (bankCode.padStart(3, "0") + serial).split("").map(Number)
  if (digits.length !== 12 || digits.some(Number.isNaN)) throw new Error("NUBAN needs a 3-digit bank code and a 9-digit serial")
  const sum = digits.reduce((total, digit, i) => total + digit * nubanWeights[i]!, 0)
  return (10 - (sum % 10)) % 10
}

export const makeNuban = (bankCode: string, serial: string): string => serial + String(nubanCheckDigit(bankCode, serial))

/** Whether a number carries the CBN check digit of the bank: what issued collection accounts satisfy. */
export const isValidNuban = (bankCode: string, accountNumber: string): boolean =>
  /^\d{10}$/.test(accountNumber) && /^\d{3}$/.test(bankCode) &&
  nubanCheckDigit(bankCode, accountNumber.slice(0, 9)) === Number(accountNumber[9])

/**
 * Whether an account number is well formed for a country: digits, exactly the country's length. Test data is
 * forgiving: a Nigerian number need not carry a valid NUBAN check digit (only issued accounts do).
 */
export const isValidAccountNumber = (country: string, accountNumber: string): boolean => {
  const spec = bankingFor(country)
  return spec !== undefined && accountNumber.length === spec.accountNumberLength && /^\d+$/.test(accountNumber)
}
