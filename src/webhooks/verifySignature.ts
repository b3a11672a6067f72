/**
 * Receiver kit: verifies the `X-Service-Signature` header of a webhook delivery (docs/contract.md "Authentication" 8).
 *
 * One copy serves the service's own tools (the scenario runner's receiver, `listen`'s checks) and partners: the
 * partner client package's verifier, client/src/webhooks.ts, which depends on nothing but node:crypto. Install the
 * package (docs/client.md) or copy that file into your receiver. Pass the exact bytes of the request body as
 * received (before any JSON parsing), the header value and your signing secret (the one returned by `PUT /webhook`
 * or `POST /webhook/rotate-secret`; during a rotation, both).
 *
 * ```ts
 * const result = verifySignature(rawBody, req.headers["x-service-signature"], signingSecret)
 * if (!result.ok) return res.writeHead(401).end()
 * ```
 *
 * - The comparison is constant-time.
 * - A timestamp further than `toleranceSeconds` (default 300) from `now` (default: the receiver's clock) is
 *   refused, so a captured delivery cannot be replayed later.
 * - Several `v1=` values are accepted (any match passes).
 */
export { verifySignature, type VerifyOptions, type VerifyResult } from "../../client/src/webhooks.js"
