import { Args, Options } from "@effect/cli"
import type { ArgumentSpec, OptionSpec } from "./Help.js"

/**
 * @effect/cli options and arguments built from their `OptionSpec` (src/cli/Help.ts), so the option the parser knows
 * and its line in `--help` come from one description. @effect/cli's own help is never printed (each command prints
 * `Help.render`'s), but the description is kept on the option too, e.g. for `--wizard`.
 */

/** The description @effect/cli keeps for the option (its own help is never printed: `render` is). */
const described = (spec: OptionSpec): string =>
  [spec.required ? "required" : undefined, spec.description, spec.default === undefined ? undefined : `default: ${spec.default}`]
    .filter((part) => part !== undefined)
    .join("; ")

const named = <A>(options: Options.Options<A>, spec: OptionSpec): Options.Options<A> =>
  (spec.aliases ?? []).reduce((acc, alias) => Options.withAlias(acc, alias), Options.withDescription(options, described(spec)))

/** A text option (`--url URL`); the caller adds `Options.optional` or a default. */
export const text = (spec: OptionSpec): Options.Options<string> =>
  named(Options.text(spec.name).pipe(Options.withPseudoName(spec.value ?? "TEXT")), spec)

/** An integer option (`--concurrency N`). */
export const integer = (spec: OptionSpec): Options.Options<number> =>
  named(Options.integer(spec.name).pipe(Options.withPseudoName(spec.value ?? "N")), spec)

/** A flag (`--print-json`): false unless given. */
export const flag = (spec: OptionSpec): Options.Options<boolean> => named(Options.boolean(spec.name), spec)

/** One of `spec.choices` (`--reporter console|junit`). */
export const choice = <const C extends ReadonlyArray<string>>(spec: OptionSpec & { readonly choices: C }): Options.Options<C[number]> =>
  named(Options.choice(spec.name, spec.choices), spec)

/** A text argument (`<partner>`). */
export const textArgument = (spec: ArgumentSpec): Args.Args<string> =>
  Args.text({ name: spec.name }).pipe(Args.withDescription(spec.description))

