import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/**
 * Serves the web console (docs/console.md "The web console") at `/console`: one HTML page and the two files esbuild
 * built from src/console/web/main.tsx (`app.js`, `app.css`), same origin as the API, nothing from anywhere else.
 *
 * Where the built files come from:
 * - the bundled service (dist/main.js, and the test run's bundle in .tmp/test-build-*): the `console/` directory next
 *   to the bundle, which esbuild.config.mjs writes with the bundle (`buildConsole`);
 * - the service run from TypeScript (tsx, vitest): esbuild.config.mjs's `buildConsole` in memory, once per process, on
 *   the first request for an asset (about half a second), so a test server never reads a stale dist/.
 * A bundle without its `console/` directory tries the in-memory build as well, and answers 503 when it cannot.
 */

export const paths = { page: "/console", script: "/console/app.js", style: "/console/app.css" } as const

/** The routes this module adds beside the API (for the route table's 404/405 answers). */
export const routes = [
  { method: "GET", path: paths.page },
  { method: "GET", path: paths.script },
  { method: "GET", path: paths.style }
] as const

export interface Assets {
  readonly script: Uint8Array
  readonly style: Uint8Array
}

/**
 * The page's policy: scripts and styles from this origin only (no inline script or style), requests to this origin
 * only, no framing, no plugins, no `<base>`; forms post nowhere but here.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-cache"
}

/** The HTML page; `mode` tells the app whether to show the sandbox extras (production serves none). */
export const pageHtml = (mode: "sandbox" | "production") => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="pmm-mode" content="${mode}">
<title>Partner console</title>
<link rel="stylesheet" href="${paths.style}">
<script type="module" src="${paths.script}"></script>
</head>
<body>
<div id="root"><noscript>The partner console needs JavaScript.</noscript></div>
</body>
</html>
`

const here = fileURLToPath(import.meta.url)
const fromSource = here.endsWith(".ts")
// From source: src/console/web/Serve.ts, three levels under the repository. Bundled: next to the bundle.
const root = fromSource ? NodePath.resolve(NodePath.dirname(here), "../../..") : NodePath.resolve(NodePath.dirname(here), "..")
const builtDir = NodePath.join(NodePath.dirname(here), "console")

type ConsoleBuilder = { buildConsole: (outdir: string | undefined) => Promise<Assets> }

const readBuilt = (): Assets | undefined => {
  try {
    return {
      script: NodeFs.readFileSync(NodePath.join(builtDir, "app.js")),
      style: NodeFs.readFileSync(NodePath.join(builtDir, "app.css"))
    }
  } catch {
    return undefined
  }
}

/** Built in memory with esbuild.config.mjs (a computed import: the service's bundle must not include esbuild). */
const buildInMemory = async (): Promise<Assets> => {
  const config = pathToFileURL(NodePath.join(root, "esbuild.config.mjs")).href
  const builder = (await import(/* @vite-ignore */ config)) as ConsoleBuilder
  return builder.buildConsole(undefined)
}

let loading: Promise<Assets> | undefined
/** The assets, loaded (or built) once per process; a failed build is tried again on the next request. */
export const loadAssets = (): Promise<Assets> => {
  if (loading === undefined) {
    const built = fromSource ? undefined : readBuilt()
    loading = built !== undefined ? Promise.resolve(built) : buildInMemory()
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}

const asset = (pick: (assets: Assets) => Uint8Array, contentType: string) =>
  Effect.tryPromise(loadAssets).pipe(
    Effect.map((assets) => HttpServerResponse.uint8Array(pick(assets), { contentType, headers: securityHeaders })),
    Effect.catchAll(() =>
      Effect.succeed(HttpServerResponse.text("The console's files are not built: run `npm run build`.", { status: 503, headers: securityHeaders })))
  )

/** Adds the console's three routes to the API's router. */
export const layer = (mode: "sandbox" | "production") =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const page = HttpServerResponse.text(pageHtml(mode), { contentType: "text/html; charset=utf-8", headers: securityHeaders })
      yield* router.get(paths.page, Effect.succeed(page))
      yield* router.get(paths.script, asset((assets) => assets.script, "text/javascript; charset=utf-8"))
      yield* router.get(paths.style, asset((assets) => assets.style, "text/css; charset=utf-8"))
    }))
