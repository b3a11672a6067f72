import { Schema } from "effect"
import { envelopeFields, status } from "../http/ApiError.js"

export class InsufficientBalance extends Schema.TaggedError<InsufficientBalance>()(
  "InsufficientBalance",
  { ...envelopeFields("InsufficientBalance", 400, "INSUFFICIENT_BALANCE") },
  status(400)
) {}

export class ReferenceInUse extends Schema.TaggedError<ReferenceInUse>()(
  "ReferenceInUse",
  { ...envelopeFields("ReferenceInUse", 409, "REFERENCE_IN_USE") },
  status(409)
) {}

export class CustomerBusy extends Schema.TaggedError<CustomerBusy>()(
  "CustomerBusy",
  { ...envelopeFields("CustomerBusy", 503, "CUSTOMER_BUSY") },
  status(503)
) {}
