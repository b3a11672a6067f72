import { customerBody, type TestApp } from "./TestApp.js"

/** Minimal files recognised by their first bytes. */
export const samples = {
  jpeg: () => Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9]),
  png: () => Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]),
  pdf: () => new TextEncoder().encode("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"),
  elf: () => Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]),
  mz: () => Uint8Array.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00])
}

/** A multipart body as a browser would send it. */
export const multipart = async (fields: ReadonlyArray<{ name: string; value: Uint8Array | string; filename?: string }>) => {
  const form = new FormData()
  for (const field of fields) {
    if (typeof field.value === "string" && field.filename === undefined) form.append(field.name, field.value)
    else form.append(field.name, new Blob([field.value]), field.filename ?? "upload.bin")
  }
  const response = new Response(form)
  return {
    rawBody: new Uint8Array(await response.arrayBuffer()),
    headers: { "content-type": response.headers.get("content-type")! }
  }
}

export const kycClient = (app: TestApp, apiKey: string) => {
  const newCustomer = async (overrides: Record<string, unknown> = {}): Promise<string> => {
    const reply = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody(overrides) })
    if (reply.status !== 201) throw new Error(JSON.stringify(reply.body))
    return reply.body.data.id
  }
  const base = (customerId: string) => `/partner/v1/customers/${customerId}`
  const upload = async (customerId: string, bytes: Uint8Array, filename = "document.png", type?: string) =>
    app.request("POST", `${base(customerId)}/kyc/documents`, {
      apiKey,
      ...(await multipart([
        { name: "file", value: bytes, filename },
        ...(type === undefined ? [] : [{ name: "type", value: type }])
      ]))
    })
  const tier1 = (customerId: string, bvn = "12345678901", nin = "10987654321") =>
    app.request("POST", `${base(customerId)}/kyc/tier1`, { apiKey, body: { bvn, nin } })
  const tier2Body = async (customerId: string, number = "A12345678") => {
    const front = await upload(customerId, samples.jpeg(), "front.jpg", "ID_FRONT")
    const selfie = await upload(customerId, samples.png(), "selfie.png", "SELFIE")
    return { idDocument: { type: "PASSPORT", number, frontUrl: front.body.data.url }, selfieUrl: selfie.body.data.url }
  }
  const tier2 = async (customerId: string, number = "A12345678") =>
    app.request("POST", `${base(customerId)}/kyc/tier2`, { apiKey, body: await tier2Body(customerId, number) })
  const summary = async (customerId: string) => (await app.request("GET", `${base(customerId)}/verification`, { apiKey })).body.data
  const decide = (customerId: string, level: number | string, body: unknown) =>
    app.request("POST", `/sandbox/customers/${customerId}/kyc/${level}/decision`, { apiKey, body })
  const advance = (seconds: number) => app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds } })
  const events = async (customerId: string, type: string) =>
    (await app.request("GET", `/sandbox/events?customerId=${customerId}&type=${type}&limit=100`, { apiKey })).body.data as Array<any>
  const setIdentity = (body: unknown) => app.request("PUT", "/sandbox/rails/identity", { apiKey, body })
  return { newCustomer, base, upload, tier1, tier2, tier2Body, summary, decide, advance, events, setIdentity }
}
