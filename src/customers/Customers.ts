import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { EventBus, Outbox, transaction } from "../events/Events.js"
import { CustomerForbidden } from "../api/ApiError.js"
import type { Page } from "../api/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { CustomerId, type PartnerId } from "../api/Ids.js"
import { Ids } from "../ids/Ids.js"
import { fiatCurrencyOf } from "../reference/Countries.js"
import { type CreateCustomer, Customer, CustomerAlreadyExists } from "./Api.js"
import type { Customer as DomainCustomer } from "./Customer.js"
import * as CustomersRepo from "./CustomersRepo.js"


/** The API view of a decoded row: built without validating again (the row schema decoded it; ~45 µs a customer). */
export const toCustomer = (row: DomainCustomer): Customer =>
  Customer.make({
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    middleName: row.middleName,
    email: row.email,
    phoneNumber: row.phoneNumber,
    country: row.country,
    verifiedAt: row.verifiedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableValidation: true })

/**
 * Customers of a partner: registration, the ownership check every customer route starts with, the list, and the
 * first verification. The customer's balances and commands live in the ledger (CustomerActors); this service owns
 * the `customers` table's identity fields.
 */
export class Customers extends Effect.Service<Customers>()("Customers", {
  effect: Effect.gen(function*() {
    const repo = yield* CustomersRepo.CustomersRepo
    const sql = yield* SqlClient.SqlClient
    const bus = yield* EventBus
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const cursors = yield* Cursors

    const duplicate = new CustomerAlreadyExists({ message: "A customer with this email is already registered for this partner" })

    const insertAndRecord = (partnerId: PartnerId, input: CreateCustomer) =>
      Effect.gen(function*() {
        if (yield* repo.emailTaken(partnerId, input.email)) return yield* duplicate
        const now = yield* clock.now
        const row = yield* repo.insert({
          id: CustomerId.make(yield* ids.uuid),
          partnerId,
          firstName: input.firstName,
          lastName: input.lastName,
          middleName: input.middleName ?? null,
          email: input.email,
          phoneNumber: input.phoneNumber,
          country: input.country,
          currency: fiatCurrencyOf(input.country),
          verifiedAt: null,
          createdAt: now,
          updatedAt: now
        })
        yield* outbox.record({
          partnerId,
          customerId: row.id,
          type: "customer.registered",
          data: {
            customerId: row.id,
            email: row.email,
            firstName: row.firstName,
            lastName: row.lastName,
            phoneNumber: row.phoneNumber,
            createdAt: row.createdAt.toISOString()
          }
        })
        return toCustomer(row)
      })

    /** Registers a customer; an email already registered for this partner is CUSTOMER_ALREADY_EXISTS. */
    const create = Command.fn("Customers.create")(
      (partnerId: PartnerId, input: CreateCustomer) => transaction(insertAndRecord(partnerId, input)),
      // The repository's unique violation on (partner, email): a concurrent registration of the same email won.
      Effect.catchTag("DuplicateCustomerEmail", () => Effect.fail(duplicate)),
      // The transaction's own statements (BEGIN, COMMIT).
      Effect.catchTag("SqlError", Effect.die),
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.provideService(EventBus, bus)
    )

    /** The partner's customer, or the one 403 that unknown, malformed and foreign ids all share. */
    const getOwned = Command.fn("Customers.getOwned")(function*(partnerId: PartnerId, customerId: CustomerId) {
      const row = yield* repo.findOwned(partnerId, customerId)
      if (Option.isNone(row)) return yield* CustomerForbidden.standard()
      return row.value
    })

    const list = Command.fn("Customers.list")(
      (partnerId: string, page: PageRequest) =>
        paginate(cursors, { list: "customers", partnerId }, page, ({ beforeSeq, limit }) => repo.page(partnerId, beforeSeq, limit), (row) => String(row.seq)),
      Effect.map((result): Page<Customer> => ({ items: result.items.map(toCustomer), nextCursor: result.nextCursor }))
    )

    /** Sets `verifiedAt` the first time only (a first approved Tier 1), in the caller's transaction. */
    const markVerified = Command.fn("Customers.markVerified")((customerId: string, at: Date) =>
      repo.markVerified(customerId, at).pipe(Effect.asVoid))

    return { create, getOwned, list, markVerified } as const
  }),
  dependencies: [CustomersRepo.CustomersRepo.Default]
}) {}

export const layer = Customers.Default
