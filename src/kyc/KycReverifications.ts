import * as Command from "../observability/Command.js"
import { Effect } from "effect"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import { Ids } from "../ids/Ids.js"
import type { KycItem } from "./Api.js"
import type * as KycRepo from "./KycRepo.js"
import type * as KycSteps from "./KycSteps.js"
import { toReverification } from "./KycViews.js"

/**
 * The Kyc service's re-verification requests (src/kyc/Kyc.ts): compliance asks a customer to re-submit items, and a
 * later tier's submission marks them re-submitted.
 */

type Level = KycSteps.Level
type Steps = Effect.Effect.Success<ReturnType<typeof KycSteps.make>>

export const make = (repo: KycRepo.KycRepo, steps: Steps) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const { command, satisfyReverification } = steps


    /** A new re-verification request (it replaces an open one) and its event. */
    const openReverification = (
      partnerId: string,
      customer: Customer,
      items: ReadonlyArray<KycItem>,
      message: string
    ) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        // A new request replaces an open one: compliance restates everything it still needs.
        yield* repo.supersedeReverification(customer.id, now)
        const row = yield* repo.insertReverification({
          id: yield* ids.uuid,
          partnerId,
          customerId: customer.id,
          items,
          outstanding: items,
          message,
          createdAt: now
        })
        yield* outbox.record({
          partnerId,
          customerId: customer.id,
          type: "kyc.reverification_requested",
          data: { customerId: customer.id, items, message }
        })
        return toReverification(row)
      })

    /** Asks the customer to re-submit these items (each item once). */
    const requestReverification = Command.fn("Kyc.requestReverification")(
      (partnerId: PartnerId, customerId: CustomerId, input: { readonly items: ReadonlyArray<KycItem>; readonly message: string }) => {
        const items = [...new Set(input.items)]
        return command(partnerId, customerId, (customer) => openReverification(partnerId, customer, items, input.message))
      }
    )

    /**
     * For a later tier's submission, inside its transaction: marks the open re-verification's items of `level`
     * as re-submitted (the request completes when none are left).
     */
    const satisfyReverificationOf = Command.fn("Kyc.satisfyReverification")((customerId: string, level: Level) =>
      satisfyReverification(customerId, level)
    )

    return { requestReverification, satisfyReverificationOf } as const
  })
