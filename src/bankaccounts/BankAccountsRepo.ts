import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, type Option, Schema } from "effect"
import { CountryCode, FiatCurrency } from "../reference/Countries.js"
import { type Along, repository } from "../db/Rows.js"

/** A row of `bank_accounts`: a saved payout destination, with its full number (the API shows the last four). */
export const BankAccountRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  country: CountryCode,
  currency: FiatCurrency,
  bankCode: Schema.String,
  bankName: Schema.String,
  accountNumber: Schema.String,
  accountName: Schema.String,
  isDefault: Schema.Boolean,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface BankAccountRow extends Schema.Schema.Type<typeof BankAccountRow> {}

export const NewBankAccountRow = BankAccountRow.omit("seq")
export type NewBankAccountRow = typeof NewBankAccountRow.Type

/** What a payout to a saved account needs of it: its id and the bank's fields. */
export const PayoutAccount = BankAccountRow.pick("id", "bankCode", "bankName", "accountNumber", "accountName")
export interface PayoutAccount extends Schema.Schema.Type<typeof PayoutAccount> {}

/** `defaultAlong`'s value: the default account's JSON object, or null when the customer has none. */
const DefaultAlong = Schema.OptionFromNullOr(PayoutAccount)

/** A row that does not decode (or a RETURNING without its row) is a broken invariant: a defect, not a typed error. */
/** SQL of saved bank accounts. Callers that change rows run inside the customer's command (row locked). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const Owned = Schema.Struct({ customerId: Schema.String, id: Schema.String })
  const insert = SqlSchema.single({
    Request: NewBankAccountRow,
    Result: BankAccountRow,
    execute: (row) => sql`INSERT INTO bank_accounts ${sql.insert({ ...row })} RETURNING *`
  })
  const find = SqlSchema.findOne({
    Request: Owned,
    Result: BankAccountRow,
    execute: ({ customerId, id }) => sql`SELECT * FROM bank_accounts WHERE id = ${id} AND customer_id = ${customerId}`
  })
  const findByNumber = SqlSchema.findOne({
    Request: Schema.Struct({ customerId: Schema.String, bankCode: Schema.String, accountNumber: Schema.String }),
    Result: BankAccountRow,
    execute: ({ accountNumber, bankCode, customerId }) =>
      sql`
        SELECT * FROM bank_accounts
        WHERE customer_id = ${customerId} AND bank_code = ${bankCode} AND account_number = ${accountNumber}`
  })
  const findDefault = SqlSchema.findOne({
    Request: Schema.String,
    Result: BankAccountRow,
    execute: (customerId) => sql`SELECT * FROM bank_accounts WHERE customer_id = ${customerId} AND is_default`
  })
  const list = SqlSchema.findAll({
    Request: Schema.String,
    Result: BankAccountRow,
    execute: (customerId) => sql`SELECT * FROM bank_accounts WHERE customer_id = ${customerId} ORDER BY seq`
  })
  const count = SqlSchema.single({
    Request: Schema.String,
    Result: Schema.Struct({ count: Schema.Int }),
    execute: (customerId) => sql`SELECT count(*)::int AS count FROM bank_accounts WHERE customer_id = ${customerId}`
  })
  const makeDefault = SqlSchema.findOne({
    Request: Schema.Struct({ ...Owned.fields, at: Schema.DateFromSelf }),
    Result: BankAccountRow,
    execute: ({ at, customerId, id }) =>
      sql`
        UPDATE bank_accounts SET is_default = true,
          updated_at = CASE WHEN is_default THEN updated_at ELSE ${at} END
        WHERE customer_id = ${customerId} AND id = ${id} RETURNING *`
  })
  return repository({
    /** The default account's payout fields as a read along another statement (src/db/Rows.ts `Along`). */
    defaultAlong: (customerId: string): Along<Option.Option<PayoutAccount>> => ({
      expression: sql`(
        SELECT json_build_object('id', id, 'bankCode', bank_code, 'bankName', bank_name, 'accountNumber', account_number,
          'accountName', account_name)
        FROM bank_accounts WHERE customer_id = ${customerId} AND is_default)`,
      schema: DefaultAlong
    }),
    insert: (row: NewBankAccountRow) => insert(row),
    find: (customerId: string, id: string) => find({ customerId, id }),
    findByNumber: (customerId: string, bankCode: string, accountNumber: string) =>
      findByNumber({ customerId, bankCode, accountNumber }),
    findDefault: (customerId: string) => findDefault(customerId),
    /** Oldest first: the order accounts were saved in. */
    list: (customerId: string) => list(customerId),
    count: (customerId: string) => Effect.map(count(customerId), (row) => row.count),
    /** Makes `id` the only default (clears the old one first: one default per customer is a unique index); None when no such account. */
    setDefault: (customerId: string, id: string, at: Date) =>
      Effect.zipRight(
        sql`
          UPDATE bank_accounts SET is_default = false, updated_at = ${at}
          WHERE customer_id = ${customerId} AND is_default AND id <> ${id}`,
        makeDefault({ customerId, id, at })
      )
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class BankAccountsRepo extends Effect.Service<BankAccountsRepo>()("BankAccountsRepo", { effect: make }) {}
