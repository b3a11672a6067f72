import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Option, Schema } from "effect"
import { Api } from "../Api.js"
import { BadRequest, CustomerForbidden } from "../api/ApiError.js"
import { CurrentPartner } from "../api/Auth.js"
import { CustomerId, DocumentId, parseId, withCustomer } from "../api/Ids.js"
import { publicBaseUrl } from "../http/PublicUrl.js"
import { type MultipartFile, type MultipartForm, readMultipart } from "../http/MultipartBody.js"
import { documentBytesMax, DocumentTooLarge, DocumentType, documentTypes, uploadBodyBytesMax } from "./Api.js"
import { documentUrlOf } from "./DocumentFields.js"
import { documentMissing, Documents, type StoredDocument } from "./Documents.js"
import { Kyc } from "./Kyc.js"
import { Customers } from "../customers/Customers.js"

const tooLarge = () => new DocumentTooLarge({ message: `file: must be at most ${documentBytesMax} bytes (5 MB)` })

/**
 * Limits of reading an upload body (docs/kyc.md "Documents"): the body cap, and the time the whole body may take
 * to arrive (408 REQUEST_TIMEOUT after it). Mutable only so that a test can shorten the time limit.
 */
export const uploadReadLimits = { timeoutMs: 60_000 }

/**
 * Part of the body may be left unread: ask the client not to reuse this connection for its next request
 * (otherwise the unread bytes would be taken for the next request).
 */
const closeConnection = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close")))

const requestTimeout = () =>
  HttpServerResponse.unsafeJson({
    code: "REQUEST_TIMEOUT",
    error: "RequestTimeout",
    message: `file: the upload did not arrive within ${uploadReadLimits.timeoutMs / 1000} seconds`
  }, { status: 408 })

/**
 * Reads the multipart body while it arrives (MultipartBody.ts): the whole body is capped at 6 MB and the file's
 * bytes are kept up to 5 MB + 1 (enough to know it is too large); a body that ends before its closing boundary is
 * a 400, one that does not arrive in time a 408.
 */
const readUploadForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const read = yield* readMultipart(request, {
      bodyBytesMax: uploadBodyBytesMax,
      fileBytesKept: documentBytesMax + 1,
      partsMax: 8,
      fieldBytesMax: 1024,
      timeoutMs: uploadReadLimits.timeoutMs
    })
    if (Either.isRight(read)) return Either.right(read.right)
    const failure = read.left
    switch (failure._tag) {
      case "TooLarge":
        yield* closeConnection
        return yield* tooLarge()
      case "Timeout":
        yield* closeConnection
        return Either.left(requestTimeout())
      case "Malformed":
        return yield* new BadRequest({ message: `file: the multipart/form-data body could not be read: ${failure.message}` })
      case "Unreadable":
        return yield* new BadRequest({ message: "file: the multipart/form-data body could not be read" })
    }
  })

/** The one document of the form, or the first problem with the form's parts. */
const uploadedFile = (form: MultipartForm): Either.Either<MultipartFile, string> => {
  const textFile = form.fields.find((field) => field.key === "file")
  if (textFile !== undefined) return Either.left("file: must be a file part (with a filename)")
  const stray = form.files.find((file) => file.key !== "file")
  if (stray !== undefined) return Either.left(`${stray.key}: unexpected file; send exactly one file in the field "file"`)
  const files = form.files.filter((file) => file.key === "file")
  if (files.length > 1) return Either.left(`file: unexpected file; send exactly one file in the field "file"`)
  if (files.length === 0) return Either.left("file: is required (a multipart file part)")
  return Either.right(files[0]!)
}

const decodeType = Schema.decodeUnknownOption(DocumentType)

/** Built from PUBLIC_BASE_URL (src/http/PublicUrl.ts), never from the request's Host header. */
const documentUrl = (baseUrl: string, document: StoredDocument) => documentUrlOf(baseUrl, document.customerId, document.id)

export const KycHttp = HttpApiBuilder.group(Api, "kyc", (handlers) =>
  Effect.gen(function*() {
    const kyc = yield* Kyc
    const documents = yield* Documents
    const customers = yield* Customers
    const baseUrl = yield* publicBaseUrl
    return handlers
      .handle("tier1", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => kyc.submitTier1(partnerId, customerId, payload)))
      .handle("tier2", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => kyc.submitTier2(partnerId, customerId, payload)))
      .handle("records", ({ path }) => withCustomer(path.customerId, kyc.records))
      .handle("verification", ({ path }) =>
        withCustomer(path.customerId, kyc.summary))
      .handle("reverification", ({ path }) =>
        withCustomer(path.customerId, kyc.reverification))
      .handle("uploadDocument", ({ path, request }) =>
        Effect.gen(function*() {
          const declaredBytes = Number(request.headers["content-length"] ?? "0")
          if (declaredBytes > uploadBodyBytesMax) {
            yield* closeConnection
            return yield* tooLarge()
          }
          const read = yield* readUploadForm(request)
          if (Either.isLeft(read)) return read.left
          const form = read.right
          const file = uploadedFile(form)
          if (Either.isLeft(file)) return yield* new BadRequest({ message: file.left })
          if (file.right.size > documentBytesMax) return yield* tooLarge()
          const typeField = form.fields.find((field) => field.key === "type")?.value
          const type = typeField === undefined ? "OTHER" as const : decodeType(typeField)
          if (typeof type !== "string" && type._tag === "None") {
            return yield* new BadRequest({ message: `type: must be one of ${documentTypes.join(", ")}` })
          }
          const stored = yield* withCustomer(path.customerId, (partnerId, customerId) => documents.upload(partnerId, customerId, {
            bytes: file.right.bytes,
            type: typeof type === "string" ? type : type.value
          }))
          return { ...stored, url: documentUrl(baseUrl, stored) }
        }))
      .handle("document", ({ path }) =>
        Effect.gen(function*() {
          const { content, document } = yield* withCustomer(path.customerId, (partnerId, customerId) =>
            Option.match(parseId(DocumentId, path.documentId), {
              // Malformed: answered like an unknown document, after the customer's check.
              onNone: () => Effect.zipRight(customers.getOwned(partnerId, customerId), Effect.fail(documentMissing())),
              onSome: (documentId) => documents.read(partnerId, customerId, documentId)
            }))
          return HttpServerResponse.uint8Array(content, {
            contentType: document.contentType,
            headers: { "cache-control": "private, no-store", "x-content-type-options": "nosniff" }
          })
        }))
  }))

export const SandboxKycHttp = HttpApiBuilder.group(Api, "sandboxKyc", (handlers) =>
  Effect.map(Kyc, (kyc) =>
    handlers
      .handle("decide", ({ path, payload }) =>
        Option.match(parseId(CustomerId, path.customerId), {
          // The decision's own checks come first, then the customer (a malformed id: 403 like an unknown one).
          onNone: () => Effect.zipRight(kyc.checkDecision(path.level, payload), Effect.fail(CustomerForbidden.standard())),
          onSome: (customerId) => Effect.flatMap(CurrentPartner, (partner) => kyc.decide(partner.id, customerId, path.level, payload))
        }))
      .handle("requestReverification", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => kyc.requestReverification(partnerId, customerId, payload)))))
