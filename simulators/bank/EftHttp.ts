import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Api } from "../../src/Api.js"
import type { FundingChargeNotFound } from "../../src/funding/Api.js"
import { type EftOutcome, FundingCharges } from "../../src/funding/FundingCharges.js"
import { eftPath } from "../../src/funding/Http.js"
import { NotFound } from "../../src/api/ApiError.js"
import type { CustomerBusy } from "../../src/ledger/Errors.js"
import { renderEftPage } from "./EftPage.js"

const notFound = () => new NotFound({ message: "This payment link is not valid" })

/** The simulated EFT provider's payment page behind a ZAR charge's `redirectUrl` (sandbox). */
export const SandboxEftHttp = HttpApiBuilder.group(Api, "sandboxEft", (handlers) =>
  Effect.gen(function*() {
    const charges = yield* FundingCharges
    const page = (token: string, outcome: Effect.Effect<EftOutcome, FundingChargeNotFound | CustomerBusy>) =>
      outcome.pipe(
        Effect.map((result) =>
          HttpServerResponse.text(renderEftPage(result, `${eftPath}/${token}`), {
            contentType: "text/html; charset=utf-8",
            // The page takes a payment decision with one click: it may never be framed (clickjacking).
            headers: {
              "cache-control": "no-store",
              "referrer-policy": "no-referrer",
              "x-frame-options": "DENY",
              "content-security-policy": "frame-ancestors 'none'",
              "x-content-type-options": "nosniff"
            }
          })),
        Effect.catchTag("FundingChargeNotFound", () => Effect.fail(notFound()))
      )
    return handlers
      .handle("page", ({ path }) => page(path.token, charges.eftPage(path.token)))
      .handle("authorize", ({ path }) => page(path.token, charges.eftDecide(path.token, "authorize")))
      .handle("cancel", ({ path }) => page(path.token, charges.eftDecide(path.token, "cancel")))
  }))
