/**
 * The shapes the web console reads, as the console routes answer them (src/console/Api.ts, src/webhooks/Api.ts,
 * src/sandbox/InspectApi.ts) after JSON: dates are ISO strings. Plain types, so the browser bundle carries no schema
 * library.
 */

export interface Company {
  legalName: string
  registrationNumber: string
  country: string
  address: string
  website?: string
  contactEmail: string
}

export type KybStage = "DRAFT" | "UNDER_REVIEW" | "APPROVED" | "REJECTED"

export interface ConsoleView {
  readonly user: { readonly id: string; readonly email: string; readonly createdAt: string }
  readonly partner: {
    readonly id: string
    readonly name: string
    readonly kybStatus: "PENDING" | "APPROVED" | "REJECTED"
    readonly kybStage: KybStage
    readonly kybReason: string | null
    readonly kybSubmittedAt: string | null
    readonly company: Company | null
    readonly createdAt: string
  }
}

export interface Session {
  readonly accessToken: string
  readonly expiresAt: string
}

export interface ApiKeyView {
  readonly id: string
  readonly prefix: string
  readonly status: "ACTIVE" | "REVOKED"
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
}

export interface WebhookConfig {
  readonly url: string | null
  readonly hasSecret: boolean
  readonly updatedAt: string | null
}

export interface SecretIssued {
  readonly url: string
  readonly secret: string
  readonly test: { readonly delivered: boolean; readonly statusCode: number | null; readonly error: string | null }
}

export interface Delivery {
  readonly id: string
  readonly type: string
  readonly status: "PENDING" | "DELIVERED" | "DEAD"
  readonly attempts: number
  readonly nextAttemptAt: string | null
  readonly lastAttemptAt: string | null
  readonly lastResponseStatus: number | null
  readonly lastError: string | null
  readonly createdAt: string
  readonly deliveredAt: string | null
}

export interface DeliveryDetail extends Delivery {
  readonly payload: unknown
}

export interface ClockReading {
  readonly now: string
  readonly offsetSeconds: number
  readonly partnerOffsetSeconds: number
}

export interface OperationAction {
  readonly name: string
  readonly label: string
  readonly method: "POST" | "PUT"
  readonly path: string
  readonly body: Record<string, unknown> | null
  readonly reason: "none" | "required"
}

export interface PendingOperation {
  readonly id: string
  readonly kind: string
  readonly rail: string
  readonly customerId: string
  readonly status: string
  readonly reference: string | null
  readonly summary: string
  readonly createdAt: string
  readonly dueAt: string | null
  readonly actions: ReadonlyArray<OperationAction>
}
