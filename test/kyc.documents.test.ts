import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { kycClient, multipart, samples } from "./support/KycHelpers.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
let apiKey: string
let kyc: ReturnType<typeof kycClient>

beforeAll(async () => {
  app = await startTestApp()
  apiKey = (await app.newPartner()).apiKey
  kyc = kycClient(app, apiKey)
})
afterAll(() => app?.close())

const documentCount = async (customerId: string) =>
  (await app.query("SELECT id FROM kyc_documents WHERE customer_id = $1", [customerId])).length

const fetchDocument = (url: string, key: string | undefined) =>
  fetch(url, { headers: key === undefined ? {} : { "x-api-key": key } })

describe("document upload", () => {
  it.each([
    ["JPEG", samples.jpeg(), "photo.jpg", "image/jpeg"],
    ["PNG", samples.png(), "scan.png", "image/png"],
    ["PDF", samples.pdf(), "statement.pdf", "application/pdf"],
    // The name does not matter: the content decides.
    ["PDF named .jpg", samples.pdf(), "looks-like-a.jpg", "application/pdf"]
  ])("stores a %s with 201 and serves it back to its partner only", async (_label, bytes, filename, contentType) => {
    const customerId = await kyc.newCustomer()
    const reply = await kyc.upload(customerId, bytes, filename, "ID_FRONT")
    expect(reply.status).toBe(201)
    expect(reply.body.success).toBe(true)
    const data = reply.body.data
    expect(data).toMatchObject({ type: "ID_FRONT", contentType, size: bytes.length })
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(data.url).toBe(`${app.baseUrl}/partner/v1/customers/${customerId}/kyc/documents/${data.id}`)

    const mine = await fetchDocument(data.url, apiKey)
    expect(mine.status).toBe(200)
    expect(mine.headers.get("content-type")).toBe(contentType)
    expect(new Uint8Array(await mine.arrayBuffer())).toEqual(bytes)

    const other = await app.newPartner()
    const theirs = await fetchDocument(data.url, other.apiKey)
    expect(theirs.status).toBe(403)
    expect(((await theirs.json()) as { code: string }).code).toBe("CUSTOMER_FORBIDDEN")
    expect((await fetchDocument(data.url, undefined)).status).toBe(401)
  })

  it("defaults the type to OTHER and answers 404 for a document of another customer or an unknown id", async () => {
    const customerId = await kyc.newCustomer()
    const neighbour = await kyc.newCustomer()
    const reply = await kyc.upload(customerId, samples.png())
    expect(reply.body.data.type).toBe("OTHER")
    const viaNeighbour = await app.request("GET", `/partner/v1/customers/${neighbour}/kyc/documents/${reply.body.data.id}`, { apiKey })
    expect(viaNeighbour.status).toBe(404)
    expect(viaNeighbour.body.code).toBe("NOT_FOUND")
    const unknown = await app.request("GET", `/partner/v1/customers/${customerId}/kyc/documents/not-an-id`, { apiKey })
    expect(unknown.status).toBe(404)
  })

  it.each([
    ["an ELF executable named .png", samples.elf(), "cat.png"],
    ["a Windows executable named .pdf", samples.mz(), "invoice.pdf"],
    ["plain text named .jpg", new TextEncoder().encode("hello, not an image"), "hello.jpg"]
  ])("refuses %s with 400 UNSUPPORTED_DOCUMENT_TYPE and stores nothing", async (_label, bytes, filename) => {
    const customerId = await kyc.newCustomer()
    const reply = await kyc.upload(customerId, bytes, filename)
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "UNSUPPORTED_DOCUMENT_TYPE" })
    expect(reply.body.path).toBe(`/api/v1/partner/v1/customers/${customerId}/kyc/documents`)
    expect(await documentCount(customerId)).toBe(0)
  })

  it("refuses an empty file with 400 naming the field", async () => {
    const customerId = await kyc.newCustomer()
    const reply = await kyc.upload(customerId, new Uint8Array(0), "empty.png")
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe("BAD_REQUEST")
    expect(reply.body.message).toContain("file")
    expect(await documentCount(customerId)).toBe(0)
  })

  it("accepts exactly 5 MB and refuses 5 MB + 1 byte with 413 DOCUMENT_TOO_LARGE", async () => {
    const customerId = await kyc.newCustomer()
    const fiveMb = new Uint8Array(5 * 1024 * 1024)
    fiveMb.set(samples.pdf())
    const accepted = await kyc.upload(customerId, fiveMb, "big.pdf")
    expect(accepted.status).toBe(201)
    expect(accepted.body.data.size).toBe(5 * 1024 * 1024)

    const tooBig = new Uint8Array(5 * 1024 * 1024 + 1)
    tooBig.set(samples.pdf())
    const refused = await kyc.upload(customerId, tooBig, "bigger.pdf")
    expect(refused.status).toBe(413)
    expect(refused.body).toMatchObject({ success: false, statusCode: 413, code: "DOCUMENT_TOO_LARGE" })
    expect(await documentCount(customerId)).toBe(1)
  })

  it("refuses a body far over the limit with 413", async () => {
    const customerId = await kyc.newCustomer()
    const huge = new Uint8Array(8 * 1024 * 1024)
    huge.set(samples.png())
    const refused = await kyc.upload(customerId, huge, "huge.png")
    expect(refused.status).toBe(413)
    expect(refused.body.code).toBe("DOCUMENT_TOO_LARGE")
    expect(await documentCount(customerId)).toBe(0)
  })

  it("answers 400 for a missing file, a file in another field, a text 'file' field or an unknown type", async () => {
    const customerId = await kyc.newCustomer()
    const path = `/partner/v1/customers/${customerId}/kyc/documents`
    const cases: Array<[Array<{ name: string; value: Uint8Array | string; filename?: string }>, string]> = [
      [[{ name: "type", value: "SELFIE" }], "file"],
      [[{ name: "document", value: samples.png(), filename: "a.png" }], "document"],
      [[{ name: "file", value: "not a file part" }], "file"],
      [[{ name: "file", value: samples.png(), filename: "a.png" }, { name: "type", value: "PAYSLIP" }], "type"]
    ]
    for (const [fields, field] of cases) {
      const reply = await app.request("POST", path, { apiKey, ...(await multipart(fields)) })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain(field)
    }
    expect(await documentCount(customerId)).toBe(0)
  })

  it("is described in the OpenAPI document as multipart/form-data", async () => {
    const reply = await app.request("GET", "/openapi.json")
    expect(reply.status).toBe(200)
    const upload = reply.body.paths["/api/v1/partner/v1/customers/{customerId}/kyc/documents"].post
    expect(Object.keys(upload.requestBody.content)).toEqual(["multipart/form-data"])
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(["201", "400", "403", "413"]))
  })

  it("answers 403 for another partner's customer and stores nothing", async () => {
    const customerId = await kyc.newCustomer()
    const other = await app.newPartner()
    const reply = await app.request("POST", `/partner/v1/customers/${customerId}/kyc/documents`, {
      apiKey: other.apiKey,
      ...(await multipart([{ name: "file", value: samples.png(), filename: "a.png" }]))
    })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
    expect(await documentCount(customerId)).toBe(0)
  })
})
