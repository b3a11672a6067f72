// Builds what `npm start` runs: src/main.ts bundled by esbuild into dist/main.js (ESM, Node 20), so the service
// starts as plain JavaScript instead of compiling TypeScript on the fly with tsx (see docs/performance-startup.md).
//
//   node esbuild.config.mjs           # build only when an input changed since the last build (what `npm start` runs)
//   node esbuild.config.mjs --force   # always build (`npm run build`)
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
 * Bundles `entryPoint` (src/main.ts) into `target` (dist/main.js), which is stamped for the up-to-date check above.
 * The test run bundles the service and `listen` (src/cli/listen.ts), which its process tests spawn, with these same
 * options into a directory of its own, unstamped (test/support/globalSetup.ts), so that a concurrent `npm start` or
 * test run never swaps a bundle under its processes.
 */
export const build = async (target = outfile, entryPoint = "src/main.ts") => {
  const startedAt = Date.now()
  const esbuild = await import("esbuild")
  const outdir = NodePath.dirname(target)
  const result = await esbuild.build({
    absWorkingDir: root,
    // `target`'s name for the entry (main.js, listen.js, main.tsx.js), its chunks beside it.
    entryPoints: { [NodePath.basename(target, ".js")]: entryPoint },
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
  if (target !== outfile || entryPoint !== "src/main.ts") return
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
  const because = process.argv.includes("--force") ? "--force" : staleBecause()
  if (because !== undefined) {
    // One line on stderr while esbuild works (about 1 s): `npm start` is otherwise silent until the banner.
    process.stderr.write(`building dist/main.js (${because})…\n`)
    try {
      await build()
    } catch (error) {
      // esbuild has already printed the error with its location.
      if (!(error && Array.isArray(error.errors))) console.error(error)
      process.exit(1)
    }
  }
}
