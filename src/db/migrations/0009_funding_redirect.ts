import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An EFT charge's `redirect_url` may be NULL: the URL is built from PUBLIC_BASE_URL, and in production mode there
 * is no EFT page to send the customer to (the page is a sandbox route), so production stores none. The rule that
 * tied it to the EFT type (`(type = 'eft') = (redirect_token IS NOT NULL AND redirect_url IS NOT NULL)`, an
 * unnamed check of 0007) becomes: an EFT charge has a token, and only an EFT charge has a URL.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const checks = yield* sql<{ name: string }>`
    SELECT conname AS name FROM pg_constraint
    WHERE conrelid = 'funding_charges'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%redirect_url%'`
  for (const check of checks) yield* sql`ALTER TABLE funding_charges DROP CONSTRAINT ${sql(check.name)}`
  yield* sql`
    ALTER TABLE funding_charges
      ADD CONSTRAINT funding_charges_eft_token CHECK ((type = 'eft') = (redirect_token IS NOT NULL)),
      ADD CONSTRAINT funding_charges_redirect_eft_only CHECK (redirect_url IS NULL OR type = 'eft')`
})
