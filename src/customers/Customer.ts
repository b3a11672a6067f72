import { Data } from "effect"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import type { CountryCode, FiatCurrency } from "../reference/Countries.js"

/**
 * A partner's customer as the domain sees it: what the commands, the ownership check and the views need. The
 * repository maps its row to this (src/customers/CustomersRepo.ts); the row's `seq` is a storage detail (the list's
 * keyset cursor) and stays there. The API's view of a customer is `Customer` of ./Api.ts.
 */
export interface Customer {
  readonly id: CustomerId
  readonly partnerId: PartnerId
  readonly firstName: string
  readonly lastName: string
  readonly middleName: string | null
  readonly email: string
  readonly phoneNumber: string
  readonly country: CountryCode
  readonly currency: FiatCurrency
  /** Set once, by the customer's first approved Tier 1 (docs/kyc.md). */
  readonly verifiedAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** The partner already has a customer with this email (compared case-insensitively: a unique index). */
export class DuplicateCustomerEmail extends Data.TaggedError("DuplicateCustomerEmail")<{}> {}
