// Builds what `npm start` runs: src/main.ts bundled by esbuild into dist/main.js (ESM, Node 20), so the service
// starts as plain JavaScript instead of compiling TypeScript on the fly with tsx (see docs/performance-startup.md).
//
//   node esbuild.config.mjs           # build only when an input changed since the last build (what `npm start` runs)
//   node esbuild.config.mjs --force   # always build (`npm run build`)
//   node esbuild.config.mjs --test-bundles DIR   # the test run's bundles into DIR (`.ci/run`; `buildTestBundles`)
//
// Up to date means: dist/main.js exists and every input of the last build (each source file and each bundled
// package file, from esbuild's metafile), package.json, package-lock.json and this file still have the size and
// modification time they had when that build started. An edited, added-and-imported or deleted source file, an
// `npm install` or a `git pull` therefore rebuilds (about 1 s); an unchanged tree costs a few milliseconds of stat
// calls. No type checking here: `npm run typecheck` does that.
//
// Packages that locate files relative to their own module (@electric-sql/pglite loads pglite.wasm, initdb.wasm and
// pglite.data next to itself through import.meta.url) stay external and are imported from node_modules at run time;
// everything else is bundled, which loads faster than Node resolving and reading hundreds of ESM files.
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

const root = NodePath.dirname(fileURLToPath(import.meta.url))
const outfile = NodePath.join(root, "dist", "main.js")
const stampFile = NodePath.join(root, "dist", "main.inputs.json")
const alwaysChecked = ["package.json", "package-lock.json", "esbuild.config.mjs"]

/** Size and modification time of a file relative to the repository, or undefined when it is gone. */
const fingerprint = (file) => {
  try {
    const stat = NodeFs.statSync(NodePath.join(root, file))
    return `${stat.size}:${stat.mtimeMs}`
  } catch {
    return undefined
  }
}

/** Why dist/main.js must be built (for the line `npm start` prints), or undefined when it is up to date. */
const staleBecause = () => {
  let stamp
  try {
    if (!NodeFs.existsSync(outfile)) return "no build yet"
    if (!NodeFs.existsSync(NodePath.join(root, "dist", "console", "app.js"))) return "no web console build yet"
    stamp = JSON.parse(NodeFs.readFileSync(stampFile, "utf8"))
  } catch {
    return "no build record"
  }
  if (stamp.version !== 1 || typeof stamp.inputs !== "object" || stamp.inputs === null) return "no build record"
  for (const [file, seen] of Object.entries(stamp.inputs)) {
    if (fingerprint(file) !== seen) return `${file} changed`
  }
  return undefined
}

/**
 * esbuild's options for a Node bundle of `entryPoints` (`{ name: source }`: `name.js` in `outdir` for each, and the
 * chunks they share beside them): what `npm start` runs, and what the test run spawns.
 */
const nodeBundle = (outdir, entryPoints) => ({
  absWorkingDir: root,
  entryPoints,
  outdir,
  // Code split at dynamic imports: src/main.ts prints `--help` from a small chunk and loads the parsers, then the
  // service, only for a command (a `--help` 0.5 -> 0.1 s of CPU). Chunks are named by content, next to the entry,
  // so that a module locating files from its own URL (the web console's assets) finds them where it did.
  splitting: true,
  chunkNames: "chunk-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // ink loads its React devtools (./devtools.js, importing react-devtools-core, which is not installed) only when
  // DEV=true: left as a run-time import, so the terminal UI bundles too (a bundle never sets DEV).
  external: ["@electric-sql/pglite", "./devtools.js"],
  // Bundled CommonJS packages call require() for Node's built-ins; ESM output has no require of its own.
  banner: { js: "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);" },
  sourcemap: "linked",
  sourcesContent: false,
  metafile: true,
  legalComments: "none",
  logLevel: "warning"
})

/**
 * The test run's bundles, written to `outdir` (test/support/globalSetup.ts; `.ci/run` builds them once for all its
 * checks with `node esbuild.config.mjs --test-bundles DIR`): the service (`main.js`, what `npm start` runs), with
 * `tools` also `listen.js`, `trigger.js` and the terminal UI (`main.tsx.js`), in one esbuild run whose entries share
 * their chunks (one run parses Effect and the service once: 3.3 s of CPU for the four, against 2.1-3.0 s for each
 * alone), and the web console in `console/` beside them, where a spawned `serve` reads it (src/console/web/Serve.ts).
 * Unstamped, in a directory of the caller's own, so that a concurrent `npm start` or test run never swaps a bundle
 * under its processes.
 */
export const buildTestBundles = async (outdir, { tools = true } = {}) => {
  const esbuild = await import("esbuild")
  await Promise.all([esbuild.build(nodeBundle(outdir, testBundleEntries(tools))), buildConsole(NodePath.join(outdir, "console"))])
}

/** The test run's bundles (`name.js`) and their sources: the service, and with `tools` the tools as well. */
export const testBundleEntries = (tools) =>
  tools
    ? { main: "src/main.ts", listen: "src/cli/listen.ts", trigger: "src/cli/trigger.ts", "main.tsx": "src/tui/main.tsx" }
    : { main: "src/main.ts" }

/** Bundles src/main.ts into dist/main.js (what `npm start` runs), stamped for the up-to-date check above. */
export const build = async () => {
  const startedAt = Date.now()
  const esbuild = await import("esbuild")
  const outdir = NodePath.dirname(outfile)
  const result = await esbuild.build(nodeBundle(outdir, { main: "src/main.ts" }))
  // dist/: the chunks of earlier builds go (each build names its own by content).
  const written = new Set(Object.keys(result.metafile.outputs).map((file) => NodePath.resolve(root, file)))
  for (const file of NodeFs.readdirSync(outdir)) {
    const path = NodePath.join(outdir, file)
    if (/^chunk-[A-Z0-9]+\.js(\.map)?$/.test(file) && !written.has(path)) NodeFs.rmSync(path, { force: true })
  }
  // The web console (src/console/web/) beside the service: dist/console/app.js and app.css, stamped with it.
  const web = await buildConsole(NodePath.join(root, "dist", "console"))
  const inputs = {}
  const bundled = [...Object.keys(result.metafile.inputs), ...Object.keys(web.metafile.inputs)]
  const files = [...new Set([...alwaysChecked, ...bundled.filter((file) => !file.startsWith("<"))])]
  for (const file of files) {
    const seen = fingerprint(file)
    // A file written while esbuild ran may be in the bundle in its old form: never up to date, rebuilt next start.
    const mtimeMs = seen === undefined ? 0 : Number(seen.slice(seen.indexOf(":") + 1))
    inputs[file] = mtimeMs >= startedAt - 10 ? "changed during the build" : seen
  }
  NodeFs.writeFileSync(stampFile, JSON.stringify({ version: 1, inputs }))
}

/**
 * Bundles the web console (src/console/web/main.tsx and the CSS it imports) for browsers: `app.js` (an ES module,
 * React included, minified) and `app.css`, written to `outdir`, or kept in memory when `outdir` is undefined (the
 * service run from TypeScript builds it so on its first request: src/console/web/Serve.ts). Nothing is fetched at run
 * time. Returns both files' bytes and esbuild's metafile.
 */
export const buildConsole = async (outdir) => {
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: "src/console/web/main.tsx" },
    outdir: outdir ?? NodePath.join(root, "dist", "console"),
    write: outdir !== undefined,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: ["es2022", "chrome110", "firefox110", "safari16"],
    jsx: "automatic",
    minify: true,
    define: { "process.env.NODE_ENV": "\"production\"" },
    metafile: true,
    legalComments: "none",
    logLevel: "warning"
  })
  const read = (name) => {
    const file = result.outputFiles?.find((output) => output.path.endsWith(name))
    return file !== undefined ? file.contents : NodeFs.readFileSync(NodePath.join(outdir, name))
  }
  return { script: read("app.js"), style: read("app.css"), metafile: result.metafile }
}

if (process.argv[1] !== undefined && NodePath.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  /** esbuild has already printed a build error with its location; anything else is printed here. */
  const failed = (error) => {
    if (!(error && Array.isArray(error.errors))) console.error(error)
    process.exit(1)
  }
  const testBundles = process.argv.indexOf("--test-bundles")
  if (testBundles !== -1) {
    const dir = process.argv[testBundles + 1]
    if (dir === undefined || dir.startsWith("--")) {
      console.error("usage: node esbuild.config.mjs --test-bundles DIR")
      process.exit(2)
    }
    await buildTestBundles(NodePath.resolve(dir)).catch(failed)
  } else {
    const because = process.argv.includes("--force") ? "--force" : staleBecause()
    if (because !== undefined) {
      // One line on stderr while esbuild works (about 1 s): `npm start` is otherwise silent until the banner.
      process.stderr.write(`building dist/main.js (${because})…\n`)
      await build().catch(failed)
    }
  }
}
