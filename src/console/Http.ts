import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import { Api } from "../Api.js"
import { ConsoleAuth, CurrentConsoleSession } from "./Api.js"
import { Console } from "./Console.js"

export const ConsoleAuthLive = Layer.effect(
  ConsoleAuth,
  Effect.map(Console, (console) => ConsoleAuth.of({ bearer: (token) => console.authenticate(Redacted.value(token)) }))
)

export const ConsolePublicHttp = HttpApiBuilder.group(Api, "consolePublic", (handlers) =>
  Effect.map(Console, (console) =>
    handlers
      .handle("signUp", ({ payload }) => console.signUp(payload))
      .handle("signIn", ({ payload }) => console.signIn(payload))
      .handle("refresh", ({ payload }) => console.refresh(payload.refreshToken))))

export const ConsoleHttp = HttpApiBuilder.group(Api, "console", (handlers) =>
  Effect.map(Console, (console) =>
    handlers
      .handle("signOut", () =>
        Effect.flatMap(CurrentConsoleSession, (session) => Effect.as(console.signOut(session), { signedOut: true as const })))
      .handle("me", () => Effect.flatMap(CurrentConsoleSession, console.view))
      .handle("setCompany", ({ payload }) => Effect.flatMap(CurrentConsoleSession, (session) => console.setCompany(session, payload)))
      .handle("submitKyb", () => Effect.flatMap(CurrentConsoleSession, console.submitKyb))
      .handle("listKeys", () => Effect.flatMap(CurrentConsoleSession, console.listKeys))
      .handle("rotateKey", () => Effect.flatMap(CurrentConsoleSession, console.rotateKey))
      .handle("updateWebhook", ({ payload }) =>
        Effect.flatMap(CurrentConsoleSession, (session) => console.updateWebhook(session, payload.url, payload.secret)))))

export const SandboxConsoleHttp = HttpApiBuilder.group(Api, "sandboxConsole", (handlers) =>
  Effect.map(Console, (console) =>
    handlers.handle("decideKyb", ({ payload }) =>
      Effect.flatMap(CurrentConsoleSession, (session) =>
        Effect.zipRight(console.decideKyb(session.partnerId, payload), console.view(session))))))
