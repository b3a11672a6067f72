/**
 * Builds dist/: compiles src/*.ts to ES modules with their declarations, and copies the generated types
 * (src/schema.d.ts, which tsc does not emit: it is a declaration file) beside them. Run by `npm run build` and
 * before `npm pack` (prepack). TypeScript and @types/node come from this package's devDependencies or, in the
 * service's repository, from its root node_modules.
 */
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..")
const dist = NodePath.join(root, "dist")
const tsc = createRequire(NodePath.join(root, "package.json")).resolve("typescript/bin/tsc")

NodeFs.rmSync(dist, { recursive: true, force: true })
execFileSync(process.execPath, [tsc, "-p", NodePath.join(root, "tsconfig.json")], { stdio: "inherit" })
NodeFs.copyFileSync(NodePath.join(root, "src", "schema.d.ts"), NodePath.join(dist, "schema.d.ts"))
