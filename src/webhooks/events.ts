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
 * The outbox: a terminal job transition writes its event and one pending delivery per subscribed
 * webhook in the same transaction, so a crash can never lose an event or send one for a change
 * that did not commit.
 */
export function jobEventOutbox(db: Db, clock: Clock, present: PresentContext, onQueued: () => void) {
  return (job: JobRow): void => {
    const type: EventType = job.status === "complete" ? "job.completed" : "job.failed";
    // A job's event goes only to webhooks of its own world: sandbox jobs never reach live endpoints.
    const hooks = activeWebhooksFor(db, { orgId: job.orgId, env: job.env }).filter((h) => subscribes(h, type));
    if (hooks.length === 0) return;
    const now = clock.now();
    const id = newId("evt");
    insertEvent(db, { id, orgId: job.orgId, env: job.env, type, jobId: job.id, requestId: job.requestId, createdAt: now, payload: eventPayload(id, type, now, job.requestId, presentJob(job, present)) });
    for (const hook of hooks) queueDelivery(db, { orgId: job.orgId, webhookId: hook.id, eventId: id, kind: "event", now });
    queueMicrotask(onQueued); // after the transaction commits (it is synchronous)
  };
}

/**
 * The outbox of guest reviews: a clip.reviewed event (the job as GET shows it, with the reviewed
 * clip's id beside it) written in the review's transaction, to the job's world's subscribers.
 */
export function clipReviewedOutbox(db: Db, clock: Clock, present: PresentContext, onQueued: () => void): ReviewEffect {
  return (job, clip, requestId) => {
    const type: EventType = "clip.reviewed";
    const hooks = activeWebhooksFor(db, { orgId: job.orgId, env: job.env }).filter((h) => subscribes(h, type));
    if (hooks.length === 0) return;
    const now = clock.now();
    const id = newId("evt");
    const payload = eventPayload(id, type, now, requestId, presentJob(job, present), { clip_id: clip.id, clip_rank: clip.rank });
    insertEvent(db, { id, orgId: job.orgId, env: job.env, type, jobId: job.id, requestId, createdAt: now, payload });
    for (const hook of hooks) queueDelivery(db, { orgId: job.orgId, webhookId: hook.id, eventId: id, kind: "event", now });
    queueMicrotask(onQueued);
  };
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
