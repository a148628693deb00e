import { isoUtc } from "../clock.ts";
import type { AttemptRow, DeliveryRow, EventRow, WebhookRow } from "../db/schema.ts";

export function presentWebhook(w: WebhookRow, secret?: string) {
  return {
    id: w.id,
    object: "webhook" as const,
    url: w.url,
    events: JSON.parse(w.events) as string[],
    status: w.status,
    consecutive_failures: w.consecutiveFailures,
    created_at: isoUtc(w.createdAt),
    disabled_at: w.disabledAt === null ? null : isoUtc(w.disabledAt),
    livemode: w.env === "live",
    ...(secret !== undefined ? { secret } : {}),
  };
}

export function presentDelivery(d: DeliveryRow, event: EventRow, attempts: AttemptRow[]) {
  return {
    id: d.id,
    object: "webhook_delivery" as const,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event_type: event.type,
    request_id: event.requestId,
    kind: d.kind,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: d.status === "pending" && d.nextAttemptAt !== null ? isoUtc(d.nextAttemptAt) : null,
    last_error: d.lastError,
    created_at: isoUtc(d.createdAt),
    completed_at: d.completedAt === null ? null : isoUtc(d.completedAt),
    attempts: attempts.map((a) => ({ number: a.number, at: isoUtc(a.at), duration_ms: a.durationMs, http_status: a.httpStatus, error: a.error })),
  };
}
