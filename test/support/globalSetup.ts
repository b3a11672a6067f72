import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import Pg from "pg"
import type { TestProject } from "vitest/node"
import { migratedPgliteTemplate } from "../../src/db/Database.js"
import { migrateTemplate } from "./template.js"

/**
 * Migrates one template database before any test file runs, so that every test file starts from a copy
 * instead of paying initdb and the migrations again: a PGlite data-dir tarball, or (with TEST_DATABASE_URL) a
 * PostgreSQL template database that each file clones with CREATE DATABASE ... TEMPLATE.
 */
export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (serverUrl !== undefined && serverUrl !== "") {
    const admin = new Pg.Client({ connectionString: serverUrl })
    await admin.connect()
    const template = `pmm_template_${process.pid}`
    await admin.query(`DROP DATABASE IF EXISTS ${template}`)
    await admin.query(`CREATE DATABASE ${template}`)
    await admin.end()
    const url = new URL(serverUrl)
    url.pathname = `/${template}`
    await migrateTemplate({ url: url.toString() })
    project.provide("pgTemplate", template)
    project.provide("pgliteTemplate", "")
    return async () => {
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
  return () => NodeFs.rmSync(NodePath.dirname(file), { recursive: true, force: true })
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string
    pgTemplate: string
  }
}
