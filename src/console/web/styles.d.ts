/**
 * The web console's stylesheet, imported by main.tsx for its side effect: esbuild.config.mjs `buildConsole` bundles it
 * into app.css. It exports nothing; this declaration tells the typecheck (TypeScript 7 checks side-effect imports,
 * `noUncheckedSideEffectImports`) that the import is intended.
 */
declare module "*.css"
