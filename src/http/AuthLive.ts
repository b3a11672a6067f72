import { Effect, Layer, Redacted } from "effect"
import { Partners } from "../partners/Partners.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"

export const PartnerAuthLive = Layer.effect(
  PartnerAuth,
  Effect.map(Partners, (partners) =>
    PartnerAuth.of({
      apiKey: (key) => Effect.flatMap(partners.authenticate(Redacted.value(key)), partners.requireApproved)
    }))
)

export const SandboxAuthLive = Layer.effect(
  SandboxAuth,
  Effect.map(Partners, (partners) => SandboxAuth.of({ apiKey: (key) => partners.authenticate(Redacted.value(key)) }))
)
