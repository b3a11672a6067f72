import { Schema } from "effect"
import { DestinationGroupKey } from "./Groups.js"

/**
 * The global-send corridors (docs/contract.md "Corridor", "Global send"): where a customer can pay out, in which currency,
 * how it is delivered, and what the recipient form asks for. One list, in one place: the payout-partner port's
 * adapters serve it (src/rails/PayoutPartners.ts), the contract describes it, and the global-send flow (later)
 * checks a `beneficiary` against it. Schemas and constants only: the contract imports this module.
 *
 * - `corridor`: the stable key, `<country>-<currency>-<bank|mobile>` (`KE-KES-mobile`).
 * - `region`: one of the regions of docs/contract.md "Corridor".
 * - `group`: the destination group whose enrolment (Tier 3) the corridor needs, or null for the African corridors,
 *   which need none. A group corridor's country is one of its group's `countries`.
 * - `deliveryMethod`: `bank` (an account at a bank) or `mobile_money` (a mobile-money wallet, keyed by phone).
 * - `recipientSchema`: the recipient form, one descriptor per `beneficiary[key]`. `pattern` is an anchored
 *   ECMAScript regular expression, used without flags (`new RegExp(pattern).test(value)`), written with ASCII
 *   escapes only (`\d`, `\u4E00`) so that other engines read it the same; `patternHint` says it in words;
 *   `placeholder` is a valid example (it always matches `pattern`); `options` lists the only accepted values;
 *   `keyboard` suggests the input keyboard.
 * - China only (docs/contract.md "Global send", China corridor): `recipientFields` (every key `beneficiary` must carry,
 *   including the structured `logisticsTracking` and `documents` that a flat descriptor cannot describe),
 *   `requiredDocuments`, `allowedPurposes` and `minAssetAmount` (USDT after fees, a number). Absent elsewhere.
 */

export const corridorRegions = ["africa", "asia", "europe", "middle_east", "north_america", "south_america", "oceania"] as const
export const CorridorRegion = Schema.Literal(...corridorRegions)
export type CorridorRegion = typeof CorridorRegion.Type

export const DeliveryMethod = Schema.Literal("bank", "mobile_money")
export type DeliveryMethod = typeof DeliveryMethod.Type

export const Keyboard = Schema.Literal("text", "numeric", "phone", "email")
export type Keyboard = typeof Keyboard.Type

/** docs/contract.md "Global send": the purposes of a cross-border send. */
export const sendPurposes = [
  "FAMILY_SUPPORT",
  "EDUCATION",
  "MEDICAL",
  "GOODS_PAYMENT",
  "SERVICES_PAYMENT",
  "SALARY",
  "TRAVEL",
  "RENT_PROPERTY",
  "GIFT",
  "OWN_ACCOUNT_TRANSFER",
  "OTHER"
] as const
export const SendPurpose = Schema.Literal(...sendPurposes)
export type SendPurpose = typeof SendPurpose.Type

/** The documents a China send carries under `beneficiary.documents`, each `{ type, url }`. */
export const CorridorDocument = Schema.Literal("invoice", "contract")
export type CorridorDocument = typeof CorridorDocument.Type

/** One field of a recipient form (docs/contract.md "Corridor" `recipientSchema`). */
export const RecipientField = Schema.Struct({
  key: Schema.String,
  label: Schema.String,
  required: Schema.Boolean,
  pattern: Schema.optional(Schema.String),
  patternHint: Schema.optional(Schema.String),
  options: Schema.optional(Schema.Array(Schema.String)),
  keyboard: Schema.optional(Keyboard),
  placeholder: Schema.optional(Schema.String)
})
export type RecipientField = typeof RecipientField.Type

export const Corridor = Schema.Struct({
  corridor: Schema.String,
  country: Schema.String,
  currency: Schema.String,
  region: CorridorRegion,
  group: Schema.NullOr(DestinationGroupKey),
  deliveryMethod: DeliveryMethod,
  recipientSchema: Schema.Array(RecipientField),
  recipientFields: Schema.optional(Schema.Array(Schema.String)),
  requiredDocuments: Schema.optional(Schema.Array(CorridorDocument)),
  allowedPurposes: Schema.optional(Schema.Array(SendPurpose)),
  minAssetAmount: Schema.optional(Schema.Number)
})
export type Corridor = typeof Corridor.Type

// ---------------------------------------------------------------------------------------------------------------
// Recipient fields shared by several corridors
// ---------------------------------------------------------------------------------------------------------------

const accountName = (label = "Account holder's full name"): RecipientField => ({
  key: "accountName",
  label,
  required: true,
  keyboard: "text",
  placeholder: "Ada Obi"
})

const mobileMoney = (options: {
  readonly pattern: string
  readonly patternHint: string
  readonly placeholder: string
  readonly networks: ReadonlyArray<string>
}): ReadonlyArray<RecipientField> => [
  {
    key: "phone",
    label: "Mobile money number",
    required: true,
    pattern: options.pattern,
    patternHint: options.patternHint,
    keyboard: "phone",
    placeholder: options.placeholder
  },
  { key: "network", label: "Mobile network", required: true, options: options.networks },
  accountName("Recipient's full name")
]

/** A SEPA-style IBAN corridor: the country's own IBAN length and layout, and an optional BIC. */
const ibanFields = (iban: { readonly pattern: string; readonly hint: string; readonly example: string; readonly bic: string }): ReadonlyArray<RecipientField> => [
  {
    key: "iban",
    label: "IBAN",
    required: true,
    pattern: iban.pattern,
    patternHint: `${iban.hint}, capital letters, no spaces`,
    keyboard: "text",
    placeholder: iban.example
  },
  {
    key: "bic",
    label: "BIC / SWIFT code (optional)",
    required: false,
    pattern: "^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$",
    patternHint: "8 or 11 letters and digits, capital letters",
    keyboard: "text",
    placeholder: iban.bic
  },
  accountName()
]

const ibanCorridor = (
  country: string,
  currency: string,
  iban: { readonly pattern: string; readonly hint: string; readonly example: string; readonly bic: string }
): Corridor => ({
  corridor: `${country}-${currency}-bank`,
  country,
  currency,
  region: "europe",
  group: "americas_europe",
  deliveryMethod: "bank",
  recipientSchema: ibanFields(iban)
})

// ---------------------------------------------------------------------------------------------------------------
// The corridors, by region
// ---------------------------------------------------------------------------------------------------------------

const africa: ReadonlyArray<Corridor> = [
  {
    // The domestic corridor: the customer's own NGN to a Nigerian bank account (docs/contract.md "Initiating": transfer fee 0).
    corridor: "NG-NGN-bank",
    country: "NG",
    currency: "NGN",
    region: "africa",
    group: null,
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "bankCode",
        label: "Bank",
        required: true,
        pattern: "^(\\d{3}|\\d{6})$",
        patternHint: "the bank's 3-digit CBN code or 6-digit NIP code",
        keyboard: "numeric",
        placeholder: "058"
      },
      {
        key: "accountNumber",
        label: "Account number (NUBAN)",
        required: true,
        pattern: "^\\d{10}$",
        patternHint: "10 digits",
        keyboard: "numeric",
        placeholder: "0123456789"
      },
      { ...accountName("Account holder's name (checked against the bank's record)"), required: false }
    ]
  },
  {
    corridor: "GH-GHS-mobile",
    country: "GH",
    currency: "GHS",
    region: "africa",
    group: null,
    deliveryMethod: "mobile_money",
    recipientSchema: mobileMoney({
      pattern: "^\\+233(20|23|24|25|26|27|28|50|53|54|55|56|57|59)\\d{7}$",
      patternHint: "+233 and the 9-digit mobile number, e.g. +233241234567",
      placeholder: "+233241234567",
      networks: ["MTN", "Telecel", "AirtelTigo"]
    })
  },
  {
    corridor: "KE-KES-mobile",
    country: "KE",
    currency: "KES",
    region: "africa",
    group: null,
    deliveryMethod: "mobile_money",
    recipientSchema: mobileMoney({
      pattern: "^\\+254(7\\d|1[01])\\d{7}$",
      patternHint: "+254 and the 9-digit mobile number (7XX or 1XX), e.g. +254712345678",
      placeholder: "+254712345678",
      networks: ["M-PESA", "Airtel Money"]
    })
  },
  {
    corridor: "UG-UGX-mobile",
    country: "UG",
    currency: "UGX",
    region: "africa",
    group: null,
    deliveryMethod: "mobile_money",
    recipientSchema: mobileMoney({
      pattern: "^\\+256(70|71|74|75|76|77|78|79)\\d{7}$",
      patternHint: "+256 and the 9-digit mobile number, e.g. +256772123456",
      placeholder: "+256772123456",
      networks: ["MTN Mobile Money", "Airtel Money"]
    })
  },
  {
    corridor: "ZA-ZAR-bank",
    country: "ZA",
    currency: "ZAR",
    region: "africa",
    group: null,
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "branchCode",
        label: "Branch code",
        required: true,
        pattern: "^\\d{6}$",
        patternHint: "the bank's 6-digit universal branch code",
        keyboard: "numeric",
        placeholder: "250655"
      },
      {
        key: "accountNumber",
        label: "Account number",
        required: true,
        pattern: "^\\d{9,11}$",
        patternHint: "9 to 11 digits",
        keyboard: "numeric",
        placeholder: "62123456789"
      },
      accountName()
    ]
  }
]

const northAmerica: ReadonlyArray<Corridor> = [
  {
    corridor: "US-USD-bank",
    country: "US",
    currency: "USD",
    region: "north_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "routingNumber",
        label: "ACH routing number",
        required: true,
        pattern: "^\\d{9}$",
        patternHint: "9 digits",
        keyboard: "numeric",
        placeholder: "021000021"
      },
      {
        key: "accountNumber",
        label: "Account number",
        required: true,
        pattern: "^\\d{4,17}$",
        patternHint: "4 to 17 digits",
        keyboard: "numeric",
        placeholder: "000123456789"
      },
      { key: "accountType", label: "Account type", required: true, options: ["checking", "savings"] },
      accountName()
    ]
  },
  {
    corridor: "CA-CAD-bank",
    country: "CA",
    currency: "CAD",
    region: "north_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "institutionNumber",
        label: "Institution number",
        required: true,
        pattern: "^\\d{3}$",
        patternHint: "3 digits",
        keyboard: "numeric",
        placeholder: "004"
      },
      {
        key: "transitNumber",
        label: "Transit (branch) number",
        required: true,
        pattern: "^\\d{5}$",
        patternHint: "5 digits",
        keyboard: "numeric",
        placeholder: "12345"
      },
      {
        key: "accountNumber",
        label: "Account number",
        required: true,
        pattern: "^\\d{7,12}$",
        patternHint: "7 to 12 digits",
        keyboard: "numeric",
        placeholder: "1234567"
      },
      accountName()
    ]
  },
  {
    corridor: "MX-MXN-bank",
    country: "MX",
    currency: "MXN",
    region: "north_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "clabe",
        label: "CLABE",
        required: true,
        pattern: "^\\d{18}$",
        patternHint: "18 digits",
        keyboard: "numeric",
        placeholder: "002010077777777771"
      },
      accountName()
    ]
  }
]

const southAmerica: ReadonlyArray<Corridor> = [
  {
    corridor: "BR-BRL-bank",
    country: "BR",
    currency: "BRL",
    region: "south_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "pixKey",
        label: "PIX key",
        required: true,
        pattern:
          "^(\\d{11}|\\d{14}|\\+55\\d{10,11}|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
        patternHint: "a CPF (11 digits), a CNPJ (14 digits), +55 and a phone number, an email address or a random key (UUID)",
        keyboard: "text",
        placeholder: "+5511987654321"
      },
      {
        key: "taxId",
        label: "Recipient's CPF or CNPJ",
        required: true,
        pattern: "^(\\d{11}|\\d{14})$",
        patternHint: "11 digits (CPF) or 14 digits (CNPJ), without dots or dashes",
        keyboard: "numeric",
        placeholder: "12345678909"
      },
      accountName()
    ]
  },
  {
    corridor: "AR-ARS-bank",
    country: "AR",
    currency: "ARS",
    region: "south_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "cbu",
        label: "CBU / CVU",
        required: true,
        pattern: "^\\d{22}$",
        patternHint: "22 digits",
        keyboard: "numeric",
        placeholder: "2850590940090418135201"
      },
      {
        key: "taxId",
        label: "Recipient's CUIT / CUIL",
        required: true,
        pattern: "^\\d{11}$",
        patternHint: "11 digits, without dashes",
        keyboard: "numeric",
        placeholder: "20123456786"
      },
      accountName()
    ]
  },
  {
    corridor: "CO-COP-bank",
    country: "CO",
    currency: "COP",
    region: "south_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "bankCode",
        label: "Bank code (ACH Colombia)",
        required: true,
        pattern: "^\\d{4}$",
        patternHint: "4 digits",
        keyboard: "numeric",
        placeholder: "1007"
      },
      { key: "accountType", label: "Account type", required: true, options: ["savings", "checking"] },
      {
        key: "accountNumber",
        label: "Account number",
        required: true,
        pattern: "^\\d{6,17}$",
        patternHint: "6 to 17 digits",
        keyboard: "numeric",
        placeholder: "12345678901"
      },
      { key: "documentType", label: "Recipient's ID type", required: true, options: ["CC", "CE", "NIT", "PP"] },
      {
        key: "documentNumber",
        label: "Recipient's ID number",
        required: true,
        pattern: "^[A-Z0-9]{5,15}$",
        patternHint: "5 to 15 digits or capital letters",
        keyboard: "text",
        placeholder: "1020304050"
      },
      accountName()
    ]
  },
  {
    corridor: "CL-CLP-bank",
    country: "CL",
    currency: "CLP",
    region: "south_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "rut",
        label: "Recipient's RUT",
        required: true,
        pattern: "^\\d{7,8}-[\\dK]$",
        patternHint: "7 or 8 digits, a dash and the check digit (0-9 or K), without dots, e.g. 12345678-5",
        keyboard: "text",
        placeholder: "12345678-5"
      },
      {
        key: "bankCode",
        label: "Bank code",
        required: true,
        pattern: "^\\d{3}$",
        patternHint: "3 digits",
        keyboard: "numeric",
        placeholder: "012"
      },
      { key: "accountType", label: "Account type", required: true, options: ["checking", "savings", "vista"] },
      {
        key: "accountNumber",
        label: "Account number",
        required: true,
        pattern: "^\\d{6,20}$",
        patternHint: "6 to 20 digits",
        keyboard: "numeric",
        placeholder: "123456789"
      },
      accountName()
    ]
  },
  {
    corridor: "PE-PEN-bank",
    country: "PE",
    currency: "PEN",
    region: "south_america",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "cci",
        label: "CCI (interbank account code)",
        required: true,
        pattern: "^\\d{20}$",
        patternHint: "20 digits",
        keyboard: "numeric",
        placeholder: "00219300123456789012"
      },
      { key: "documentType", label: "Recipient's ID type", required: true, options: ["DNI", "CE", "RUC", "PASSPORT"] },
      {
        key: "documentNumber",
        label: "Recipient's ID number",
        required: true,
        pattern: "^[A-Z0-9]{8,12}$",
        patternHint: "8 to 12 digits or capital letters",
        keyboard: "text",
        placeholder: "45678912"
      },
      accountName()
    ]
  }
]

const europe: ReadonlyArray<Corridor> = [
  {
    corridor: "GB-GBP-bank",
    country: "GB",
    currency: "GBP",
    region: "europe",
    group: "americas_europe",
    deliveryMethod: "bank",
    recipientSchema: [
      {
        key: "sortCode",
        label: "Sort code",
        required: true,
        pattern: "^\\d{6}$",
        patternHint: "6 digits, without dashes",
        keyboard: "numeric",
        placeholder: "200000"
      },
      {
        key: "accountNumber",
        label: "Account number",
        required: true,
        pattern: "^\\d{8}$",
        patternHint: "8 digits",
        keyboard: "numeric",
        placeholder: "55779911"
      },
      accountName()
    ]
  },
  ibanCorridor("DE", "EUR", { pattern: "^DE\\d{20}$", hint: "DE and 20 digits", example: "DE89370400440532013000", bic: "COBADEFFXXX" }),
  ibanCorridor("FR", "EUR", {
    pattern: "^FR\\d{12}[A-Z0-9]{11}\\d{2}$",
    hint: "FR and 25 characters",
    example: "FR1420041010050500013M02606",
    bic: "BNPAFRPP"
  }),
  ibanCorridor("ES", "EUR", { pattern: "^ES\\d{22}$", hint: "ES and 22 digits", example: "ES9121000418450200051332", bic: "CAIXESBB" }),
  ibanCorridor("IT", "EUR", {
    pattern: "^IT\\d{2}[A-Z]\\d{10}[A-Z0-9]{12}$",
    hint: "IT and 25 characters",
    example: "IT60X0542811101000000123456",
    bic: "UNCRITMM"
  }),
  ibanCorridor("NL", "EUR", { pattern: "^NL\\d{2}[A-Z]{4}\\d{10}$", hint: "NL and 16 characters", example: "NL91ABNA0417164300", bic: "ABNANL2A" }),
  ibanCorridor("PT", "EUR", { pattern: "^PT\\d{23}$", hint: "PT and 23 digits", example: "PT50000201231234567890154", bic: "CGDIPTPL" }),
  ibanCorridor("IE", "EUR", { pattern: "^IE\\d{2}[A-Z]{4}\\d{14}$", hint: "IE and 20 characters", example: "IE29AIBK93115212345678", bic: "AIBKIE2D" }),
  ibanCorridor("BE", "EUR", { pattern: "^BE\\d{14}$", hint: "BE and 14 digits", example: "BE68539007547034", bic: "GEBABEBB" }),
  ibanCorridor("AT", "EUR", { pattern: "^AT\\d{18}$", hint: "AT and 18 digits", example: "AT611904300234573201", bic: "BKAUATWW" }),
  ibanCorridor("SE", "SEK", { pattern: "^SE\\d{22}$", hint: "SE and 22 digits", example: "SE4550000000058398257466", bic: "ESSESESS" }),
  ibanCorridor("PL", "PLN", { pattern: "^PL\\d{26}$", hint: "PL and 26 digits", example: "PL61109010140000071219812874", bic: "BPKOPLPW" })
]

/** docs/contract.md "Global send", China corridor. */
export const chinaMinAssetAmount = 26

const asia: ReadonlyArray<Corridor> = [
  {
    corridor: "CN-CNY-bank",
    country: "CN",
    currency: "CNY",
    region: "asia",
    group: "china",
    deliveryMethod: "bank",
    recipientSchema: [
      { ...accountName("Account holder's name in Latin letters (pinyin)"), placeholder: "Wang Xiaoming" },
      {
        key: "accountNumber",
        label: "Bank card or account number",
        required: true,
        pattern: "^\\d{16,19}$",
        patternHint: "16 to 19 digits",
        keyboard: "numeric",
        placeholder: "6222021234567890123"
      },
      {
        key: "bankCode",
        label: "Bank code (CNAPS)",
        required: true,
        pattern: "^\\d{12}$",
        patternHint: "the branch's 12-digit CNAPS code",
        keyboard: "numeric",
        placeholder: "102100099996"
      },
      {
        key: "nameInLocalLanguage",
        label: "Account holder's name in Chinese characters",
        required: true,
        pattern: "^[\\u3400-\\u4DBF\\u4E00-\\u9FFF\\u00B7]{2,30}$",
        patternHint: "2 to 30 Chinese characters",
        keyboard: "text",
        placeholder: "王小明"
      },
      {
        key: "nationalIdNumber",
        label: "Resident identity card number",
        required: true,
        pattern: "^\\d{17}[\\dX]$",
        patternHint: "18 characters: 17 digits and a digit or X",
        keyboard: "text",
        placeholder: "11010519491231002X"
      }
    ],
    recipientFields: ["accountName", "accountNumber", "bankCode", "nameInLocalLanguage", "nationalIdNumber", "logisticsTracking", "documents"],
    requiredDocuments: ["invoice", "contract"],
    allowedPurposes: ["GOODS_PAYMENT"],
    minAssetAmount: chinaMinAssetAmount
  }
]

/** Every corridor, in the order the list answers: Africa, North America, South America, Europe, Asia. */
export const corridors: ReadonlyArray<Corridor> = [...africa, ...northAmerica, ...southAmerica, ...europe, ...asia]

export const findCorridor = (key: string): Corridor | undefined => corridors.find((corridor) => corridor.corridor === key)
