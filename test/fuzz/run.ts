/**
 * The long fuzz run: `npm run fuzz -- --requests 100000 [--seed N] [--batch 40] [--valid-share 0.2] [--short] [--verbose]
 * [--database-url postgres://...] [--json report.json]`.
 *
 * Starts the service in process (the same layers as the test suite's startTestApp) on a fresh in-memory PGlite, or
 * on a throwaway database of the PostgreSQL server given by --database-url / TEST_DATABASE_URL, runs the fuzz
 * engine and prints the report. Exit code 1 on any failure, 2 on a usage error.
 */
import * as NodeFs from "node:fs"
import { startFuzzApp } from "./app.js"
import { formatReport, runFuzz } from "./fuzz.js"

const usage = "usage: npm run fuzz -- [--requests N] [--seed N] [--batch N] [--valid-share 0..1] [--short] [--verbose] [--database-url URL] [--json FILE]"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`)
  if (i === -1) return undefined
  const value = args[i + 1]
  if (value === undefined || value.startsWith("--")) {
    console.error(`--${name} needs a value\n${usage}`)
    process.exit(2)
  }
  return value
}
const integer = (name: string, fallback: number) => {
  const raw = option(name)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`--${name} must be a non-negative integer, got ${raw}\n${usage}`)
    process.exit(2)
  }
  return n
}
if (args.includes("--help") || args.includes("-h")) {
  console.log(usage)
  process.exit(0)
}

const requests = integer("requests", 20_000)
const seed = integer("seed", Math.floor(Math.random() * 2 ** 31))
const batchSize = integer("batch", 40)
const validShare = Number(option("valid-share") ?? "0.2")
const databaseUrl = option("database-url") ?? process.env.TEST_DATABASE_URL
const jsonFile = option("json")
const long = !args.includes("--short")
const verbose = args.includes("--verbose")

console.log(`Fuzz seed: ${seed} (replay with --seed ${seed})`)
console.log(`Starting the service in process on ${databaseUrl ? "PostgreSQL (throwaway database)" : "PGlite (in memory)"} …`)
const app = await startFuzzApp({ databaseUrl, seed: `fuzz-${seed}` })
let exitCode = 1
try {
  const report = await runFuzz(app, {
    requests,
    seed,
    batchSize,
    validShare,
    long,
    log: (line) => console.log(line),
    progressEvery: requests >= 5000 ? 2500 : 0
  })
  console.log(formatReport(report, { verbose }))
  if (jsonFile !== undefined) {
    NodeFs.writeFileSync(jsonFile, JSON.stringify(report, (_k, v) => (v instanceof Map ? Object.fromEntries(v) : v), 2))
    console.log(`Report written to ${jsonFile}`)
  }
  exitCode = report.ok ? 0 : 1
} catch (error) {
  console.error("fuzz: the run itself failed:", error)
  exitCode = 1
} finally {
  await app.close().catch(() => {})
}
process.exit(exitCode)
