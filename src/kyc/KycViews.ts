import type { KycRecord, Reverification, VerificationSummary } from "./Api.js"
import type * as KycRepo from "./KycRepo.js"
import { nextRequired } from "./KycRules.js"

/** Rows to the shapes partners see. */

export const toRecord = (row: KycRepo.KycRecordRow): KycRecord => ({
  id: row.id,
  customerId: row.customerId,
  level: row.level,
  status: row.status,
  idType: row.idType,
  rejectionReason: row.rejectionReason,
  createdAt: row.createdAt
})

export const toReverification = (row: KycRepo.ReverificationRow): Reverification => ({
  id: row.id,
  items: row.items,
  outstanding: row.outstanding,
  message: row.message,
  status: row.status,
  createdAt: row.createdAt
})

/** The verification summary from every record of the customer (newest first) and the open re-verification. */
export const summarise = (
  rows: ReadonlyArray<KycRepo.KycRecordRow>,
  open: KycRepo.ReverificationRow | undefined
): VerificationSummary => {
  const tier = (level: 1 | 2 | 3) => {
    const latest = rows.find((row) => row.level === level)
    return latest === undefined
      ? { status: "NOT_STARTED" as const, updatedAt: null, rejectionReason: null }
      : { status: latest.status, updatedAt: latest.updatedAt, rejectionReason: latest.rejectionReason }
  }
  const tiers = { "1": tier(1), "2": tier(2), "3": tier(3) }
  const statuses = { 1: tiers["1"].status, 2: tiers["2"].status, 3: tiers["3"].status }
  const approved = ([3, 2, 1] as const).find((level) => statuses[level] === "APPROVED")
  return {
    currentTier: approved ?? 0,
    tiers,
    nextRequired: nextRequired(statuses, open?.outstanding ?? []),
    reverification: open === undefined ? null : toReverification(open),
    records: rows.map(toRecord)
  }
}
