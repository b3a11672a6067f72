import foundation from "./0001_foundation.js"
import ledger from "./0002_ledger.js"
import webhooks from "./0003_webhooks.js"
import jobsRails from "./0005_jobs_rails.js"
import kyc from "./0006_kyc.js"
import funding from "./0007_funding.js"
import withdrawals from "./0008_withdrawals.js"
import fundingRedirect from "./0009_funding_redirect.js"
import trading from "./0010_trading.js"
import sends from "./0011_sends.js"
import international from "./0012_international.js"
import enrolments from "./0013_enrolments.js"
import globalSends from "./0014_global_sends.js"
import console_ from "./0015_console.js"
import webhookChaos from "./0016_webhook_chaos.js"
import partnerClocks from "./0017_partner_clocks.js"
import partnerClockIndexes from "./0018_partner_clock_indexes.js"
import keyFingerprint from "./0019_key_fingerprint.js"
import webhookAttemptStart from "./0020_webhook_attempt_start.js"
import consoleRefreshReuse from "./0021_console_refresh_reuse.js"
import consoleSessionPruning from "./0022_console_session_pruning.js"

/** Every migration, in order; statically imported so that tsx, vitest and compiled code load the same set. */
export const migrations = {
  "0001_foundation": foundation,
  "0002_ledger": ledger,
  "0003_webhooks": webhooks,
  "0005_jobs_rails": jobsRails,
  "0006_kyc": kyc,
  "0007_funding": funding,
  "0008_withdrawals": withdrawals,
  "0009_funding_redirect": fundingRedirect,
  "0010_trading": trading,
  "0011_sends": sends,
  "0012_international": international,
  "0013_enrolments": enrolments,
  "0014_global_sends": globalSends,
  "0015_console": console_,
  "0016_webhook_chaos": webhookChaos,
  "0017_partner_clocks": partnerClocks,
  "0018_partner_clock_indexes": partnerClockIndexes,
  "0019_key_fingerprint": keyFingerprint,
  "0020_webhook_attempt_start": webhookAttemptStart,
  "0021_console_refresh_reuse": consoleRefreshReuse,
  "0022_console_session_pruning": consoleSessionPruning
}
