/**
 * Regenerates the partner client's types (client/src/schema.d.ts) from the service's OpenAPI document.
 *
 *   npm run client:generate                           # writes client/src/schema.d.ts
 *   npm run client:generate -- --out <dir>            # writes <dir>/schema.d.ts instead
 *   npm run client:generate -- --document <file>      # also writes the OpenAPI document it used
 *
 * The document comes straight from the code: `OpenApi.fromApi(Api)`, the sandbox document the running service
 * serves at GET /api/v1/openapi.json (src/http/OpenApiDocument.ts), with no server and no
 * database. openapi-typescript turns it into types; the output depends on nothing but the document and the pinned
 * generator (no timestamp, no absolute path), so running the command twice writes the same bytes.
 * test/client.package.test.ts fails while the committed file differs from what this writes.
 */
import { OpenApi } from "@effect/platform"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript"
import { Api } from "../../src/Api.js"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "../..")

/** Where the committed types live. */
export const schemaPath = NodePath.join(root, "client", "src", "schema.d.ts")

/** The OpenAPI document of the sandbox service (the partner routes and the sandbox controls), as served. */
export const openApiDocument = (): Record<string, unknown> =>
  // Through JSON, as the service sends it: the document is plain data.
  JSON.parse(JSON.stringify(OpenApi.fromApi(Api)))

const header = `${COMMENT_HEADER.trimEnd()}
/**
 * The service's OpenAPI document as TypeScript types, for openapi-fetch (see ./index.ts).
 * Regenerate with \`npm run client:generate\` at the repository root (client/scripts/generate.ts).
 */

`

/** client/src/schema.d.ts's text for a document. */
export const generateSchema = async (document: Record<string, unknown> = openApiDocument()): Promise<string> => {
  const ast = await openapiTS(document as never, { silent: true })
  return header + astToString(ast)
}

const help = `Regenerates the partner client's types from the service's OpenAPI document (docs/client.md).

Usage: npm run client:generate [-- --out <dir>] [-- --document <file>]

Options:
  --out <dir>        write <dir>/schema.d.ts instead of client/src/schema.d.ts (default: client/src)
  --document <file>  also write the OpenAPI document it used, as JSON (default: not written)
  -h, --help         print this help

Examples:
  npm run client:generate
  npm run client:generate -- --out /tmp/client-types --document /tmp/openapi.json

Exit codes: 0 written, 1 generation failed, 2 usage error.`

class UsageError extends Error {}

const parseArgs = (args: ReadonlyArray<string>): { readonly help: boolean; readonly out?: string; readonly document?: string } => {
  const parsed: { help: boolean; out?: string; document?: string } = { help: false }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--help" || arg === "-h") parsed.help = true
    else if (arg === "--out" || arg === "--document") {
      const value = args[++i]
      if (value === undefined || value.startsWith("-")) throw new UsageError(`${arg} needs a value`)
      parsed[arg === "--out" ? "out" : "document"] = value
    } else throw new UsageError(`unknown argument ${arg}`)
  }
  return parsed
}

/** `npm run client:generate -- <args>` (the test suite runs it in process: test/client.package.test.ts). */
export const main = async (args: ReadonlyArray<string>) => {
  const options = parseArgs(args)
  if (options.help) return console.log(help)
  const document = openApiDocument()
  if (options.document !== undefined) NodeFs.writeFileSync(options.document, JSON.stringify(document, null, 2) + "\n")
  const target = options.out === undefined ? schemaPath : NodePath.join(NodePath.resolve(options.out), "schema.d.ts")
  NodeFs.mkdirSync(NodePath.dirname(target), { recursive: true })
  NodeFs.writeFileSync(target, await generateSchema(document))
  console.log(`wrote ${NodePath.relative(process.cwd(), target) || target}`)
}

if (process.argv[1] !== undefined && NodePath.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    if (error instanceof UsageError) {
      console.error(`client:generate: ${error.message} (see --help)`)
      process.exit(2)
    }
    console.error(error instanceof Error ? error.stack ?? error.message : error)
    process.exit(1)
  })
}
