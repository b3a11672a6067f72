import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import Pg from "pg"
import type { TestProject } from "vitest/node"
import { migratedPgliteTemplate } from "../../src/db/Database.js"
import { migrateTemplate } from "./template.js"

const root = NodePath.resolve(__dirname, "../..")

/**
 * Before any test file runs, and concurrently (esbuild works in a process of its own):
 * - migrates one template database, so that every test file starts from a copy instead of paying initdb and the
 *   migrations again: a PGlite data-dir tarball, or (with TEST_DATABASE_URL) a PostgreSQL template database that
 *   each file clones with CREATE DATABASE ... TEMPLATE;
 * - bundles the service once, as `npm start` does (esbuild.config.mjs `buildTestBundles`), and `listen`
 *   (src/cli/listen.ts), `trigger` (src/cli/trigger.ts) and the terminal UI (src/tui/main.tsx, as main.tsx.js) with
 *   the same options, into a directory of this run's own under .tmp/ (inside the repository, so that the bundles'
 *   external packages resolve from node_modules), or takes them from TEST_BUILD_DIR (`.ci/run` builds them once for
 *   its checks): the process tests run `serve`, `ledger-check`, `scenario`,
 *   `partner-kyb` and `listen` from it (test/support/ServerProcess.ts `serviceCommand`, `listenCommand`) instead of
 *   compiling TypeScript with tsx in every child process.
 */
export default async function setup(project: TestProject) {
  // The tools' bundles only when the run may include the unit project (its suites drive `listen`, `trigger` and the
  // terminal UI); the database project (the PostgreSQL pass of .ci/run) spawns the service alone.
  const tools = project.vitest.projects.some((each) => each.name !== "database")
  const [bundles, database] = await Promise.all([buildBundles(tools), prepareTemplate(project)])
  project.provide("testBuild", bundles.dir)
  return async () => {
    await database()
    bundles.remove()
  }
}

/**
 * This run's bundles: the directory TEST_BUILD_DIR names when the caller built them already (`.ci/run` builds them
 * once, `node esbuild.config.mjs --test-bundles DIR`, for both passes and the scenario library; kept afterwards), else
 * built here into a directory of this run's own under .tmp/ (removed afterwards).
 */
const buildBundles = async (tools: boolean) => {
  // @ts-expect-error esbuild.config.mjs is plain JavaScript without declarations
  const config: EsbuildConfig = await import("../../esbuild.config.mjs")
  const given = process.env.TEST_BUILD_DIR
  if (given !== undefined && given !== "") {
    const dir = NodePath.resolve(given)
    const expected = [...Object.keys(config.testBundleEntries(tools)).map((name) => `${name}.js`), "console/app.js"]
    const missing = expected.filter((file) => !NodeFs.existsSync(NodePath.join(dir, file)))
    if (missing.length > 0) throw new Error(`TEST_BUILD_DIR=${given} lacks ${missing.join(", ")}: node esbuild.config.mjs --test-bundles ${given}`)
    return { dir, remove: () => {} }
  }
  NodeFs.mkdirSync(NodePath.join(root, ".tmp"), { recursive: true })
  const dir = NodeFs.mkdtempSync(NodePath.join(root, ".tmp", "test-build-"))
  await config.buildTestBundles(dir, { tools })
  return { dir, remove: () => NodeFs.rmSync(dir, { recursive: true, force: true }) }
}

interface EsbuildConfig {
  readonly buildTestBundles: (outdir: string, options: { tools: boolean }) => Promise<void>
  readonly testBundleEntries: (tools: boolean) => Record<string, string>
}

const prepareTemplate = async (project: TestProject): Promise<() => Promise<void>> => {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (serverUrl !== undefined && serverUrl !== "") {
    const admin = new Pg.Client({ connectionString: serverUrl })
    await admin.connect()
    const template = `pmm_template_${process.pid}`
    await admin.query(`DROP DATABASE IF EXISTS ${template}`)
    await admin.query(`CREATE DATABASE ${template}`)
    const version = Number((await admin.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0]!.v)
    await admin.end()
    const url = new URL(serverUrl)
    url.pathname = `/${template}`
    await migrateTemplate({ url: url.toString() })
    project.provide("pgTemplate", template)
    // PostgreSQL 15 copies a template through the WAL by default (STRATEGY WAL_LOG): for a small database like ours
    // about 2.5x the server's CPU of copying its files (FILE_COPY, a checkpoint first, cheap on a cluster without
    // fsync). A PostgreSQL pass creates about a hundred databases. Older servers only copy files, and know no STRATEGY.
    project.provide("pgCreateStrategy", version >= 150_000 ? " STRATEGY FILE_COPY" : "")
    project.provide("pgliteTemplate", "")
    return async () => {
      // A cluster thrown away right after the run (.ci/run, npm run test:pg: .ci/pg.sh) needs no clean-up; each DROP
      // DATABASE checkpoints, and a whole run leaves about a hundred databases (7-40 s on a 2-core machine).
      if (process.env.TEST_DATABASE_DISPOSABLE === "1") return
      const cleanup = new Pg.Client({ connectionString: serverUrl })
      await cleanup.connect()
      const rows = await cleanup.query(`SELECT datname FROM pg_database WHERE datname LIKE 'pmm_t_%' OR datname = $1`, [template])
      for (const row of rows.rows) await cleanup.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`)
      await cleanup.end()
    }
  }
  const dump = await migratedPgliteTemplate()
  const file = NodePath.join(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-template-")), "template.tar")
  NodeFs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  project.provide("pgliteTemplate", file)
  project.provide("pgTemplate", "")
  project.provide("pgCreateStrategy", "")
  return async () => NodeFs.rmSync(NodePath.dirname(file), { recursive: true, force: true })
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string
    pgTemplate: string
    /** `" STRATEGY FILE_COPY"` when the PostgreSQL server knows it (15 and later), else empty. */
    pgCreateStrategy: string
    /** This run's bundles for the process tests: `main.js` (the service, what `npm start` runs), `listen.js`. */
    testBuild: string
  }
}
