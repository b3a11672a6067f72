import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, BadRequest, CustomerForbidden, InvalidCursor } from "../api/ApiError.js"
import { PartnerAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"
import { Country, CountryCode } from "../reference/Countries.js"

const text = (max: number) =>
  Schema.compose(
    Schema.Trim,
    Schema.String.pipe(
      Schema.minLength(1, { message: () => `must be 1 to ${max} characters` }),
      Schema.maxLength(max, { message: () => `must be 1 to ${max} characters` })
    )
  )

export const Email = Schema.compose(
  Schema.Trim,
  Schema.String.pipe(
    Schema.maxLength(254, { message: () => "must be a valid email address of at most 254 characters" }),
    Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be a valid email address" })
  )
)

export const PhoneNumber = Schema.String.pipe(
  Schema.pattern(/^\+[1-9]\d{6,14}$/, { message: () => "must be an E.164 phone number, e.g. +2348012345678" })
)

/** Path value: any string; a malformed id answers the same 403 as an unknown one (SPEC.md "Authentication" 5). */
export const CustomerIdPath = Schema.Struct({ customerId: Schema.String })

export class Customer extends Schema.Class<Customer>("Customer")({
  id: Schema.UUID,
  firstName: Schema.String,
  lastName: Schema.String,
  middleName: Schema.NullOr(Schema.String),
  email: Schema.String,
  phoneNumber: Schema.String,
  country: Schema.String,
  verifiedAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}

export const CreateCustomer = Schema.Struct({
  firstName: text(100),
  lastName: text(100),
  middleName: Schema.optional(Schema.NullOr(text(100))),
  email: Email,
  phoneNumber: PhoneNumber,
  country: CountryCode
})
export type CreateCustomer = typeof CreateCustomer.Type

export class CustomerAlreadyExists extends ApiError("CustomerAlreadyExists", 409, "CUSTOMER_ALREADY_EXISTS") {}

export class CustomersApi extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.post("create", "/customers")
      .annotateContext(OpenApi.annotations({
        summary: "Register a customer",
        description: "Registers a customer of the calling partner and emits `customer.registered`. Names are trimmed " +
          "(1 to 100 characters), `phoneNumber` is E.164 and `country` (ISO alpha-2, one of the supported " +
          "countries) decides the customer's fiat currency. The email is unique per partner, ignoring case: " +
          "a second registration answers 409 `CUSTOMER_ALREADY_EXISTS`."
      }))
      .setPayload(CreateCustomer)
      .addSuccess(Envelope(Customer), { status: 201 })
      .addError(BadRequest)
      .addError(CustomerAlreadyExists)
  )
  .add(
    HttpApiEndpoint.get("list", "/customers")
      .annotateContext(OpenApi.annotations({
        summary: "List customers",
        description: "The partner's customers, newest first, as a cursor list: `limit` 1 to 100 (default 20); pass " +
          "`meta.nextCursor` back as `cursor` until it is null."
      }))
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(PageEnvelope(Customer))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId")
      .annotateContext(OpenApi.annotations({
        summary: "Get a customer",
        description: "One customer of the partner. An unknown, malformed or another partner's id answers the same 403 " +
          "`CUSTOMER_FORBIDDEN`."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(Customer))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.get("countries", "/countries")
      .annotateContext(OpenApi.annotations({
        summary: "List supported countries",
        description: "The countries a customer may be registered in, each with its fiat currency (a plain array)."
      }))
      .addSuccess(Envelope(Schema.Array(Country)))
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}
