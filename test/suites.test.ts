import { describe, expect, it } from "vitest"
import { databaseSuites, pgliteOnlySuites, startFirst } from "./support/suites.js"
import { absolute, databaseMarkers, testFiles } from "./support/suiteScan.js"

/**
 * The split between the two passes of `.ci/run` (test/support/suites.ts): the PostgreSQL pass runs only the
 * `database` project, so a suite that touches the database under test but is missing from `databaseSuites` would
 * silently never run on PostgreSQL. Each file's imports and source say whether it touches a database
 * (test/support/suiteScan.ts); this holds the lists to that.
 */
describe("the database / non-database split of the test files", () => {
  const files = testFiles()
  const pgliteOnly = Object.keys(pgliteOnlySuites)

  it("every file that touches a database is in databaseSuites or pgliteOnlySuites", () => {
    const listed = new Set([...databaseSuites, ...pgliteOnly])
    const missing = files
      .filter((file) => !listed.has(file))
      .map((file) => ({ file, markers: databaseMarkers(absolute(file)) }))
      .filter(({ markers }) => markers.length > 0)
      .map(({ file, markers }) => `${file} (${markers.join("; ")}): add it to databaseSuites in test/support/suites.ts`)
    expect(missing).toEqual([])
  })

  it("every listed file exists, is a test file, is listed once and touches a database", () => {
    const all = [...databaseSuites, ...pgliteOnly]
    expect(all.filter((file, index) => all.indexOf(file) !== index), "listed twice").toEqual([])
    expect(all.filter((file) => !files.includes(file)), "listed but not a test file (renamed or removed?)").toEqual([])
    expect(all.filter((file) => databaseMarkers(absolute(file)).length === 0), "listed but opens no database").toEqual([])
  })

  it("the suites started first are test files, each listed once", () => {
    expect(startFirst.filter((file) => !files.includes(file)), "not a test file (renamed or removed?)").toEqual([])
    expect(startFirst.filter((file, index) => startFirst.indexOf(file) !== index)).toEqual([])
  })

  it("the scan sees what it should: helpers (also through another helper or import()), not type imports; spawned services", () => {
    // Known answers (test/fixtures/suite-scan/), so a change that blinds the scan fails here instead of quietly
    // emptying the database project.
    const scan = (name: string) => databaseMarkers(absolute(`test/fixtures/suite-scan/${name}.ts`))
    expect(scan("Dynamic")).toContain("imports test/support/TestApp.ts")
    expect(scan("Indirect")).toContain("imports test/support/KycHelpers.ts, which imports test/support/TestApp.ts")
    expect(scan("Spawns")).toEqual(["spawns dist/main.js"])
    expect(scan("TypeOnly")).toEqual([])
    expect(scan("Plain")).toEqual([])
  })

  it("vitest.config.ts runs databaseSuites as the database project and everything else as the unit project", async () => {
    const { projectsFor } = await import("../vitest.config.js")
    const projects = Object.fromEntries(projectsFor(true).map((project) => [project.test.name, project.test as { include: Array<string>; exclude?: Array<string> }]))
    expect(Object.keys(projects).sort()).toEqual(["database", "unit"])
    expect([...projects.database!.include].sort()).toEqual([...databaseSuites].sort())
    expect(projects.unit!.exclude).toEqual(expect.arrayContaining([...databaseSuites]))
    // Without a project named on the command line: one project of every file, the unit project's files and the
    // database project's together.
    const one = projectsFor(false)
    expect(one.map((project) => project.test.name)).toEqual(["all"])
    expect(one[0]!.test.include).toEqual(projects.unit!.include)
    expect("exclude" in one[0]!.test).toBe(false)
  })
})
