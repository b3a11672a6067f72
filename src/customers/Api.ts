import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, resourceTag, sample } from "../api/Docs.js"
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

/** Path value: any string; a malformed id answers the same 403 as an unknown one (docs/contract.md "Authentication" 5). */
export const CustomerIdPath = Schema.Struct({
  customerId: described(Schema.String, "The customer's `id`, as `POST /customers` returned it.")
})

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

/** The customer of the examples (the values the tests register). */
const customerExample = example(Customer, {
  id: sample.customerId,
  firstName: "Ada",
  lastName: "Obi",
  middleName: null,
  email: "ada.obi@example.com",
  phoneNumber: "+2348012345678",
  country: "NG",
  verifiedAt: null,
  createdAt: sample.at,
  updatedAt: sample.at
})

export const CreateCustomer = example(Schema.Struct({
  firstName: described(text(100), "The customer's first name as on their ID, 1 to 100 characters (spaces around it are removed)."),
  lastName: described(text(100), "The customer's last name as on their ID, 1 to 100 characters."),
  middleName: Schema.optional(Schema.NullOr(described(text(100), "The customer's middle name, if any."))),
  email: described(Email, "The customer's email address: unique among your customers, ignoring case."),
  phoneNumber: described(PhoneNumber, "The customer's mobile number in international (E.164) form, e.g. +2348012345678."),
  country: described(CountryCode, "Where the customer lives (ISO 3166 alpha-2): decides their fiat currency, e.g. NG for NGN.")
}), {
  firstName: "Ada",
  lastName: "Obi",
  email: "ada.obi@example.com",
  phoneNumber: "+2348012345678",
  country: "NG"
})
export type CreateCustomer = typeof CreateCustomer.Type

export class CustomerAlreadyExists extends ApiError("CustomerAlreadyExists", 409, "CUSTOMER_ALREADY_EXISTS") {}

export class CustomersApi extends HttpApiGroup.make("customers").annotateContext(resourceTag("customers"))
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
      .addSuccess(Envelope(customerExample), { status: 201 })
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
      .addSuccess(PageEnvelope(customerExample))
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
      .addSuccess(Envelope(customerExample))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.get("countries", "/countries")
      .annotateContext(OpenApi.annotations({
        summary: "List supported countries",
        description: "The countries a customer may be registered in, each with its fiat currency (a plain array)."
      }))
      .addSuccess(Envelope(example(Schema.Array(Country), [
        { country: "NG", name: "Nigeria", currency: "NGN", dialCode: "+234" },
        { country: "GH", name: "Ghana", currency: "GHS", dialCode: "+233" }
      ])))
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}
