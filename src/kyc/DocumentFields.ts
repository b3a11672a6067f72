import { Schema } from "effect"

/**
 * Fields shared by the KYC submissions that carry documents (Tier 2 in src/kyc/Api.ts, Tier 3 in
 * src/international/Tier3.ts): the shape of a document url returned by `POST .../kyc/documents`, the pure check
 * that a url names a document of a given customer, and the identity-document number. Pure and import-safe (effect
 * only): the contract imports this module.
 *
 * A document url is `<PUBLIC_BASE_URL>/api/v1/partner/v1/customers/<customerId>/kyc/documents/<documentId>`. A
 * submission's url is checked in two steps: its shape here (`checkDocumentUrl`: the url ends in
 * `/customers/<this customer>/kyc/documents/<id>`; the host is not compared), then the service looks the id up
 * among the customer's uploads. Both refusals read `<field>: is not a document uploaded for this customer`.
 */

const documentUrlMessage = () => "must be a document url returned by POST .../kyc/documents"

/** The schema of a document url field: at most 2048 characters, ending in `/kyc/documents/<uuid>`. */
export const DocumentUrl = Schema.String.pipe(
  Schema.maxLength(2048, { message: documentUrlMessage }),
  Schema.pattern(/\/kyc\/documents\/[0-9a-fA-F-]{36}$/, { message: documentUrlMessage })
)

/** The url of an uploaded document, built from PUBLIC_BASE_URL (never from the request's Host header). */
export const documentUrlOf = (baseUrl: string, customerId: string, documentId: string): string =>
  `${baseUrl}/api/v1/partner/v1/customers/${customerId}/kyc/documents/${documentId}`

/** The customer and document ids a document url names, or undefined for a url of another shape. */
export const parseDocumentUrl = (url: string): { readonly customerId: string; readonly documentId: string } | undefined => {
  const match = /\/customers\/([^/]+)\/kyc\/documents\/([^/]+)$/.exec(url)
  return match === null ? undefined : { customerId: match[1]!, documentId: match[2]! }
}

/**
 * The document id of `url` when the url names a document of `customerId` (ids compared without case), else
 * undefined. Whether that document exists is the service's question (`Documents.find`).
 */
export const checkDocumentUrl = (url: string, customerId: string): string | undefined => {
  const parsed = parseDocumentUrl(url)
  return parsed !== undefined && parsed.customerId.toLowerCase() === customerId.toLowerCase() ? parsed.documentId : undefined
}

/** The refusal of a url that is not an upload of this customer (after `<field>: `). */
export const notThisCustomersDocument = "is not a document uploaded for this customer"

/** An identity document's number: 5 to 20 letters or digits (Tier 2's `idDocument.number`, Tier 3's persons). */
export const IdDocumentNumber = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9]{5,20}$/, { message: () => "must be 5 to 20 letters or digits" })
)
