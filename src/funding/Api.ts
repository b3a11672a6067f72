import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden, InvalidCursor, NotFound } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"
import { BalanceLimitExceeded, CustomerBusy, ReferenceInUse } from "../ledger/Errors.js"
import { Reference } from "../ledger/Reference.js"
import { AmountNumber } from "../money/Money.js"
import { BankRailUnavailable, ChainRailUnavailable } from "../rails/Errors.js"

/** docs/contract.md "Virtual account". */
export const VirtualAccount = example(Schema.Struct({
  accountNumber: described(Schema.String, "The account number the customer (or anyone) pays into."),
  accountName: Schema.String,
  bankName: Schema.String,
  bankCode: Schema.String,
  currency: Schema.String,
  status: Schema.Literal("active")
}), {
  accountNumber: "1010000018",
  accountName: "Demo Partner / Ada Obi",
  bankName: "Providus Bank",
  bankCode: "101",
  currency: "NGN",
  status: "active"
})
export type VirtualAccount = typeof VirtualAccount.Type

export const FundingChargeType = Schema.Literal("bank_transfer", "eft")
export const FundingChargeStatus = Schema.Literal("PENDING", "PAID", "EXPIRED", "CANCELLED")
export type FundingChargeStatus = typeof FundingChargeStatus.Type

/** docs/contract.md "Funding charge", plus `customerId`, `amountPaid`, `paidAt` and `updatedAt`. */
export const FundingCharge = example(Schema.Struct({
  id: Schema.UUID,
  customerId: Schema.UUID,
  reference: Schema.String,
  type: FundingChargeType,
  currency: Schema.String,
  amount: Schema.Number,
  amountPaid: Schema.NullOr(Schema.Number),
  status: FundingChargeStatus,
  accountNumber: Schema.NullOr(Schema.String),
  accountName: Schema.NullOr(Schema.String),
  bankName: Schema.NullOr(Schema.String),
  bankCode: Schema.NullOr(Schema.String),
  narration: Schema.String,
  expiresAt: Schema.Date,
  redirectUrl: Schema.NullOr(Schema.String),
  paidAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}), {
  id: sample.chargeId,
  customerId: sample.customerId,
  reference: "fund-2026-03-02-001",
  type: "bank_transfer",
  currency: "NGN",
  amount: 50000,
  amountPaid: null,
  status: "PENDING",
  accountNumber: "1010000025",
  accountName: "Demo Partner / Ada Obi",
  bankName: "Providus Bank",
  bankCode: "101",
  narration: "PMM7K2QX9D",
  expiresAt: sample.expires,
  redirectUrl: null,
  paidAt: null,
  createdAt: sample.at,
  updatedAt: sample.at
})
export type FundingCharge = typeof FundingCharge.Type

export const CreateFundingCharge = example(Schema.Struct({
  amount: described(AmountNumber, "How much to collect, in the customer's fiat currency and major units (50000 is NGN 50,000)."),
  reference: Schema.optional(described(Reference, "Your id for this charge (letters, digits, `.`, `_`, `-`; up to 120): the same reference again returns the original charge."))
}), { amount: 50000, reference: "fund-2026-03-02-001" })

export const DepositAddress = Schema.Struct({
  network: Schema.String,
  displayName: Schema.String,
  address: Schema.String,
  assets: Schema.Array(Schema.String),
  confirmations: described(Schema.Number, "Confirmations the chain needs before a deposit is credited.")
})
export type DepositAddress = typeof DepositAddress.Type

export const FundingReceipt = Schema.Struct({
  id: Schema.UUID,
  customerId: Schema.UUID,
  method: Schema.Literal("virtual_account", "charge"),
  chargeId: Schema.NullOr(Schema.UUID),
  currency: Schema.String,
  amount: Schema.Number,
  reference: Schema.String,
  narration: Schema.String,
  createdAt: Schema.Date
})
export type FundingReceipt = typeof FundingReceipt.Type

export const Deposit = Schema.Struct({
  id: Schema.UUID,
  customerId: Schema.UUID,
  asset: Schema.String,
  network: Schema.String,
  amount: Schema.Number,
  txHash: Schema.String,
  address: Schema.String,
  status: Schema.Literal("CREDITED", "UNSUPPORTED"),
  createdAt: Schema.Date
})
export type Deposit = typeof Deposit.Type

const narration = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be 1 to 140 characters" }),
  Schema.maxLength(140, { message: () => "must be 1 to 140 characters" })
)

export const CreditVirtualAccount = example(
  Schema.Struct({ amount: AmountNumber, narration: Schema.optional(described(narration, "The transfer's narration, 1 to 140 characters.")) }),
  { amount: 250000, narration: "Salary March" }
)

export const PayFundingCharge = example(Schema.Struct({
  amount: Schema.optional(described(AmountNumber, "How much the payer sends; the charge's amount when left out (less or more plays an under- or overpayment)."))
}), { amount: 50000 })

export const CreateDeposit = example(Schema.Struct({
  asset: Schema.String.pipe(Schema.pattern(/^[A-Z0-9]{2,10}$/, { message: () => "must be a token symbol such as USDT" })),
  network: Schema.String.pipe(Schema.pattern(/^[A-Z0-9_]{2,20}$/, { message: () => "must be a network such as TRON" })),
  amount: AmountNumber,
  txHash: Schema.optional(Schema.String.pipe(Schema.maxLength(128, { message: () => "must be at most 128 characters" }))),
  unsupported: Schema.optional(Schema.Boolean)
}), { asset: "USDT", network: "TRON", amount: 100, txHash: sample.txHash })
export type CreateDeposit = typeof CreateDeposit.Type

export const ChargePath = Schema.Struct({ customerId: Schema.String, chargeId: Schema.String })
export const ChargeIdPath = Schema.Struct({ chargeId: Schema.String })
export const EftTokenPath = Schema.Struct({ token: Schema.String })

export class Tier1Required extends ApiError("Tier1Required", 400, "TIER1_REQUIRED") {}

export class VirtualAccountNotIssued extends ApiError("VirtualAccountNotIssued", 400, "VIRTUAL_ACCOUNT_NOT_ISSUED") {}

export class FundingChargeNotFound extends ApiError("FundingChargeNotFound", 404, "FUNDING_CHARGE_NOT_FOUND") {
  static readonly standard = () => new FundingChargeNotFound({ message: "No funding charge with this id for this partner" })
}

export class FundingChargeNotPending extends ApiError("FundingChargeNotPending", 400, "FUNDING_CHARGE_NOT_PENDING") {}

export class TxHashInUse extends ApiError("TxHashInUse", 409, "TX_HASH_IN_USE") {}

const createCharge = <const Name extends string>(name: Name, path: `/${string}`) =>
  HttpApiEndpoint.post(name, path)
    .setPath(CustomerIdPath)
    .setPayload(CreateFundingCharge)
    .addSuccess(Envelope(FundingCharge), { status: 201 })
    .addError(BadRequest)
    .addError(ReferenceInUse)
    .addError(CustomerBusy)
    .addError(BankRailUnavailable)

/** Partner routes of docs/contract.md "Funding". */
export class FundingApi extends HttpApiGroup.make("funding").annotateContext(resourceTag("funding"))
  .add(
    HttpApiEndpoint.get("virtualAccount", "/customers/:customerId/virtual-account")
      .annotateContext(OpenApi.annotations({
        summary: "Get the virtual account",
        description: "The customer's dedicated account for incoming bank transfers, issued on the first read and the " +
          "same on every later read. NGN requires KYC Tier 1 approved: before that, 400 `TIER1_REQUIRED` " +
          "and nothing is issued."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(VirtualAccount))
      .addError(Tier1Required)
      .addError(CustomerBusy)
      .addError(BankRailUnavailable)
  )
  .add(createCharge("createCharge", "/customers/:customerId/funding/charge")
    .annotateContext(OpenApi.annotations({
      summary: "Create a funding charge",
      description: "A one-off collection of `amount` in the customer's fiat: a `bank_transfer` to a one-off account " +
        "(an `eft` with a `redirectUrl` in South Africa), `PENDING` until paid and expiring 30 minutes " +
        "after creation. Idempotent by `reference`: the same reference again returns the original charge " +
        "and creates nothing; a reference of another customer of the partner answers 409 " +
        "`REFERENCE_IN_USE`."
    })))
  .add(createCharge("createChargeWallet", "/customers/:customerId/wallet/funding/charge")
    .annotateContext(OpenApi.annotations({
      summary: "Create a funding charge (wallet path)",
      description: "The same endpoint as `POST /customers/{customerId}/funding/charge`, under the path the idempotency rules " +
        "name; both paths share one `reference` scope."
    })))
  .add(
    HttpApiEndpoint.get("listCharges", "/customers/:customerId/funding/charges")
      .annotateContext(OpenApi.annotations({
        summary: "List funding charges",
        description: "The customer's funding charges, newest first, as a cursor list."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(PageEnvelope(FundingCharge))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("getCharge", "/customers/:customerId/funding/charges/:chargeId")
      .annotateContext(OpenApi.annotations({
        summary: "Get a funding charge",
        description: "One funding charge with its status (`PENDING`, `PAID`, `EXPIRED` or `CANCELLED`) and " +
          "`amountPaid`. An unknown charge or another customer's answers 404 `FUNDING_CHARGE_NOT_FOUND`."
      }))
      .setPath(ChargePath)
      .addSuccess(Envelope(FundingCharge))
      .addError(FundingChargeNotFound)
  )
  .add(
    HttpApiEndpoint.get("addresses", "/customers/:customerId/addresses")
      .annotateContext(OpenApi.annotations({
        summary: "List deposit addresses",
        description: "One stablecoin deposit address per supported network (a plain array), issued on the first read " +
          "and never changed; one EVM address serves every EVM network."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(example(Schema.Array(DepositAddress), [
        { network: "TRON", displayName: "Tron (TRC-20)", address: sample.tronAddress, assets: ["USDT"], confirmations: 20 },
        { network: "ETHEREUM", displayName: "Ethereum (ERC-20)", address: sample.evmAddress, assets: ["USDT", "USDC"], confirmations: 12 }
      ])))
      .addError(CustomerBusy)
      .addError(ChainRailUnavailable)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

/** Sandbox controls that play incoming money: bank transfers, charge payments and on-chain deposits. */
export class SandboxFundingApi extends HttpApiGroup.make("sandboxFunding").annotateContext(resourceTag("sandboxFunding"))
  .add(
    HttpApiEndpoint.post("creditVirtualAccount", "/customers/:customerId/virtual-account/credit")
      .annotateContext(OpenApi.annotations({
        summary: "Credit the virtual account (sandbox)",
        description: "Plays a bank transfer arriving on the customer's virtual account: the balance is credited at " +
          "once and `funding.received` emitted. 400 `VIRTUAL_ACCOUNT_NOT_ISSUED` before the account has " +
          "been read once."
      }))
      .setPath(CustomerIdPath)
      .setPayload(CreditVirtualAccount)
      .addSuccess(Envelope(FundingReceipt), { status: 201 })
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(VirtualAccountNotIssued)
      .addError(CustomerBusy)
      .addError(BalanceLimitExceeded)
  )
  .add(
    HttpApiEndpoint.post("payCharge", "/funding/charges/:chargeId/pay")
      .annotateContext(OpenApi.annotations({
        summary: "Pay a funding charge (sandbox)",
        description: "Plays the payer paying a `PENDING` charge, in full or `amount` (bank transfers only; an EFT pays " +
          "exactly the amount): the charge becomes `PAID`, the balance is credited and `funding.received` " +
          "emitted. 400 `FUNDING_CHARGE_NOT_PENDING` when it is paid, cancelled or expired."
      }))
      .setPath(ChargeIdPath)
      .setPayload(PayFundingCharge)
      .addSuccess(Envelope(FundingCharge))
      .addError(BadRequest)
      .addError(FundingChargeNotFound)
      .addError(FundingChargeNotPending)
      .addError(CustomerBusy)
      .addError(BalanceLimitExceeded)
  )
  .add(
    HttpApiEndpoint.post("deposit", "/customers/:customerId/deposits")
      .annotateContext(OpenApi.annotations({
        summary: "Play a stablecoin deposit (sandbox)",
        description: "Plays a confirmed on-chain deposit to the customer's address on `network`: credits USDT or USDC " +
          "and emits `deposit.received`. A repeated `txHash` returns the original deposit and credits " +
          "nothing (another customer's: 409 `TX_HASH_IN_USE`). With `unsupported: true` the deposit is " +
          "recorded as `UNSUPPORTED` and not credited."
      }))
      .setPath(CustomerIdPath)
      .setPayload(CreateDeposit)
      .addSuccess(Envelope(Deposit), { status: 201 })
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(TxHashInUse)
      .addError(CustomerBusy)
      .addError(BalanceLimitExceeded)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}

const html = HttpApiSchema.Text({ contentType: "text/html" })

/**
 * The simulated EFT provider's payment page (sandbox): opened by the customer from a charge's `redirectUrl`. No API
 * key: the unguessable token in the path is the credential. The buttons post empty forms back.
 */
export class SandboxEftApi extends HttpApiGroup.make("sandboxEft").annotateContext(resourceTag("sandboxEft"))
  .add(HttpApiEndpoint.get("page", "/eft/:token")
    .annotateContext(OpenApi.annotations({
      summary: "EFT payment page (sandbox)",
      description: "The simulated EFT provider's HTML page that a charge's `redirectUrl` opens. No API key: the " +
        "token in the path is the credential. An unknown token answers 404."
    }))
    .setPath(EftTokenPath).addSuccess(html).addError(NotFound).addError(CustomerBusy))
  .add(HttpApiEndpoint.post("authorize", "/eft/:token/authorize")
    .annotateContext(OpenApi.annotations({
      summary: "Authorise an EFT payment (sandbox)",
      description: "The page's Authorise button (an empty form): a `PENDING` charge is paid in full. Answers the " +
        "page with the charge's status."
    }))
    .setPath(EftTokenPath).addSuccess(html).addError(NotFound).addError(CustomerBusy))
  .add(HttpApiEndpoint.post("cancel", "/eft/:token/cancel")
    .annotateContext(OpenApi.annotations({
      summary: "Cancel an EFT payment (sandbox)",
      description: "The page's Cancel button (an empty form): a `PENDING` charge becomes `CANCELLED` and " +
        "`funding.charge_cancelled` is emitted. Answers the page with the charge's status."
    }))
    .setPath(EftTokenPath).addSuccess(html).addError(NotFound).addError(CustomerBusy))
  .prefix("/sandbox")
{}
