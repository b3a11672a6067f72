import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { Option, Schema } from "effect"
import { described, example, exampleOf, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden, NotFound } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { Envelope } from "../api/Envelope.js"
import { CustomerBusy } from "../ledger/Errors.js"
import { IdentityRailUnavailable } from "../rails/Errors.js"
import { DocumentUrl, IdDocumentNumber } from "./DocumentFields.js"

export const KycStatus = Schema.Literal("NOT_STARTED", "PENDING", "REVIEW", "APPROVED", "REJECTED")
export type KycStatus = typeof KycStatus.Type
export type RecordStatus = Exclude<KycStatus, "NOT_STARTED">

/** Inputs a customer may be asked for (docs/contract.md "Verification summary"). */
export const KycItem = Schema.Literal("BVN", "NIN", "ID_DOCUMENT", "SELFIE", "DATE_OF_BIRTH", "ADDRESS", "COUNTRY", "ADDRESS_PROOF")
export type KycItem = typeof KycItem.Type

/** A KYC record: one tier submission (docs/contract.md "KYC record"). */
export const KycRecord = example(Schema.Struct({
  id: Schema.UUID,
  customerId: Schema.UUID,
  level: described(Schema.Int, "The KYC tier: 1, 2 or 3."),
  status: KycStatus,
  idType: described(Schema.NullOr(Schema.String), "The identity document's type (Tier 2), e.g. PASSPORT."),
  rejectionReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Date
}), {
  id: sample.kycId,
  customerId: sample.customerId,
  level: 1,
  status: "PENDING",
  idType: null,
  rejectionReason: null,
  createdAt: sample.at
})
export type KycRecord = typeof KycRecord.Type

export const TierSubmission = example(Schema.Struct({ status: KycStatus, record: KycRecord }), {
  status: "PENDING",
  record: exampleOf(KycRecord)
})

const elevenDigits = Schema.String.pipe(Schema.pattern(/^\d{11}$/, { message: () => "must be exactly 11 digits" }))

export const Tier1Body = example(Schema.Struct({
  bvn: described(elevenDigits, "The customer's Bank Verification Number: 11 digits."),
  nin: described(elevenDigits, "The customer's National Identification Number: 11 digits.")
}), { bvn: "12345678901", nin: "10987654321" })

/** Kinds of identity document accepted for Tier 2. */
export const IdDocumentType = Schema.Literal("PASSPORT", "NATIONAL_ID", "DRIVERS_LICENSE", "VOTERS_CARD")

export const Tier2Body = example(Schema.Struct({
  idDocument: Schema.Struct({
    type: IdDocumentType.annotations({ message: () => "must be one of PASSPORT, NATIONAL_ID, DRIVERS_LICENSE, VOTERS_CARD" }),
    number: described(IdDocumentNumber, "The document's number as printed on it: 5 to 20 letters and digits."),
    frontUrl: described(DocumentUrl, "The `url` of the document's front, uploaded with `POST .../kyc/documents`."),
    backUrl: Schema.optional(described(DocumentUrl, "The `url` of the document's back, if it has one."))
  }),
  selfieUrl: described(DocumentUrl, "The `url` of the customer's selfie, uploaded with `POST .../kyc/documents`.")
}), {
  idDocument: {
    type: "PASSPORT",
    number: "A12345678",
    frontUrl: `https://api.example.com/api/v1/partner/v1/customers/${sample.customerId}/kyc/documents/${sample.documentId}`
  },
  selfieUrl: `https://api.example.com/api/v1/partner/v1/customers/${sample.customerId}/kyc/documents/1c7e9a3f-5b2d-4f8a-a6c0-d3e9b1f7a254`
})
export type Tier2Body = typeof Tier2Body.Type

export const TierView = Schema.Struct({
  status: KycStatus,
  updatedAt: Schema.NullOr(Schema.Date),
  rejectionReason: Schema.NullOr(Schema.String)
})

export const Reverification = Schema.Struct({
  id: Schema.UUID,
  items: Schema.Array(KycItem),
  /** Requested items not yet re-submitted; the request completes when this is empty. */
  outstanding: Schema.Array(KycItem),
  message: Schema.String,
  status: Schema.Literal("OPEN", "COMPLETED", "SUPERSEDED"),
  createdAt: Schema.Date
})
export type Reverification = typeof Reverification.Type

export const VerificationSummary = example(Schema.Struct({
  currentTier: described(Schema.Int, "The highest tier approved, 0 before any."),
  tiers: Schema.Struct({ "1": TierView, "2": TierView, "3": TierView }),
  nextRequired: described(Schema.Array(KycItem), "What the customer is asked for next."),
  reverification: Schema.NullOr(Reverification),
  records: Schema.Array(KycRecord)
}), {
  currentTier: 1,
  tiers: {
    "1": { status: "APPROVED", updatedAt: sample.later, rejectionReason: null },
    "2": { status: "NOT_STARTED", updatedAt: null, rejectionReason: null },
    "3": { status: "NOT_STARTED", updatedAt: null, rejectionReason: null }
  },
  nextRequired: ["ID_DOCUMENT", "SELFIE"],
  reverification: null,
  records: [{
    id: sample.kycId,
    customerId: sample.customerId,
    level: 1,
    status: "APPROVED",
    idType: null,
    rejectionReason: null,
    createdAt: sample.at
  }]
})
export type VerificationSummary = typeof VerificationSummary.Type

/** Classification a partner may give an upload; `OTHER` when absent. */
export const DocumentType = Schema.Literal(
  "ID_FRONT",
  "ID_BACK",
  "SELFIE",
  "PROOF_OF_ADDRESS",
  "BUSINESS_DOCUMENT",
  "OTHER"
)
export type DocumentType = typeof DocumentType.Type
export const documentTypes: ReadonlyArray<DocumentType> = DocumentType.literals

export const DocumentContentType = Schema.Literal("image/jpeg", "image/png", "application/pdf")
export type DocumentContentType = typeof DocumentContentType.Type

export const UploadedDocument = example(Schema.Struct({
  id: Schema.UUID,
  url: described(Schema.String, "Where the document is: pass it as `frontUrl`, `selfieUrl`, ... of a KYC submission."),
  type: DocumentType,
  contentType: DocumentContentType,
  size: described(Schema.Int, "The file's size in bytes."),
  createdAt: Schema.Date
}), {
  id: sample.documentId,
  url: `https://api.example.com/api/v1/partner/v1/customers/${sample.customerId}/kyc/documents/${sample.documentId}`,
  type: "ID_FRONT",
  contentType: "image/jpeg",
  size: 184320,
  createdAt: sample.at
})

/** 5 MB (docs/contract.md "Limits"), in bytes. */
export const documentBytesMax = 5 * 1024 * 1024

/** Largest upload body read at all: the document plus room for the form's boundaries and small fields. */
export const uploadBodyBytesMax = documentBytesMax + 1024 * 1024

/** Form fields of the upload: `file` (the document) and optional `type`. */
export const UploadForm = HttpApiSchema.MultipartStream(
  Schema.Struct({
    file: Multipart.SingleFileSchema.annotations({
      jsonSchema: { type: "string", format: "binary", description: "one file part: JPEG, PNG or PDF (by content), at most 5 MB" }
    }),
    type: Schema.optional(DocumentType)
  }),
  {
    maxParts: Option.some(8),
    maxFieldSize: 1024,
    // The file cap is enforced while reading (413 with the envelope); this bounds the whole body.
    maxTotalSize: Option.some(uploadBodyBytesMax)
  }
)

export const DocumentPath = Schema.Struct({ customerId: Schema.String, documentId: Schema.String })

export const LevelPath = Schema.Struct({
  customerId: Schema.String,
  level: Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 3)).annotations({
    message: () => "must be 1, 2 or 3",
    jsonSchema: { type: "integer", enum: [1, 2, 3], description: "the KYC tier" }
  })
})

export const DecisionBody = example(Schema.Struct({
  status: Schema.Literal("APPROVED", "REJECTED").annotations({ message: () => "must be APPROVED or REJECTED" }),
  reason: Schema.optional(Schema.Trim.pipe(Schema.compose(Schema.String.pipe(
    Schema.minLength(1, { message: () => "must be 1 to 500 characters" }),
    Schema.maxLength(500, { message: () => "must be 1 to 500 characters" })
  ))))
}), { status: "APPROVED" })

export const ReverificationBody = example(Schema.Struct({
  items: Schema.Array(KycItem.annotations({
    message: () => "must be one of BVN, NIN, ID_DOCUMENT, SELFIE, DATE_OF_BIRTH, ADDRESS, COUNTRY, ADDRESS_PROOF"
  })).pipe(Schema.minItems(1, { message: () => "must list at least one item" }), Schema.maxItems(8)),
  message: Schema.Trim.pipe(Schema.compose(Schema.String.pipe(
    Schema.minLength(1, { message: () => "must be 1 to 1000 characters" }),
    Schema.maxLength(1000, { message: () => "must be 1 to 1000 characters" })
  )))
}), { items: ["ID_DOCUMENT"], message: "The passport on file has expired: please upload a current one." })

// Domain refusals, each with its own stable code.

export class KycPreviousTierNotApproved extends ApiError("KycPreviousTierNotApproved", 400, "KYC_PREVIOUS_TIER_NOT_APPROVED") {}

export class KycTierAlreadyApproved extends ApiError("KycTierAlreadyApproved", 400, "KYC_TIER_ALREADY_APPROVED") {}

export class KycTierAwaitingDecision extends ApiError("KycTierAwaitingDecision", 400, "KYC_TIER_AWAITING_DECISION") {}

export class KycNotAwaitingDecision extends ApiError("KycNotAwaitingDecision", 400, "KYC_NOT_AWAITING_DECISION") {}

export class KycDocumentNotFound extends ApiError("KycDocumentNotFound", 400, "KYC_DOCUMENT_NOT_FOUND") {}

export class UnsupportedDocumentType extends ApiError("UnsupportedDocumentType", 400, "UNSUPPORTED_DOCUMENT_TYPE") {}

export class DocumentTooLarge extends ApiError("DocumentTooLarge", 413, "DOCUMENT_TOO_LARGE") {}

export class KycApi extends HttpApiGroup.make("kyc").annotateContext(resourceTag("kyc"))
  .add(
    HttpApiEndpoint.post("tier1", "/customers/:customerId/kyc/tier1")
      .annotateContext(OpenApi.annotations({
        summary: "Submit KYC Tier 1",
        description: "Looks up `bvn` and `nin` (11 digits each) in the identity registries and compares the names with " +
          "the customer's: `APPROVED` when both match, otherwise `REVIEW` for a reviewer (Tier 1 never " +
          "auto-rejects). Answers 201 `{ status, record }` and emits `kyc.status_updated`. A tier awaiting " +
          "a decision, or approved with no re-verification asking for it, is refused with 400."
      }))
      .setPath(CustomerIdPath)
      .setPayload(Tier1Body)
      .addSuccess(Envelope(TierSubmission), { status: 201 })
      .addError(BadRequest)
      .addError(KycTierAlreadyApproved)
      .addError(KycTierAwaitingDecision)
      .addError(CustomerBusy)
      .addError(IdentityRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("tier2", "/customers/:customerId/kyc/tier2")
      .annotateContext(OpenApi.annotations({
        summary: "Submit KYC Tier 2",
        description: "Submits an identity document and a selfie by the `url`s the document upload returned for this " +
          "customer. Requires Tier 1 approved. Answers 201 `{ status: \"PENDING\", record }`; the identity " +
          "check decides later and emits `kyc.status_updated`."
      }))
      .setPath(CustomerIdPath)
      .setPayload(Tier2Body)
      .addSuccess(Envelope(TierSubmission), { status: 201 })
      .addError(BadRequest)
      .addError(KycTierAlreadyApproved)
      .addError(KycTierAwaitingDecision)
      .addError(CustomerBusy)
      .addError(KycPreviousTierNotApproved)
      .addError(KycDocumentNotFound)
      .addError(IdentityRailUnavailable)
  )
  .add(
    HttpApiEndpoint.get("records", "/customers/:customerId/kyc")
      .annotateContext(OpenApi.annotations({
        summary: "List KYC records",
        description: "Every KYC submission of the customer, newest first (a plain array)."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(Schema.Array(KycRecord)))
  )
  .add(
    HttpApiEndpoint.get("verification", "/customers/:customerId/verification")
      .annotateContext(OpenApi.annotations({
        summary: "Get the verification summary",
        description: "`currentTier` (the highest approved tier, 0 when none), each tier's status, `nextRequired` (the " +
          "inputs to collect next), the open re-verification request and the records."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(VerificationSummary))
  )
  .add(
    HttpApiEndpoint.get("reverification", "/customers/:customerId/kyc/reverification")
      .annotateContext(OpenApi.annotations({
        summary: "Get the open re-verification request",
        description: "The open re-verification request with the items still `outstanding`, or `data: null` when there " +
          "is none."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(example(Schema.NullOr(Reverification), {
        id: "d2a8f4c6-7e1b-4d3a-9c5f-0b6e2a8d4c17",
        items: ["ID_DOCUMENT"],
        outstanding: ["ID_DOCUMENT"],
        message: "The passport on file has expired: please upload a current one.",
        status: "OPEN",
        createdAt: sample.later
      })))
  )
  .add(
    HttpApiEndpoint.post("uploadDocument", "/customers/:customerId/kyc/documents")
      .annotateContext(OpenApi.annotations({
        summary: "Upload a KYC document",
        description: "`multipart/form-data` with one `file` part (JPEG, PNG or PDF, recognised by its content, at most " +
          "5 MB) and an optional `type`. Answers 201 with the document's `url`, which Tier 2 takes. A " +
          "refused upload stores nothing."
      }))
      .setPath(CustomerIdPath)
      .setPayload(UploadForm)
      .addSuccess(Envelope(UploadedDocument), { status: 201 })
      .addError(BadRequest)
      .addError(UnsupportedDocumentType)
      .addError(DocumentTooLarge)
  )
  .add(
    HttpApiEndpoint.get("document", "/customers/:customerId/kyc/documents/:documentId")
      .annotateContext(OpenApi.annotations({
        summary: "Download a KYC document",
        description: "The uploaded bytes with their own Content-Type (`image/jpeg`, `image/png` or `application/pdf`). " +
          "An unknown document or another customer's answers 404 `NOT_FOUND`.",
        // The bytes go out with the document's own content type.
        transform: (operation) => {
          const binary = { schema: { type: "string", format: "binary" } }
          operation.responses[200].content = { "image/jpeg": binary, "image/png": binary, "application/pdf": binary }
          return operation
        }
      }))
      .setPath(DocumentPath)
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }).annotations({
        description: "The document's bytes, with its own Content-Type (image/jpeg, image/png or application/pdf)."
      }))
      .addError(NotFound)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

/** Sandbox controls standing in for the compliance team. */
export class SandboxKycApi extends HttpApiGroup.make("sandboxKyc").annotateContext(resourceTag("sandboxKyc"))
  .add(
    HttpApiEndpoint.post("decide", "/customers/:customerId/kyc/:level/decision")
      .annotateContext(OpenApi.annotations({
        summary: "Decide a KYC tier (sandbox)",
        description: "A reviewer's decision on the newest record of tier `level` while it is `PENDING` or `REVIEW`: " +
          "`APPROVED`, or `REJECTED` with a `reason`. Emits `kyc.status_updated`. Any other status: 400 " +
          "`KYC_NOT_AWAITING_DECISION`."
      }))
      .setPath(LevelPath)
      .setPayload(DecisionBody)
      .addSuccess(Envelope(KycRecord))
      .addError(BadRequest)
      .addError(KycNotAwaitingDecision)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("requestReverification", "/customers/:customerId/kyc/reverification")
      .annotateContext(OpenApi.annotations({
        summary: "Request re-verification (sandbox)",
        description: "Compliance asks the customer to redo part of KYC: opens a request for `items` with a `message` " +
          "(replacing an open one) and emits `kyc.reverification_requested`."
      }))
      .setPath(CustomerIdPath)
      .setPayload(ReverificationBody)
      .addSuccess(Envelope(Reverification), { status: 201 })
      .addError(BadRequest)
      .addError(CustomerBusy)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
