import type { Clock } from "../clock.ts";
import { unixSeconds } from "../clock.ts";
import type { Db } from "../db/client.ts";
import type { JobRow, WebhookRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { presentJob, type PresentContext } from "../jobs/present.ts";
import type { ReviewEffect } from "../jobs/review.ts";
import { activeWebhooksFor, insertDelivery, insertEvent } from "./store.ts";

/** The spec's two job events, then the extensions (docs/api.md lists them). */
export const EVENT_TYPES = ["job.completed", "job.failed", "clip.reviewed"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The Event body (spec §2), serialized once: these exact bytes are signed and sent on every attempt. */
export function eventPayload(id: string, type: EventType, createdMs: number, requestId: string, jobObject: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id, object: "event", type, created: unixSeconds(createdMs), request_id: requestId, data: { object: jobObject, ...extra } });
}

export function subscribes(hook: WebhookRow, type: EventType): boolean {
  return (JSON.parse(hook.events) as string[]).includes(type);
}

/**
 * The outbox: a job's event and one pending delivery per subscribed webhook, written in the caller's
 * transaction (a terminal transition, a guest review), so a crash can never lose an event or send one
 * for a change that did not commit. A job's event goes only to webhooks of its own world: sandbox jobs
 * never reach live endpoints.
 */
function queueJobEvent(db: Db, clock: Clock, job: JobRow, type: EventType, requestId: string, data: () => [unknown, Record<string, unknown>?], onQueued: () => void): void {
  const hooks = activeWebhooksFor(db, { orgId: job.orgId, env: job.env }).filter((h) => subscribes(h, type));
  if (hooks.length === 0) return;
  const now = clock.now();
  const id = newId("evt");
  const [object, extra] = data();
  insertEvent(db, { id, orgId: job.orgId, env: job.env, type, jobId: job.id, requestId, createdAt: now, payload: eventPayload(id, type, now, requestId, object, extra) });
  for (const hook of hooks) queueDelivery(db, { orgId: job.orgId, webhookId: hook.id, eventId: id, kind: "event", now });
  queueMicrotask(onQueued); // after the transaction commits (it is synchronous)
}

/** job.completed / job.failed with a job's terminal transition. */
export function jobEventOutbox(db: Db, clock: Clock, present: PresentContext, onQueued: () => void) {
  return (job: JobRow): void =>
    queueJobEvent(db, clock, job, job.status === "complete" ? "job.completed" : "job.failed", job.requestId, () => [presentJob(job, present)], onQueued);
}

/** clip.reviewed with a guest's review: the job as GET shows it, the reviewed clip named beside it. */
export function clipReviewedOutbox(db: Db, clock: Clock, present: PresentContext, onQueued: () => void): ReviewEffect {
  return (job, clip, requestId) =>
    queueJobEvent(db, clock, job, "clip.reviewed", requestId, () => [presentJob(job, present), { clip_id: clip.id, clip_rank: clip.rank }], onQueued);
}

export function queueDelivery(db: Db, d: { orgId: string; webhookId: string; eventId: string; kind: "event" | "test" | "replay"; now: number }) {
  return insertDelivery(db, {
    id: newId("dlv"),
    orgId: d.orgId,
    webhookId: d.webhookId,
    eventId: d.eventId,
    kind: d.kind,
    status: "pending",
    attemptCount: 0,
    nextAttemptAt: d.now,
    leaseOwner: null,
    leaseExpiresAt: null,
    createdAt: d.now,
    completedAt: null,
    lastError: null,
  });
}
