import { Schema } from "effect"
import { ApiError } from "./ApiError.js"

/**
 * The refusals of the limits on abuse (docs/contract.md "Rate limits"): 429, with `details.retryAfterSeconds`
 * and the same whole seconds in a `Retry-After` header.
 */
const retryAfter = { retryAfterSeconds: Schema.Int }

/** This API key sent more requests than its rate allows. */
export class RateLimited extends ApiError("RateLimited", 429, "RATE_LIMITED", retryAfter) {}

/** This client address sent too many unknown API keys; a key the service recently accepted still works. */
export class TooManyFailedAuthentications
  extends ApiError("TooManyFailedAuthentications", 429, "TOO_MANY_FAILED_AUTHENTICATIONS", retryAfter)
{}

/** The instance is checking as many console passwords as it queues: a sign-in or sign-up is refused, not queued. */
export class TooManySignIns extends ApiError("TooManySignIns", 429, "TOO_MANY_SIGN_INS", retryAfter) {}
