import * as NodeFs from "node:fs"
import { describe, expect, it } from "vitest"
import { magicAddress, magicOutcomes } from "../simulators/chain/ChainSimulator.js"

/** docs/sends.md's magic destination addresses are the simulator's, literally. */
describe("docs/sends.md magic addresses", () => {
  const doc = NodeFs.readFileSync(new URL("../docs/sends.md", import.meta.url), "utf8")
  it("lists each cause with the simulator's EVM, TRON and SOLANA address", () => {
    for (const [n, cause] of magicOutcomes) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${cause}\` | \`0x`))
      expect(row, cause).toBeDefined()
      const cells = row!.split("|").map((cell) => cell.trim().replace(/`/g, ""))
      expect(cells.slice(2, 5)).toEqual([magicAddress("evm", n), magicAddress("TRON", n), magicAddress("SOLANA", n)])
    }
  })
})
