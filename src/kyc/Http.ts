import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import { Chunk, Effect, Schema, Stream } from "effect"
import { Api } from "../Api.js"
import { BadRequest } from "../http/ApiError.js"
import { CurrentPartner } from "../http/Auth.js"
import { documentBytesMax, DocumentTooLarge, DocumentType, documentTypes, uploadBodyBytesMax } from "./Api.js"
import { Documents, type StoredDocument } from "./Documents.js"
import { Kyc } from "./Kyc.js"

interface UploadForm {
  readonly file: Uint8Array | undefined
  readonly fileBytes: number
  readonly type: string | undefined
  readonly unexpected: string | undefined
}

const tooLarge = () => new DocumentTooLarge({ message: `file: must be at most ${documentBytesMax} bytes (5 MB)` })

/** The body cap surfaces as BodyTooLarge, or as an InternalError of the underlying stream that names the limit. */
const isSizeError = (error: Multipart.MultipartError) =>
  error.reason === "FileTooLarge" || error.reason === "BodyTooLarge" ||
  (error.reason === "InternalError" && /max|too large|size/i.test(String(error.cause)))

/**
 * Part of the body may be left unread: ask the client not to reuse this connection for its next request
 * (otherwise the unread bytes would be taken for the next request).
 */
const closeConnection = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close")))

/**
 * Reads the multipart body with a cap: the file's bytes are kept up to 5 MB + 1 (enough to know it is too
 * large); the rest of an oversized file is read and dropped, so that the client gets its 413 rather than a reset.
 */
const readUploadForm = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) =>
  Stream.runFoldEffect(
    parts,
    { file: undefined, fileBytes: 0, type: undefined, unexpected: undefined } as UploadForm,
    (form, part) => {
      if (Multipart.isField(part)) {
        return Effect.succeed(part.key === "type" ? { ...form, type: part.value } : part.key === "file"
          ? { ...form, unexpected: form.unexpected ?? "file: must be a file part (with a filename)" }
          : form)
      }
      if (!Multipart.isFile(part)) return Effect.succeed(form)
      if (part.key !== "file" || form.file !== undefined) {
        return Effect.as(Stream.runDrain(part.content), {
          ...form,
          unexpected: form.unexpected ?? `${part.key}: unexpected file; send exactly one file in the field "file"`
        })
      }
      return Effect.map(
        Stream.runFold(part.content, { chunks: Chunk.empty<Uint8Array>(), size: 0 }, (acc, chunk) => ({
          chunks: acc.size > documentBytesMax ? acc.chunks : Chunk.append(acc.chunks, chunk),
          size: acc.size + chunk.length
        })),
        ({ chunks, size }) => ({ ...form, file: Buffer.concat(Chunk.toArray(chunks)), fileBytes: size })
      )
    }
  ).pipe(
    Effect.catchTag("MultipartError", (error): Effect.Effect<never, DocumentTooLarge | BadRequest> =>
      Effect.zipRight(
        closeConnection,
        Effect.fail<DocumentTooLarge | BadRequest>(
          isSizeError(error)
            ? tooLarge()
            : new BadRequest({ message: `The multipart/form-data body could not be read (${error.reason})` })
        )
      ))
  )

const decodeType = Schema.decodeUnknownOption(DocumentType)

const documentUrl = (request: HttpServerRequest.HttpServerRequest, document: StoredDocument) => {
  const host = request.headers["host"] ?? "localhost"
  return `http://${host}/api/v1/partner/v1/customers/${document.customerId}/kyc/documents/${document.id}`
}

export const KycHttp = HttpApiBuilder.group(Api, "kyc", (handlers) =>
  Effect.gen(function*() {
    const kyc = yield* Kyc
    const documents = yield* Documents
    return handlers
      .handle("tier1", ({ path, payload }) =>
        Effect.flatMap(CurrentPartner, (partner) => kyc.submitTier1(partner.id, path.customerId, payload)))
      .handle("tier2", ({ path, payload }) =>
        Effect.flatMap(CurrentPartner, (partner) => kyc.submitTier2(partner.id, path.customerId, payload)))
      .handle("records", ({ path }) => Effect.flatMap(CurrentPartner, (partner) => kyc.records(partner.id, path.customerId)))
      .handle("verification", ({ path }) =>
        Effect.flatMap(CurrentPartner, (partner) => kyc.summary(partner.id, path.customerId)))
      .handle("reverification", ({ path }) =>
        Effect.flatMap(CurrentPartner, (partner) => kyc.reverification(partner.id, path.customerId)))
      .handle("uploadDocument", ({ path, payload, request }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const declaredBytes = Number(request.headers["content-length"] ?? "0")
          if (declaredBytes > uploadBodyBytesMax) {
            yield* closeConnection
            return yield* tooLarge()
          }
          const form = yield* readUploadForm(payload)
          if (form.unexpected !== undefined) return yield* new BadRequest({ message: form.unexpected })
          if (form.file === undefined) return yield* new BadRequest({ message: "file: is required (a multipart file part)" })
          if (form.fileBytes > documentBytesMax) return yield* tooLarge()
          const type = form.type === undefined ? "OTHER" as const : decodeType(form.type)
          if (typeof type !== "string" && type._tag === "None") {
            return yield* new BadRequest({ message: `type: must be one of ${documentTypes.join(", ")}` })
          }
          const stored = yield* documents.upload(partner.id, path.customerId, {
            bytes: form.file,
            type: typeof type === "string" ? type : type.value
          })
          return { ...stored, url: documentUrl(request, stored) }
        }))
      .handle("document", ({ path }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const { content, document } = yield* documents.read(partner.id, path.customerId, path.documentId)
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
        Effect.flatMap(CurrentPartner, (partner) => kyc.decide(partner.id, path.customerId, path.level, payload)))
      .handle("requestReverification", ({ path, payload }) =>
        Effect.flatMap(CurrentPartner, (partner) => kyc.requestReverification(partner.id, path.customerId, payload)))))
