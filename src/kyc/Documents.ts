import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import type { CustomerId, DocumentId, PartnerId } from "../api/Ids.js"
import * as Crypto from "node:crypto"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import { BadRequest, NotFound } from "../api/ApiError.js"
import { Ids, isUuid } from "../ids/Ids.js"
import {
  type DocumentContentType,
  documentBytesMax,
  DocumentTooLarge,
  type DocumentType,
  UnsupportedDocumentType
} from "./Api.js"
import * as KycRepo from "./KycRepo.js"

/** KYC document uploads: recognised by their first bytes (never by name or declared type), stored in the database. */

const signatures: ReadonlyArray<{ readonly contentType: DocumentContentType; readonly magic: ReadonlyArray<number> }> = [
  { contentType: "image/jpeg", magic: [0xff, 0xd8, 0xff] },
  { contentType: "image/png", magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { contentType: "application/pdf", magic: [0x25, 0x50, 0x44, 0x46, 0x2d] } // "%PDF-"
]

/** No such document for this customer (unknown, malformed, or another customer's). */
export const documentMissing = () => new NotFound({ message: "No such document for this customer" })

export const sniffContentType = (bytes: Uint8Array): DocumentContentType | undefined =>
  signatures.find(({ magic }) => bytes.length >= magic.length && magic.every((byte, i) => bytes[i] === byte))?.contentType

export interface StoredDocument {
  readonly id: string
  readonly customerId: string
  readonly type: DocumentType
  readonly contentType: DocumentContentType
  readonly size: number
  readonly createdAt: Date
}

const toStored = (row: KycRepo.DocumentRow): StoredDocument => ({
  id: row.id,
  customerId: row.customerId,
  type: row.type,
  contentType: row.contentType,
  size: row.sizeBytes,
  createdAt: row.createdAt
})

/** A customer's KYC document uploads, stored in the database (`kyc_documents`). */
export class Documents extends Effect.Service<Documents>()("KycDocuments", {
  effect: Effect.gen(function*() {
    const repo = yield* KycRepo.KycRepo
    const customers = yield* Customers
    const clock = yield* ServiceClock
    const ids = yield* Ids

    /** Stores an upload of the partner's customer: not empty, at most 5 MB, a JPEG, PNG or PDF by its first bytes. */
    const upload = Command.fn("KycDocuments.upload")(
      function*(partnerId: PartnerId, customerId: CustomerId, input: { readonly bytes: Uint8Array; readonly type: DocumentType }) {
        const customer = yield* customers.getOwned(partnerId, customerId)
        if (input.bytes.length === 0) return yield* new BadRequest({ message: "file: is empty" })
        if (input.bytes.length > documentBytesMax) {
          return yield* new DocumentTooLarge({ message: `file: must be at most ${documentBytesMax} bytes (5 MB)` })
        }
        const contentType = sniffContentType(input.bytes)
        if (contentType === undefined) {
          return yield* new UnsupportedDocumentType({ message: "file: must be a JPEG, PNG or PDF document (recognised by its content, not its name)" })
        }
        const row = yield* repo.insertDocument({
          id: yield* ids.uuid,
          partnerId,
          customerId: customer.id,
          type: input.type,
          contentType,
          sizeBytes: input.bytes.length,
          sha256: Crypto.createHash("sha256").update(input.bytes).digest("hex"),
          createdAt: yield* clock.now
        }, input.bytes)
        return toStored(row)
      }
    )

    /** A document of the partner's customer with its content (404 for an unknown or malformed id). */
    const read = Command.fn("KycDocuments.read")(function*(partnerId: PartnerId, customerId: CustomerId, documentId: DocumentId) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      const found = yield* repo.documentContent(customer.id, documentId)
      if (Option.isNone(found)) return yield* documentMissing()
      const { content, ...row } = found.value
      if (content.length !== row.sizeBytes) {
        return yield* Effect.die(new Error(`document ${row.id}: stored ${content.length} bytes, expected ${row.sizeBytes}`))
      }
      return { document: toStored(row), content }
    })

    /** A document of this customer (any partner check is the caller's), or undefined. */
    const find = Command.fn("KycDocuments.find")((customerId: string, documentId: string) =>
      isUuid(documentId)
        ? repo.findDocument(customerId, documentId.toLowerCase()).pipe(
          Effect.map((row) => Option.getOrUndefined(Option.map(row, toStored)))
        )
        : Effect.succeed(undefined)
    )

    return { upload, read, find } as const
  }),
  dependencies: [KycRepo.KycRepo.Default, Customers.Default]
}) {}

export const layer = Documents.Default
