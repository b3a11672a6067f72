/**
 * Which test files run on which database (vitest.config.ts reads these lists; `.ci/run` runs the whole suite on
 * PGlite and, beside it, only the `database` project on PostgreSQL 15).
 *
 * - `databaseSuites` (vitest project `database`): every file whose outcome depends on the database under test
 *   (TEST_DATABASE_URL, else PGlite): it starts the service (startTestApp, the spawned `serve`), opens the suite's
 *   database itself, or clones the template. Both passes run them.
 * - `pgliteOnlySuites`: files that touch a database, but never the one under test (a PGlite they open themselves,
 *   or skipped when TEST_DATABASE_URL is set), or that drive a tool (the TUI, `listen`, `trigger`, the scenario
 *   runner) against a running service, or that check rules (validation, fees, corridors) whose statements the HTTP
 *   suites of the same resource run on both databases: what they check is the tool or the rule, and the service's
 *   behaviour on each database is checked by the database suites, so a PostgreSQL pass would only repeat them.
 *   Project `unit`, PGlite pass only, with the reason.
 * - Every other test file (project `unit`) opens no database: pure functions, the route table, import walks, the
 *   TUI's components, docs. PGlite pass only.
 *
 * test/suites.test.ts keeps this true: a file that imports a database helper (TestApp, LedgerHarness, ServerProcess,
 * template, src/db/, pg, PGlite, @effect/sql, also through another support module or a dynamic import), names
 * TEST_DATABASE_URL / DATABASE_URL or spawns the service must be listed here, in one list only, and each listed
 * file must exist. A new database suite therefore fails `npm test` until it is added to `databaseSuites`.
 */
export const databaseSuites: ReadonlyArray<string> = [
  "test/caches.invalidation.test.ts",
  "test/client.typed.test.ts",
  "test/clock.partner.test.ts",
  "test/console.http.test.ts",
  "test/console.process.test.ts",
  "test/console.rules.test.ts",
  "test/customer-actors.group-commit.property.test.ts",
  "test/customer-actors.group-commit.test.ts",
  "test/customer-actors.serialisation.test.ts",
  "test/db.prepared-statements.test.ts",
  "test/db.transactions.test.ts",
  "test/events.transaction.test.ts",
  "test/fault.process.test.ts",
  "test/fleet.instances.test.ts",
  "test/foundation.http.test.ts",
  "test/funding.deposits.test.ts",
  "test/funding.http.test.ts",
  "test/globalsend.http.test.ts",
  "test/hardening.cursors.test.ts",
  "test/hardening.money.test.ts",
  "test/hardening.paths.test.ts",
  "test/hardening.transport.test.ts",
  "test/hardening.urls.test.ts",
  "test/hardening.webhooks.test.ts",
  "test/idempotency.replays.test.ts",
  "test/strict-bodies.test.ts",
  "test/international.corridors.test.ts",
  "test/international.enrolment.test.ts",
  "test/international.fees.test.ts",
  "test/international.production.test.ts",
  "test/jobs.test.ts",
  "test/key-check.test.ts",
  "test/kyc.documents.test.ts",
  "test/kyc.http.test.ts",
  "test/kyc.tier2.test.ts",
  "test/ledger.http.test.ts",
  "test/ledger.journal-plan.test.ts",
  "test/ledger.property.test.ts",
  "test/observability.metrics.test.ts",
  "test/openapi.conformance.test.ts",
  "test/performance.statements.test.ts",
  "test/rails.http.test.ts",
  "test/rails.production.test.ts",
  "test/sandbox.balances.test.ts",
  "test/sandbox.empty-body.test.ts",
  "test/sandbox.events-stream.test.ts",
  "test/sandbox.inspect.test.ts",
  "test/sandbox.rates.test.ts",
  "test/sends.http.test.ts",
  "test/trading.http.test.ts",
  "test/trading.property.test.ts",
  "test/webhooks.chaos.test.ts",
  "test/webhooks.config.test.ts",
  "test/webhooks.delivery.test.ts",
  "test/webhooks.production.test.ts",
  "test/webhooks.receiver.test.ts",
  "test/withdrawals.accounts.test.ts",
  "test/withdrawals.fees.test.ts",
  "test/withdrawals.http.test.ts",
  "test/fuzz/fuzz.test.ts",
  "test/rails/bank.contract.test.ts",
  "test/rails/chain.contract.test.ts",
  "test/rails/exchange.contract.test.ts",
  "test/rails/identity.contract.test.ts",
  "test/rails/payout.contract.test.ts"
]

export const pgliteOnlySuites: Readonly<Record<string, string>> = {
  "test/client.package.test.ts": "a tool: the partner client package (client/) — generation, the journey, the webhook verifier, npm pack — against a running sandbox",
  "test/clock.fixed.test.ts": "its clock runs over a PGlite of its own (pgliteLayer), whatever TEST_DATABASE_URL says",
  "test/process.workers.test.ts": "configuration: WORKERS and its need of DATABASE_URL, named only as configuration values; it opens no database (the processes are checked in fleet.instances)",
  "test/console.passwords.test.ts": "rules: password hashing, new-password and webhook-secret rules, configuration; it names DATABASE_URL only as a configuration value (production needs one to reach the ENCRYPTION_KEY check) and opens no database",
  "test/db.pglite-connection.test.ts": "tests the batching PGlite connection against PGlite's own, on PGlites it creates",
  "test/db.template-pool.test.ts": "tests the pool of PGlite databases (src/db/TemplatePool.ts) on PGlites it creates",
  "test/db.maintenance.test.ts": "the embedded database's maintenance daemon (PGlite has no autovacuum; PostgreSQL runs its own), on a PGlite of its own",
  "test/foundation.process.test.ts": "the default deployment (PGlite in DATA_DIR): skipped when TEST_DATABASE_URL is set",
  "test/limits.http.test.ts": "the limits on abuse live in memory, whatever the database; the key lookup they guard runs on both databases in foundation.http",
  "test/globalsend.rules.test.ts": "rules: corridors, fees, the beneficiary form, refusals; the SQL of global sends runs on both databases in globalsend.http",
  "test/international.business.test.ts": "rules: the business Tier 3 body, its fields and checks; the enrolment's SQL runs on both databases in international.enrolment",
  "test/docs.page.test.ts": "a tool: the docs page in headless Chromium against a running sandbox",
  "test/console.web.test.ts": "a tool: the web console in headless Chromium against a running sandbox; the console routes it calls run on both databases in console.http",
  "test/observability.health.test.ts": "readiness over a PGlite of its own that the test closes (the database made unreachable); the readiness SQL is the same on both databases",
  "test/listen.test.ts": "a tool: `listen`'s forwarding and output against a running sandbox",
  "test/scenario.runner.test.ts": "a tool: the scenario runner's language, reports and exit codes (the library itself runs in .ci/run)",
  "test/trigger.test.ts": "a tool: `trigger`'s catalogue and output against a running sandbox",
  "test/tui.e2e.test.ts": "a tool: the terminal UI in a pseudo-terminal against a running sandbox"
}

/**
 * Started first, in this order (vitest.config.ts's sequencer; only the order depends on this list, and
 * test/suites.test.ts checks that each entry is a test file):
 * - a suite that needs a worker no file has used before: test workers are reused from file to file (vitest.config.ts)
 *   and src/db/Database.ts names at most 400 distinct statement texts per process; after a whole pass a worker has
 *   counted about 250, and test/db.prepared-statements.test.ts expects its own statements prepared by name;
 * - then the slowest suites (measured on the 2-core CI machine), so that none of them is left running alone at the
 *   end of a pass while the other core idles. Vitest's own order (its cache of durations, wiped by `npm ci`, else the
 *   largest file first) puts the fuzz suite, a small file with the longest run, last;
 * - among them, the suites that mostly wait (a browser, a spawned service, a terminal, timers: their wall time is two
 *   to five times their CPU time): early, while `.ci/run`'s other checks fill the cores they leave idle. At the end of
 *   the pass nothing else runs, and a suite that waits there left a core idle for up to 15 s.
 */
export const startFirst: ReadonlyArray<string> = [
  "test/db.prepared-statements.test.ts",
  "test/fuzz/fuzz.test.ts",
  "test/console.rules.test.ts",
  "test/ledger.property.test.ts",
  "test/globalsend.rules.test.ts",
  "test/scenario.runner.test.ts",
  "test/docs.page.test.ts",
  "test/tui.e2e.test.ts",
  "test/console.web.test.ts",
  "test/foundation.process.test.ts",
  "test/cli.help.test.ts",
  "test/international.business.test.ts",
  "test/sends.http.test.ts",
  "test/trading.property.test.ts",
  "test/fault.process.test.ts",
  "test/trigger.test.ts",
  "test/international.enrolment.test.ts",
  "test/listen.test.ts",
  "test/webhooks.delivery.test.ts",
  "test/foundation.http.test.ts",
  "test/customer-actors.group-commit.property.test.ts",
  "test/client.package.test.ts",
  "test/key-check.test.ts",
  "test/hardening.transport.test.ts"
]
