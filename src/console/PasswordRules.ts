import { Effect } from "effect"

/**
 * What a new console password must not be (docs/console.md "Accounts and sign-in"), beyond its length: only
 * whitespace, one character repeated, or a common password. Checked where a password is chosen (sign-up; any later
 * password change), never at sign-in (a stored password signs in whatever the list says today).
 *
 * The common passwords are the `passwords-common` dictionary of `@zxcvbn-ts/language-common` (about 49,000 leaked
 * passwords, most used first). The package is loaded on the first check, not at start (decompressing it takes tens
 * of milliseconds), once, into a Set of lower-cased entries. A password is compared NFKC-normalised (as it is
 * hashed), trimmed and lower-cased: `Password1234 ` is as common as `password1234`.
 */

/** Why the password's shape is refused (a message for the field `password`), or undefined. */
export const shapeProblem = (password: string): string | undefined => {
  const normalised = password.normalize("NFKC")
  if (normalised.trim() === "") return "must not be only spaces or other whitespace"
  const characters = [...normalised]
  if (characters.every((character) => character === characters[0])) return "must not be one character repeated"
  return undefined
}

let common: Promise<ReadonlySet<string>> | undefined

/** The common passwords, lower-cased: loaded on the first call, then the same Set. */
export const commonPasswords: Effect.Effect<ReadonlySet<string>> = Effect.promise(() =>
  common ??= import("@zxcvbn-ts/language-common").then((module) => {
    // A CommonJS package: Node gives its exports as named ones too, a bundle's chunk (esbuild.config.mjs splits the
    // service at its dynamic imports) as the default export only.
    const { dictionary } = "dictionary" in module ? module : (module as unknown as { readonly default: typeof module }).default
    return new Set(dictionary["passwords-common"].map((entry) => entry.toLowerCase()))
  })
)

/** The form a password is compared to the list in. */
export const comparable = (password: string) => password.normalize("NFKC").trim().toLowerCase()

export const commonMessage = "is a common password (on a list of leaked passwords that attackers try first): choose another"

/** Why the password is refused for being common, or undefined. */
export const commonProblem = (password: string): Effect.Effect<string | undefined> =>
  Effect.map(commonPasswords, (set) => set.has(comparable(password)) ? commonMessage : undefined)
