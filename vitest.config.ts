import { configDefaults, defineConfig } from "vitest/config"
import { databaseSuites } from "./test/support/suites.js"

/**
 * Two projects (test/support/suites.ts says which file is which; test/suites.test.ts keeps the lists true):
 * - `database`: the suites that run on the database under test (PGlite, or PostgreSQL with TEST_DATABASE_URL);
 * - `unit`: everything else (no database, or a PGlite of their own).
 * `npm test` runs both; `.ci/run` runs both on PGlite, then `--project database` on PostgreSQL.
 * globalSetup stays on the root config so it runs once per vitest run, not once per project.
 */
const perProject = {
  pool: "forks" as const,
  testTimeout: 60_000,
  hookTimeout: 120_000
}

export default defineConfig({
  test: {
    globalSetup: ["test/support/globalSetup.ts"],
    pool: "forks",
    // --liftoff-only, as `npm start` runs the service: PGlite's WebAssembly compiled once by V8's baseline compiler,
    // never again by the optimising one in the background; each test file's worker starts a PGlite or more, and on a
    // 2-core machine that tier-up competed with the tests (a file's CPU time about -18 %, an initdb about -60 %).
    poolOptions: { forks: { maxForks: 2, minForks: 1, execArgv: ["--liftoff-only"] } },
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: process.env.VITEST_JSON ? { json: process.env.VITEST_JSON } : {},
    projects: [
      { test: { name: "database", include: [...databaseSuites], ...perProject } },
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
          exclude: [...configDefaults.exclude, ...databaseSuites],
          ...perProject
        }
      }
    ]
  }
})
