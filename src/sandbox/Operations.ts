import * as Command from "../observability/Command.js"
import { Context, Effect, Layer } from "effect"
import type { CreatedPageQuery } from "../db/Rows.js"
import type { RailName } from "../rails/RailPolicy.js"
import type { OperationAction, PendingOperation } from "./InspectApi.js"

/**
 * The registry behind `GET /sandbox/operations`: every operation a rail has started and not finished, whatever
 * the rail. Each rail contributes one source per kind of operation (simulators/*: the rail knows which domain
 * records wait for it, which job answers them and which sandbox controls settle them). The sources reach this
 * service through one explicit port, `OperationSources`, which src/App.ts provides (the simulators' sources in
 * sandbox mode, none without simulated rails). Adding a flow's operations is one more source in
 * simulators/Simulators.ts `operationSourcesLayer`; see docs/sandbox-inspect.md.
 *
 * Order: newest first by `(createdAt, id)`. Ids are uuids from one generator, unique across tables, so the pair
 * orders rows of every source in one sequence, and a page is a keyset page of each source merged.
 */
export interface OperationSource {
  /** `PendingOperation.kind` of its rows: `withdrawal`, `funding_charge`, `kyc_review`, ... */
  readonly kind: string
  readonly rail: RailName
  /**
   * The partner's pending rows of this kind (of one customer when `customerId` is set), newest first by
   * `(createdAt, id)`, strictly before `before`, at most `limit`.
   */
  readonly pending: (query: CreatedPageQuery) => Effect.Effect<ReadonlyArray<PendingOperation>>
}

export interface OperationsQuery extends CreatedPageQuery {
  readonly rail?: RailName | undefined
}

/** The port: every rail's operation sources, one per kind. */
export class OperationSources extends Context.Tag("OperationSources")<OperationSources, ReadonlyArray<OperationSource>>() {}

/** No rail with operations (production without simulated rails): the list is always empty. */
export const noOperationSources = Layer.succeed(OperationSources, [])

/** Newest first: later `createdAt` first, then the greater id (uuid text order is the database's uuid order). */
export const newestFirst = (a: PendingOperation, b: PendingOperation): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export class PendingOperations extends Effect.Service<PendingOperations>()("PendingOperations", {
  effect: Effect.gen(function*() {
    const sources = yield* OperationSources
    const kinds = sources.map((source) => source.kind)
    const repeated = kinds.find((kind, index) => kinds.indexOf(kind) !== index)
    if (repeated !== undefined) return yield* Effect.dieMessage(`PendingOperations: two sources of "${repeated}"`)

    /** Every source's rows (of `rail` when set) merged: newest first by (createdAt, id), at most `limit`. */
    const page = Command.fn("PendingOperations.page")(function*(query: OperationsQuery) {
      const selected = sources.filter((source) => query.rail === undefined || source.rail === query.rail)
      const { rail: _rail, ...keyset } = query
      const rows = yield* Effect.forEach(selected, (source) => source.pending(keyset), { concurrency: 1 })
      return rows.flat().sort(newestFirst).slice(0, query.limit)
    })
    return { page } as const
  })
}) {}

export const layer = PendingOperations.Default

/** The sandbox path of a control (`/api/v1/sandbox/...`), for `OperationAction.path`. */
export const sandboxPath = (path: string) => `/api/v1/sandbox${path}`

/**
 * `POST /api/v1/sandbox<path>`. `body` null: the control takes no payload (a client may send none, or a JSON
 * content type with no body). A control whose payload has only optional fields gets `{}`: it needs a JSON object
 * when a JSON content type is sent (only a request with neither body nor content type reads as `{}`).
 */
export const postAction = (
  name: string,
  label: string,
  path: string,
  options: { readonly reason?: "none" | "required"; readonly body?: Record<string, unknown> | null } = {}
): OperationAction => ({
  name,
  label,
  method: "POST",
  path: sandboxPath(path),
  body: options.body ?? null,
  reason: options.reason ?? "none"
})
