import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../src/Api.js"
import { BadRequest } from "../../src/api/ApiError.js"
import { CurrentPartner } from "../../src/api/Auth.js"
import type { ExchangePricesView } from "../../src/trading/Api.js"
import { exactDecimal, ExchangePriceStore, feeNumber, type PriceSheet, rateNumber, rateText, usdtMinor } from "./Prices.js"

/**
 * `GET /sandbox/rates` and `PUT /sandbox/rates/{currency}` (src/trading/Api.ts `SandboxRatesApi`): the simulated
 * exchange's prices of the calling partner. Numbers are rendered from the exact decimals (1550, 15.6, 0.5).
 */
const view = (sheet: PriceSheet): ExchangePricesView => ({
  currency: sheet.currency,
  buyRate: rateNumber(sheet.buyRate),
  sellRate: rateNumber(sheet.sellRate),
  exchangeFeeUsdt: feeNumber(sheet.exchangeFeeUsdt),
  isDefault: sheet.isDefault,
  updatedAt: sheet.updatedAt
})

export const SandboxRatesHttp = HttpApiBuilder.group(Api, "sandboxRates", (handlers) =>
  Effect.map(ExchangePriceStore, (store) =>
    handlers
      .handle("list", () =>
        Effect.flatMap(CurrentPartner, (partner) => Effect.map(store.list(partner.id), (sheets) => sheets.map(view))))
      .handle("set", ({ path, payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const sheet = yield* store.set(partner.id, path.currency, {
            buyRate: payload.buyRate === undefined ? undefined : exactDecimal(payload.buyRate),
            sellRate: payload.sellRate === undefined ? undefined : exactDecimal(payload.sellRate),
            exchangeFeeUsdt: payload.exchangeFeeUsdt === undefined ? undefined : usdtMinor(payload.exchangeFeeUsdt)
          }).pipe(
            Effect.catchTag("PricesInverted", ({ buyRate, sellRate }) =>
              new BadRequest({
                message: `buyRate: must be at least sellRate (else buying USDT and selling it back would make money): buyRate ` +
                  `${rateText(buyRate)} is below sellRate ${rateText(sellRate)}`
              }))
          )
          return view(sheet)
        }))))
