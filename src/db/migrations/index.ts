import foundation from "./0001_foundation.js"

/** Every migration, in order; statically imported so that tsx, vitest and compiled code load the same set. */
export const migrations = {
  "0001_foundation": foundation
}
