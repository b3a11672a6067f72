import { Effect, Option, Schema } from "effect"
import { CustomerForbidden } from "./ApiError.js"
import { CurrentPartner } from "./Auth.js"

/**
 * The resources' ids: branded Schemas of a canonical uuid. Decoding takes a well-formed uuid in any case and gives
 * its canonical lower-case form with the resource's brand (uuid columns compare case-insensitively, so canonical ids
 * compare as the database does); anything else does not decode. Ids are normalised once, at the edge: a handler
 * parses a path value with `parseId` (a malformed id answers like an unknown one, the resource's 403 or 404, never a
 * 400), and services take branded ids only, so a malformed id never reaches SQL (where `::uuid` would fail).
 *
 * The contract's path parameters stay plain strings (the OpenAPI document and the typed client's requests are those
 * of an opaque id); the brands are the server's and the services' vocabulary.
 */

const uuidAnyCase = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const uuidCanonical = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Whether a value has the shape of an id (a uuid, in any case). */
export const isUuid = (value: string): boolean => uuidAnyCase.test(value)

/** A uuid in any case, decoded to its canonical lower-case form. */
export const CanonicalUuid = Schema.transform(
  Schema.String.pipe(Schema.pattern(uuidAnyCase, { message: () => "must be a uuid" })),
  Schema.String.pipe(Schema.pattern(uuidCanonical, { message: () => "must be a lower-case uuid" })),
  { strict: true, decode: (value) => value.toLowerCase(), encode: (value) => value }
)

export const PartnerId = CanonicalUuid.pipe(Schema.brand("PartnerId"))
export type PartnerId = typeof PartnerId.Type
export const CustomerId = CanonicalUuid.pipe(Schema.brand("CustomerId"))
export type CustomerId = typeof CustomerId.Type
export const WithdrawalId = CanonicalUuid.pipe(Schema.brand("WithdrawalId"))
export type WithdrawalId = typeof WithdrawalId.Type
export const QuoteId = CanonicalUuid.pipe(Schema.brand("QuoteId"))
export type QuoteId = typeof QuoteId.Type
export const SendId = CanonicalUuid.pipe(Schema.brand("SendId"))
export type SendId = typeof SendId.Type
export const GlobalSendId = CanonicalUuid.pipe(Schema.brand("GlobalSendId"))
export type GlobalSendId = typeof GlobalSendId.Type
export const BankAccountId = CanonicalUuid.pipe(Schema.brand("BankAccountId"))
export type BankAccountId = typeof BankAccountId.Type
export const FundingChargeId = CanonicalUuid.pipe(Schema.brand("FundingChargeId"))
export type FundingChargeId = typeof FundingChargeId.Type
export const DocumentId = CanonicalUuid.pipe(Schema.brand("DocumentId"))
export type DocumentId = typeof DocumentId.Type
export const KycCheckId = CanonicalUuid.pipe(Schema.brand("KycCheckId"))
export type KycCheckId = typeof KycCheckId.Type
export const EnrolmentId = CanonicalUuid.pipe(Schema.brand("EnrolmentId"))
export type EnrolmentId = typeof EnrolmentId.Type
/** An event's id; a webhook delivery is identified by the id of the event it delivers. */
export const EventId = CanonicalUuid.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type

/** Any of the id schemas above. */
export type IdSchema<A> = Schema.Schema<A, string>

/** The canonical branded id, or none for a malformed value. */
export const parseId = <A>(schema: IdSchema<A>, raw: string): Option.Option<A> => Schema.decodeOption(schema)(raw)

/** The canonical branded id, or the resource's "no such resource" error for a malformed value. */
export const idOr = <A, E>(schema: IdSchema<A>, raw: string, malformed: () => E): Effect.Effect<A, E> =>
  Option.match(parseId(schema, raw), { onNone: () => Effect.fail(malformed()), onSome: Effect.succeed })

/** A customer id of a path: a malformed one answers the same 403 as an unknown or foreign one (docs/contract.md "Authentication" 5). */
export const customerIdOf = (raw: string): Effect.Effect<CustomerId, CustomerForbidden> =>
  idOr(CustomerId, raw, CustomerForbidden.standard)

/** A command of the current partner on the path's customer: a malformed customer id answers 403 like an unknown one. */
export const withCustomer = <A, E, R>(raw: string, command: (partnerId: PartnerId, customerId: CustomerId) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(CurrentPartner, (partner) => Effect.flatMap(customerIdOf(raw), (customerId) => command(partner.id, customerId)))

/** An id read from storage (a uuid column or a job's own column): well-formed by construction, a malformed one is a defect. */
export const storedId = <A>(schema: IdSchema<A>, value: string): A => Schema.decodeSync(schema)(value)
