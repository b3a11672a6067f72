import { ApiError } from "../http/ApiError.js"

export class InsufficientBalance extends ApiError("InsufficientBalance", 400, "INSUFFICIENT_BALANCE") {}

export class ReferenceInUse extends ApiError("ReferenceInUse", 409, "REFERENCE_IN_USE") {}

export class CustomerBusy extends ApiError("CustomerBusy", 503, "CUSTOMER_BUSY") {}
