import * as NodePath from "node:path"
import { configDefaults, defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"
import { databaseSuites, startFirst } from "./test/support/suites.js"

/**
 * Two projects (test/support/suites.ts says which file is which; test/suites.test.ts keeps the lists true):
 * - `database`: the suites that run on the database under test (PGlite, or PostgreSQL with TEST_DATABASE_URL);
 * - `unit`: everything else (no database, or a PGlite of their own).
 * `npm test` runs every file (as one project, `all`: see `projectsFor`); `.ci/run` runs every file on PGlite and,
 * beside them, `--project database` on PostgreSQL.
 * globalSetup stays on the root config so it runs once per vitest run, not once per project.
 *
 * Worker processes are reused from file to file (`isolate: false`): a fresh process per file cost each file about
 * 2 s of CPU to load Effect, the service's modules and PGlite again (about 40 % of a small database suite's CPU). A
 * file shares the loaded modules with the files its worker ran before (the module state of src/ is counters and
 * caches of statement texts; see `startFirst`; no suite mocks a module); each file still starts its own service over
 * its own database (test/support/TestApp.ts) and closes it. Measured on the unit project: 131 -> 116 s of CPU.
 */
const perProject = {
  pool: "forks" as const,
  testTimeout: 60_000,
  hookTimeout: 120_000
}

/** Vitest's order (its cache of durations, else the largest file first), except `startFirst`'s suites first. */
class StartFirstSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const index = startFirst.indexOf(NodePath.relative(this.ctx.config.root, spec.moduleId).split(NodePath.sep).join("/"))
      return index === -1 ? startFirst.length : index
    }
    return sorted
      .map((spec, order) => ({ spec, order, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ spec }) => spec)
  }
}

const allFiles = ["test/**/*.test.ts", "test/**/*.test.tsx"]

/**
 * The projects: `database` and `unit` when the command names a project (`--project database`: the PostgreSQL pass of
 * .ci/run and `npm run test:pg`); otherwise (`npm test`, the PGlite pass, a file run by hand) one project, `all`, with
 * the same files. A pool that reuses its workers (`isolate: false`) runs one project's files after the other's, with
 * a barrier in between where a core waits for the first project's last file; one project has no barrier, and files
 * that mostly wait (a browser, a terminal, a spawned tool) run beside busy ones instead of at the end together.
 */
export const projectsFor = (split: boolean) =>
  split
    ? [
      { test: { name: "database", include: [...databaseSuites], ...perProject, poolOptions: { forks: { isolate: false } } } },
      {
        test: {
          name: "unit",
          include: allFiles,
          exclude: [...configDefaults.exclude, ...databaseSuites],
          ...perProject,
          poolOptions: { forks: { isolate: false } }
        }
      }
    ]
    : [{ test: { name: "all", include: allFiles, ...perProject, poolOptions: { forks: { isolate: false } } } }]

export default defineConfig({
  test: {
    globalSetup: ["test/support/globalSetup.ts"],
    sequence: { sequencer: StartFirstSequencer },
    pool: "forks",
    // --liftoff-only, as `npm start` runs the service: PGlite's WebAssembly compiled once by V8's baseline compiler,
    // never again by the optimising one in the background; each worker starts PGlites, and on a 2-core machine that
    // tier-up competed with the tests (a suite's CPU time -12 to -18 %, an initdb about -60 %).
    // --max-semi-space-size=64, as `npm start` too: a young generation of 64 MB collected less often (the service and
    // the suites allocate short-lived objects per request; about a fifth less time in the collector on the main thread).
    poolOptions: { forks: { maxForks: 2, minForks: 1, execArgv: ["--liftoff-only", "--max-semi-space-size=64"], isolate: false } },
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: process.env.VITEST_JSON ? { json: process.env.VITEST_JSON } : {},
    projects: projectsFor(process.argv.some((arg) => arg === "--project" || arg.startsWith("--project=")))
  }
})
