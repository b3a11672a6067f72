import { Either } from "effect"
import { parseDecimalString } from "../money/Money.js"
import type { Corridor, SendPurpose } from "../reference/Corridors.js"

/**
 * Pure rules of a global send (docs/global-send.md): the fees and the amount that reaches the payout partner, and the
 * beneficiary checked against the corridor. No effects: the service and the tests call them alike.
 */

/** A problem with the request: the field (dotted path) and what it must be. */
export interface Violation {
  readonly field: string
  readonly message: string
}

const violation = (field: string, message: string): Either.Either<never, Violation> => Either.left({ field, message })

// ---------------------------------------------------------------------------------------------------------------
// Fees (USDT minor units, 6 decimals)

export interface CrossBorderFees {
  /** Our transfer fee: `bps` of the amount, at least `minimum`; 0 on a corridor of the customer's own country. */
  readonly transferFeeBps: bigint
  readonly transferFeeMinimum: bigint
  /** The payout partner's flat fee per corridor family. */
  readonly partnerFee: (corridor: Corridor) => bigint
  /** The least that may reach the partner (the China corridor's `minAssetAmount` is higher). */
  readonly minimumAssetAmount: bigint
}

const usdt = (text: string) => parseDecimalString("USDT", text)

export const defaultFees: CrossBorderFees = {
  transferFeeBps: 100n,
  transferFeeMinimum: usdt("1"),
  partnerFee: (corridor) =>
    corridor.group === "china"
      ? usdt("3")
      : corridor.group === "americas_europe"
      ? usdt("2")
      : corridor.deliveryMethod === "mobile_money"
      ? usdt("0.5")
      : usdt("1"),
  minimumAssetAmount: usdt("1")
}

export interface CrossBorderSplit {
  readonly amount: bigint
  readonly transferFee: bigint
  readonly partnerFee: bigint
  readonly assetAmount: bigint
}

/** `amount` split into our fee, the partner's fee and what reaches the partner; the fee rounds up to the unit. */
export const splitCrossBorder = (fees: CrossBorderFees, corridor: Corridor, amount: bigint, domesticCountry: boolean): CrossBorderSplit => {
  const proportional = (amount * fees.transferFeeBps + 9_999n) / 10_000n
  const transferFee = domesticCountry ? 0n : proportional > fees.transferFeeMinimum ? proportional : fees.transferFeeMinimum
  const partnerFee = fees.partnerFee(corridor)
  return { amount, transferFee, partnerFee, assetAmount: amount - transferFee - partnerFee }
}

/** The least `assetAmount` the corridor takes: its `minAssetAmount` (China) or the general minimum. */
export const minimumAssetOf = (fees: CrossBorderFees, corridor: Corridor): bigint =>
  corridor.minAssetAmount === undefined ? fees.minimumAssetAmount : usdt(String(corridor.minAssetAmount))

/** The smallest amount whose `assetAmount` reaches `minimum` (for the refusal's `details.minimumAmount`). */
export const minimumAmountFor = (fees: CrossBorderFees, corridor: Corridor, minimum: bigint, domesticCountry: boolean): bigint => {
  const partner = fees.partnerFee(corridor)
  let candidate = minimum + partner + (domesticCountry ? 0n : fees.transferFeeMinimum)
  if (!domesticCountry && fees.transferFeeBps > 0n) {
    const proportional = ((minimum + partner) * 10_000n + (10_000n - fees.transferFeeBps) - 1n) / (10_000n - fees.transferFeeBps)
    if (proportional > candidate) candidate = proportional
  }
  while (splitCrossBorder(fees, corridor, candidate, domesticCountry).assetAmount < minimum) candidate += 1n
  // Step back while a smaller amount still works (the two bounds above may overshoot by a unit).
  while (candidate > 1n && splitCrossBorder(fees, corridor, candidate - 1n, domesticCountry).assetAmount >= minimum) candidate -= 1n
  return candidate
}

// ---------------------------------------------------------------------------------------------------------------
// Purpose

/** `purposeNote` with OTHER; the China corridor's allowed purposes. */
export const checkPurpose = (
  corridor: Corridor,
  purpose: SendPurpose,
  purposeNote: string | undefined
): Either.Either<void, Violation> => {
  if (purpose === "OTHER" && purposeNote === undefined) return violation("purposeNote", "is required when purpose is OTHER")
  if (corridor.allowedPurposes !== undefined && !corridor.allowedPurposes.includes(purpose)) {
    return violation("purpose", `must be ${corridor.allowedPurposes.join(" or ")} on the ${corridor.corridor} corridor (got ${purpose})`)
  }
  return Either.void
}

// ---------------------------------------------------------------------------------------------------------------
// Beneficiary

/** A China document: its type and the url of the customer's upload. */
export interface BeneficiaryDocument {
  readonly field: string
  readonly type: string
  readonly url: string
}

export interface CheckedBeneficiary {
  /** The beneficiary as stored and sent to the partner: the corridor's keys only (China: and its structured fields). */
  readonly beneficiary: Readonly<Record<string, unknown>>
  /** China: the documents whose urls the service looks up among the customer's uploads. */
  readonly documents: ReadonlyArray<BeneficiaryDocument>
}

const isText = (value: unknown): value is string => typeof value === "string"
const describe = (value: unknown) => (typeof value === "string" ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : JSON.stringify(value) ?? String(value))

/** One text field of a structured item: required or optional, 1 to `max` characters after trimming. */
const textField = (
  item: Readonly<Record<string, unknown>>,
  path: string,
  key: string,
  max: number,
  required: boolean
): Either.Either<string | undefined, Violation> => {
  const value = item[key]
  if (value === undefined) return required ? violation(`${path}.${key}`, "is required") : Either.right(undefined)
  if (!isText(value) || value.trim().length === 0 || value.trim().length > max) {
    return violation(`${path}.${key}`, `must be 1 to ${max} characters`)
  }
  return Either.right(value.trim())
}

const checkLogistics = (value: unknown): Either.Either<ReadonlyArray<Record<string, string>>, Violation> => {
  const field = "beneficiary.logisticsTracking"
  if (value === undefined) return violation(field, "is required on the China corridor (at least one { trackingNumber, carrierName, carrierCode? })")
  if (!Array.isArray(value) || value.length === 0) return violation(field, "must list at least one shipment { trackingNumber, carrierName, carrierCode? }")
  if (value.length > 20) return violation(field, "must list at most 20 shipments")
  return Either.gen(function*() {
    const out: Array<Record<string, string>> = []
    for (const [index, entry] of value.entries()) {
      const path = `${field}.${index}`
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
        return yield* violation(path, "must be an object { trackingNumber, carrierName, carrierCode? }")
      }
      const item = entry as Record<string, unknown>
      const trackingNumber = yield* textField(item, path, "trackingNumber", 100, true)
      const carrierName = yield* textField(item, path, "carrierName", 100, true)
      const carrierCode = yield* textField(item, path, "carrierCode", 20, false)
      out.push({ trackingNumber: trackingNumber!, carrierName: carrierName!, ...(carrierCode === undefined ? {} : { carrierCode }) })
    }
    return out
  })
}

const checkDocuments = (
  corridor: Corridor,
  value: unknown
): Either.Either<ReadonlyArray<BeneficiaryDocument>, Violation> => {
  const field = "beneficiary.documents"
  const required = corridor.requiredDocuments ?? []
  const shape = `[${required.map((type) => `{ type: "${type}", url }`).join(", ")}]`
  if (value === undefined) return violation(field, `is required on the ${corridor.corridor} corridor: ${shape}`)
  if (!Array.isArray(value)) return violation(field, `must be a list ${shape}`)
  if (value.length > 10) return violation(field, "must list at most 10 documents")
  return Either.gen(function*() {
    const out: Array<BeneficiaryDocument> = []
    for (const [index, entry] of value.entries()) {
      const path = `${field}.${index}`
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return yield* violation(path, "must be an object { type, url }")
      const item = entry as Record<string, unknown>
      if (!isText(item.type) || !required.includes(item.type as never)) {
        return yield* violation(`${path}.type`, `must be one of ${required.join(", ")} (got ${describe(item.type)})`)
      }
      if (!isText(item.url) || item.url.length === 0) return yield* violation(`${path}.url`, "must be a document url returned by POST .../kyc/documents")
      out.push({ field: `${path}.url`, type: item.type, url: item.url })
    }
    for (const type of required) {
      if (!out.some((document) => document.type === type)) return yield* violation(field, `must include ${/^[aeiou]/.test(type) ? "an" : "a"} ${type} { type: "${type}", url }`)
    }
    return out
  })
}

/**
 * The beneficiary against the corridor: each `recipientSchema` key in order (required, a string, one of `options`,
 * matching `pattern`), then on a corridor with `recipientFields` beyond the form (China) `logisticsTracking` and
 * `documents`. The first problem is the refusal. Keys the corridor does not name are dropped.
 */
export const checkBeneficiary = (
  corridor: Corridor,
  beneficiary: Readonly<Record<string, unknown>>
): Either.Either<CheckedBeneficiary, Violation> =>
  Either.gen(function*() {
    const kept: Record<string, unknown> = {}
    for (const descriptor of corridor.recipientSchema) {
      const field = `beneficiary.${descriptor.key}`
      const raw = beneficiary[descriptor.key]
      if (raw === undefined || raw === null || (isText(raw) && raw.trim() === "")) {
        if (descriptor.required) return yield* violation(field, `is required (${descriptor.label})`)
        continue
      }
      if (!isText(raw)) return yield* violation(field, `must be a string (got ${describe(raw)})`)
      const value = raw.trim()
      if (descriptor.options !== undefined && !descriptor.options.includes(value)) {
        return yield* violation(field, `must be one of ${descriptor.options.join(", ")} (got ${describe(value)})`)
      }
      if (descriptor.pattern !== undefined && !new RegExp(descriptor.pattern).test(value)) {
        const hint = descriptor.patternHint ?? `a value matching ${descriptor.pattern}`
        const example = descriptor.placeholder === undefined || hint.includes(descriptor.placeholder) ? "" : `, e.g. ${descriptor.placeholder}`
        return yield* violation(field, `must be ${hint}${example} (got ${describe(value)})`)
      }
      if (descriptor.pattern === undefined && descriptor.options === undefined && value.trim().length > 140) {
        return yield* violation(field, "must be at most 140 characters")
      }
      kept[descriptor.key] = value
    }
    const fields = corridor.recipientFields ?? []
    let documents: ReadonlyArray<BeneficiaryDocument> = []
    if (fields.includes("logisticsTracking")) kept.logisticsTracking = yield* checkLogistics(beneficiary.logisticsTracking)
    if (fields.includes("documents")) {
      documents = yield* checkDocuments(corridor, beneficiary.documents)
      kept.documents = documents.map((document) => ({ type: document.type, url: document.url }))
    }
    return { beneficiary: kept, documents }
  })
