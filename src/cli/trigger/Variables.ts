import { parse as parseYaml } from "yaml"

/**
 * `--set key=value`: overrides of a flow's `vars`. A value takes the type of the flow's default: a number stays a
 * number (`--set amount=500`), a string stays text even when it looks like a number (`--set bvn=00000000000`), a
 * list or mapping is read as YAML (`--set items=[BVN,SELFIE]`).
 */
export class VariableError extends Error {}

/** `["a=1", "b=x=y"]` → `{ a: "1", b: "x=y" }`; a later setting of the same name wins. */
export const parseSettings = (settings: ReadonlyArray<string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const setting of settings) {
    const at = setting.indexOf("=")
    const name = at < 0 ? "" : setting.slice(0, at).trim()
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new VariableError(`--set ${setting}: expected key=value, e.g. --set amount=500`)
    out[name] = setting.slice(at + 1)
  }
  return out
}

const kindOf = (value: unknown): string => (Array.isArray(value) ? "list" : value === null ? "null" : typeof value)

/** The override's value, of the same kind as the flow's default. */
export const typedValue = (name: string, text: string, fallback: unknown): unknown => {
  switch (kindOf(fallback)) {
    case "number": {
      const value = text.trim() === "" ? Number.NaN : Number(text)
      if (!Number.isFinite(value)) throw new VariableError(`--set ${name}=${text}: ${name} is a number (default ${String(fallback)})`)
      return value
    }
    case "boolean":
      if (text !== "true" && text !== "false") throw new VariableError(`--set ${name}=${text}: ${name} is true or false`)
      return text === "true"
    case "string":
      return text
    default: {
      let value: unknown
      try {
        value = parseYaml(text)
      } catch (error) {
        throw new VariableError(`--set ${name}=${text}: not valid YAML (${(error as Error).message.split("\n")[0]})`)
      }
      const expected = kindOf(fallback)
      if (expected !== "null" && kindOf(value) !== expected) {
        throw new VariableError(`--set ${name}=${text}: ${name} is a ${expected} (default ${JSON.stringify(fallback)})`)
      }
      return value
    }
  }
}
