/**
 * `${name}` in scenario values. A string that is exactly one `${...}` keeps the type of the value (a number
 * stays a number, an object stays an object); inside a longer string the value is rendered as text. Names may
 * reach into saved values with a path (`${customer.id}`, `${page.items[0].id}`) and add or subtract a constant
 * (`${start + 7200}`). `$${` writes a literal `${`.
 */
export class InterpolationError extends Error {}

export const segmentsOf = (path: string): Array<string | number> =>
  path.replace(/\[(\d+)\]/g, ".$1").split(".").filter((s) => s !== "").map((s) => (/^\d+$/.test(s) ? Number(s) : s))

/** The value at a dotted path (`data.id`, `data[0].id`, `data.0.id`), or undefined. */
export const lookup = (root: unknown, path: string): unknown => {
  let current: unknown = root
  for (const segment of segmentsOf(path)) {
    if (current === null || typeof current !== "object") return undefined
    current = (current as Record<string | number, unknown>)[segment]
  }
  return current
}

const whole = /^\$\{([^}]+)\}$/
/** `${name + 3600}` or `${name - 1}`: a number plus or minus a constant, e.g. a clock offset after an advance. */
const arithmetic = /^\s*([^+\s-][^+]*?)\s*([+-])\s*(\d+(?:\.\d+)?)\s*$/
const anywhere = /\$\$\{|\$\{([^}]+)\}/g

export class Scope {
  constructor(private readonly values: Map<string, unknown> = new Map()) {}

  set(name: string, value: unknown): void {
    this.values.set(name, value)
  }

  get(name: string): unknown {
    return this.values.get(name)
  }

  /** A child scope sees every name of this one; names it sets stay its own (loop counters). */
  child(extra: Record<string, unknown>): Scope {
    return new Scope(new Map([...this.values, ...Object.entries(extra)]))
  }

  /** Copies back names set in a child (saves made inside a repeat or include are visible after it). */
  absorb(child: Scope, except: ReadonlyArray<string>): void {
    for (const [name, value] of child.values) if (!except.includes(name)) this.values.set(name, value)
  }

  resolve(expression: string): unknown {
    const sum = arithmetic.exec(expression)
    if (sum !== null) {
      const base = this.resolve(sum[1]!)
      const value = typeof base === "number" ? base : typeof base === "string" && base.trim() !== "" ? Number(base) : Number.NaN
      if (!Number.isFinite(value)) throw new InterpolationError(`\${${expression}}: ${sum[1]!.trim()} is not a number (${JSON.stringify(base)})`)
      const operand = Number(sum[3])
      return sum[2] === "+" ? value + operand : value - operand
    }
    const [head, ...rest] = segmentsOf(expression.trim())
    if (head === undefined || !this.values.has(String(head))) {
      throw new InterpolationError(`unknown variable \${${expression}}; known: ${[...this.values.keys()].sort().join(", ")}`)
    }
    const root = this.values.get(String(head))
    const value = rest.length === 0 ? root : lookup(root, rest.join("."))
    if (value === undefined) throw new InterpolationError(`\${${expression}} is absent (${String(head)} = ${JSON.stringify(root)})`)
    return value
  }

  /** Replaces every `${...}` in strings anywhere inside `value`. */
  interpolate(value: unknown): unknown {
    if (typeof value === "string") {
      const single = whole.exec(value)
      if (single !== null) return this.resolve(single[1]!)
      return value.replace(anywhere, (_token, expression: string | undefined) => {
        if (expression === undefined) return "${"
        const resolved = this.resolve(expression)
        return typeof resolved === "string" ? resolved : JSON.stringify(resolved)
      })
    }
    if (Array.isArray(value)) return value.map((item) => this.interpolate(item))
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.interpolate(item)]))
    }
    return value
  }

  interpolateString(value: string): string {
    const result = this.interpolate(value)
    return typeof result === "string" ? result : JSON.stringify(result)
  }

  names(): ReadonlyArray<string> {
    return [...this.values.keys()]
  }
}
