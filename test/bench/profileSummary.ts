/**
 * Summary of a V8 CPU profile (`node --cpu-prof` writes one .cpuprofile per process on exit): total sampled time,
 * self time by category (Effect runtime, @effect/sql*, @effect/platform*, pg, node internals, GC, app code, other)
 * and the functions with the most self time, with file:line.
 *
 *   npx tsx test/bench/profileSummary.ts file.cpuprofile [--top 25] [--from µs] [--to µs]
 *
 * --from / --to restrict the summary to samples taken in that window, in the profile's own clock (microseconds of
 * the monotonic clock, the same as process.hrtime.bigint() / 1000n in any process of the machine): test/bench/http.ts
 * uses it to summarise one workload only, leaving out start-up and seeding.
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as NodeModule from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"

interface CallFrame { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number }
interface ProfileNode { readonly id: number; readonly callFrame: CallFrame; readonly children?: Array<number> }
export interface CpuProfile {
  readonly nodes: Array<ProfileNode>
  readonly startTime: number
  readonly endTime: number
  readonly samples: Array<number>
  readonly timeDeltas: Array<number>
}

export const categories = [
  "effect runtime",
  "@effect/sql*",
  "@effect/platform*",
  "other @effect/*",
  "pg / pg-protocol",
  "PGlite WebAssembly",
  "PGlite JS",
  "node internals",
  "GC",
  "app code",
  "native / (program)",
  "other"
] as const
export type Category = (typeof categories)[number]

export interface FunctionTime {
  readonly name: string
  readonly location: string
  readonly category: Category
  readonly selfMs: number
}

export interface ProfileSummary {
  readonly file: string
  /** Whole window of samples considered, idle included (ms). */
  readonly sampledMs: number
  /** Sampled minus idle (ms): what the process spent on the CPU, as far as the sampler saw. */
  readonly busyMs: number
  readonly idleMs: number
  readonly samples: number
  readonly window: { readonly fromUs: number; readonly toUs: number }
  readonly byCategory: Array<{ readonly category: Category; readonly selfMs: number; readonly share: number }>
  /** Node internals by module (node:net, node:internal/streams/..., ...). */
  readonly nodeInternals: Array<{ readonly module: string; readonly selfMs: number }>
  readonly top: Array<FunctionTime & { readonly share: number }>
}

const pathOf = (url: string) => {
  if (url.startsWith("file://")) {
    try {
      return fileURLToPath(url)
    } catch {
      return url
    }
  }
  return url
}

const nativeIo = /^(writev|writeBuffer|write(Utf8|Latin1|Ascii|Ucs2)String|readStart|readStop|shutdown|onStreamRead|connect|close)$/

/**
 * A frame of a bundle (`npm start` runs dist/main.js, esbuild's bundle of src/ and most packages) mapped back to its
 * source through the bundle's source map (`main.js.map` beside it), so categories and locations name the package or
 * src/ file as they do for an unbundled run. Frames without a map are returned as they are.
 */
const sourceMaps = new Map<string, NodeModule.SourceMap | undefined>()
const original = (frame: CallFrame): CallFrame => {
  if (!frame.url.startsWith("file://") && !frame.url.startsWith("/")) return frame
  const file = pathOf(frame.url)
  let map = sourceMaps.get(file)
  if (!sourceMaps.has(file)) {
    try {
      map = NodeFs.existsSync(`${file}.map`) ? new NodeModule.SourceMap(JSON.parse(NodeFs.readFileSync(`${file}.map`, "utf8"))) : undefined
    } catch {
      map = undefined
    }
    sourceMaps.set(file, map)
  }
  if (map === undefined) return frame
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number; originalColumn?: number }
  if (entry.originalSource === undefined) return frame
  const source = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : NodePath.resolve(NodePath.dirname(file), entry.originalSource)
  return { ...frame, url: pathToFileURL(source).href, lineNumber: entry.originalLine ?? frame.lineNumber, columnNumber: entry.originalColumn ?? frame.columnNumber }
}

export const categorize = (frame: CallFrame): Category => {
  const name = frame.functionName
  if (name === "(garbage collector)") return "GC"
  if (name === "(program)" || name === "(root)") return "native / (program)"
  if (frame.url.startsWith("wasm://")) return "PGlite WebAssembly"
  const path = pathOf(frame.url)
  // Native functions without a script: node's stream bindings (socket writes and reads) are node internals; the rest
  // (JSON.parse, RegExp, ...) other.
  if (path === "") return nativeIo.test(name) ? "node internals" : name === "" ? "native / (program)" : "other"
  if (path.startsWith("node:")) return "node internals"
  const modules = path.lastIndexOf("/node_modules/")
  if (modules >= 0) {
    const rest = path.slice(modules + "/node_modules/".length)
    if (rest.startsWith("effect/")) return "effect runtime"
    if (rest.startsWith("@effect/sql")) return "@effect/sql*"
    if (rest.startsWith("@effect/platform")) return "@effect/platform*"
    if (rest.startsWith("@effect/")) return "other @effect/*"
    if (/^(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|pgpass|postgres-[a-z]+)\//.test(rest)) return "pg / pg-protocol"
    if (rest.startsWith("@electric-sql/") || rest.startsWith("async-mutex/")) return "PGlite JS"
    return "other"
  }
  if (/\/(src|dist|simulators)\//.test(path)) return "app code"
  return "other"
}

/** A short location: the path below node_modules, or relative to the repository (src/...), and a 1-based line. */
const locationOf = (frame: CallFrame) => {
  const path = pathOf(frame.url)
  if (path === "") return "(native)"
  const modules = path.lastIndexOf("/node_modules/")
  let short = modules >= 0 ? path.slice(modules + "/node_modules/".length) : path
  if (modules < 0) {
    const app = /\/((?:src|dist|simulators|test)\/.*)$/.exec(path)
    if (app) short = app[1]!
  }
  // Column too when on line 1 (transpiled or bundled code on one line)
  return `${short}:${frame.lineNumber + 1}${frame.lineNumber === 0 ? `:${frame.columnNumber + 1}` : ""}`
}

const nodeModuleOf = (url: string) => {
  if (url === "") return "native stream I/O (writev, ...)"
  const module = url.replace(/^node:/, "")
  // node:internal/streams/readable -> internal/streams; node:net -> net
  const parts = module.split("/")
  return parts[0] === "internal" && parts.length > 2 ? `internal/${parts[1]}` : module
}

export const summarize = (profile: CpuProfile, options: { file?: string; top?: number; fromUs?: number; toUs?: number } = {}): ProfileSummary => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const fromUs = options.fromUs ?? -Infinity
  const toUs = options.toUs ?? Infinity
  // Timestamps: startTime + cumulative deltas. A sample's weight is the time to the next sample (the last one: the
  // time to endTime), which is how DevTools attributes self time.
  const timestamps = new Array<number>(profile.samples.length)
  let t = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0
    timestamps[i] = t
  }
  const selfUs = new Map<number, number>()
  let sampledUs = 0
  let count = 0
  let firstUs = Infinity
  let lastUs = -Infinity
  for (let i = 0; i < profile.samples.length; i++) {
    const at = timestamps[i]!
    if (at < fromUs || at > toUs) continue
    const next = i + 1 < timestamps.length ? timestamps[i + 1]! : profile.endTime
    const weight = Math.max(0, Math.min(next, toUs) - at)
    const id = profile.samples[i]!
    selfUs.set(id, (selfUs.get(id) ?? 0) + weight)
    sampledUs += weight
    count++
    firstUs = Math.min(firstUs, at)
    lastUs = Math.max(lastUs, at)
  }
  let idleUs = 0
  const byCategory = new Map<Category, number>(categories.map((category) => [category, 0]))
  const internals = new Map<string, number>()
  const functions = new Map<string, { name: string; location: string; category: Category; us: number }>()
  for (const [id, us] of selfUs) {
    let frame = byId.get(id)?.callFrame
    if (frame === undefined) continue
    if (frame.functionName === "(idle)") {
      idleUs += us
      continue
    }
    frame = original(frame)
    const category = categorize(frame)
    byCategory.set(category, byCategory.get(category)! + us)
    if (category === "node internals") {
      const module = nodeModuleOf(frame.url)
      internals.set(module, (internals.get(module) ?? 0) + us)
    }
    const location = locationOf(frame)
    const name = frame.functionName === "" ? "(anonymous)" : frame.functionName
    const key = `${name}\u0000${location}:${frame.columnNumber}`
    const entry = functions.get(key) ?? { name, location, category, us: 0 }
    entry.us += us
    functions.set(key, entry)
  }
  const busyUs = sampledUs - idleUs
  const share = (us: number) => (busyUs > 0 ? us / busyUs : 0)
  return {
    file: options.file ?? "",
    sampledMs: sampledUs / 1000,
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    samples: count,
    window: { fromUs: Number.isFinite(firstUs) ? firstUs : profile.startTime, toUs: Number.isFinite(lastUs) ? lastUs : profile.endTime },
    byCategory: [...byCategory].map(([category, us]) => ({ category, selfMs: us / 1000, share: share(us) }))
      .sort((a, b) => b.selfMs - a.selfMs),
    nodeInternals: [...internals].map(([module, us]) => ({ module, selfMs: us / 1000 })).sort((a, b) => b.selfMs - a.selfMs),
    top: [...functions.values()].sort((a, b) => b.us - a.us).slice(0, options.top ?? 25)
      .map((f) => ({ name: f.name, location: f.location, category: f.category, selfMs: f.us / 1000, share: share(f.us) }))
  }
}

export const readProfile = (file: string): CpuProfile => JSON.parse(NodeFs.readFileSync(file, "utf8")) as CpuProfile

const pct = (share: number) => `${(share * 100).toFixed(1).padStart(5)} %`
const ms = (value: number) => `${value.toFixed(0).padStart(7)} ms`

export const formatSummary = (summary: ProfileSummary, extra: { requests?: number } = {}): Array<string> => {
  const lines: Array<string> = []
  const perRequest = (value: number) =>
    extra.requests !== undefined && extra.requests > 0 ? `  ${(value / extra.requests).toFixed(3).padStart(7)} ms/req` : ""
  lines.push(`CPU profile ${summary.file}`)
  lines.push(`  sampled ${summary.sampledMs.toFixed(0)} ms (${summary.samples} samples, ` +
    `${((summary.window.toUs - summary.window.fromUs) / 1e6).toFixed(1)} s of wall time): busy ${summary.busyMs.toFixed(0)} ms, ` +
    `idle ${summary.idleMs.toFixed(0)} ms` + (extra.requests !== undefined ? `; ${extra.requests} requests in the window` : ""))
  lines.push("  self time by category (share of busy time):")
  for (const c of summary.byCategory) {
    if (c.selfMs <= 0) continue
    lines.push(`    ${c.category.padEnd(20)} ${ms(c.selfMs)} ${pct(c.share)}${perRequest(c.selfMs)}`)
  }
  const internals = summary.nodeInternals.slice(0, 8).filter((m) => m.selfMs >= 1)
  if (internals.length > 0) {
    lines.push(`  node internals by module: ${internals.map((m) => `${m.module} ${m.selfMs.toFixed(0)} ms`).join(", ")}`)
  }
  lines.push(`  top ${summary.top.length} functions by self time:`)
  for (const f of summary.top) {
    lines.push(`    ${ms(f.selfMs)} ${pct(f.share)}  ${f.name.slice(0, 40).padEnd(40)} ${f.category.padEnd(18)} ${f.location}`)
  }
  return lines
}

const isMain = (() => {
  try {
    return process.argv[1] !== undefined && NodePath.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
  } catch {
    return false
  }
})()

if (isMain) {
  const args = process.argv.slice(2)
  const option = (name: string) => {
    const index = args.indexOf(name)
    if (index < 0) return undefined
    const value = Number(args[index + 1])
    args.splice(index, 2)
    return value
  }
  const top = option("--top")
  const fromUs = option("--from")
  const toUs = option("--to")
  if (args.length === 0 || args.some((arg) => arg.startsWith("--"))) {
    console.error("usage: npx tsx test/bench/profileSummary.ts FILE.cpuprofile... [--top N] [--from µs] [--to µs]")
    process.exit(2)
  }
  for (const file of args) {
    const summary = summarize(readProfile(file), { file, top: top ?? 25, ...(fromUs !== undefined ? { fromUs } : {}), ...(toUs !== undefined ? { toUs } : {}) })
    for (const line of formatSummary(summary)) console.log(line)
  }
}
