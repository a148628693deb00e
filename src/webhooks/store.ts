import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { skipLocked, type Db } from "../db/client.ts";
import { deliveries, deliveryAttempts, events, webhooks, type AttemptRow, type DeliveryRow, type EventRow, type WebhookRow } from "../db/schema.ts";
import type { Scope } from "../accounts/scope.ts";

/**
 * One small function per statement on the webhook tables; state changes are guarded. Every lookup a
 * caller can name an id in is scoped to one organisation and one world (live or sandbox). The lease
 * verbs (claim, finish) mean what README's architecture says.
 */

export function insertWebhook(db: Db, row: WebhookRow): void {
  db.insert(webhooks).values(row).run();
}

const hookInScope = (scope: Scope) => and(eq(webhooks.orgId, scope.orgId), eq(webhooks.env, scope.env), isNull(webhooks.deletedAt));

export function getWebhook(db: Db, scope: Scope, id: string): WebhookRow | undefined {
  return db.select().from(webhooks).where(and(eq(webhooks.id, id), hookInScope(scope))).get();
}

export function listWebhooks(db: Db, scope: Scope): WebhookRow[] {
  return db.select().from(webhooks).where(hookInScope(scope)).orderBy(desc(webhooks.createdAt)).all();
}

export function activeWebhooksFor(db: Db, scope: Scope): WebhookRow[] {
  return db.select().from(webhooks).where(and(hookInScope(scope), eq(webhooks.status, "active"))).all();
}

export function markWebhookDeleted(db: Db, id: string, now: number): boolean {
  return db.update(webhooks).set({ deletedAt: now }).where(and(eq(webhooks.id, id), isNull(webhooks.deletedAt))).returning({ id: webhooks.id }).all().length > 0;
}

export function insertEvent(db: Db, row: EventRow): void {
  db.insert(events).values(row).run();
}

export function getEvent(db: Db, id: string): EventRow | undefined {
  return db.select().from(events).where(eq(events.id, id)).get();
}

export function insertDelivery(db: Db, row: Omit<DeliveryRow, "seq">): DeliveryRow {
  return db.insert(deliveries).values(row).returning().get();
}

/**
 * A delivery is in a scope when its webhook and its event both are. Deliveries are always made within
 * one world; the event check also hides the rare delivery of the other world's event made before
 * worlds were separated (migration 4), so it can neither be listed nor replayed from here.
 */
const deliveryInScope = (scope: Scope) =>
  and(
    eq(deliveries.orgId, scope.orgId),
    sql`EXISTS (SELECT 1 FROM ${webhooks} WHERE ${webhooks.id} = ${deliveries.webhookId} AND ${webhooks.env} = ${scope.env})`,
    sql`EXISTS (SELECT 1 FROM ${events} WHERE ${events.id} = ${deliveries.eventId} AND ${events.env} = ${scope.env})`,
  );

export function getDelivery(db: Db, scope: Scope, id: string): DeliveryRow | undefined {
  return db.select().from(deliveries).where(and(eq(deliveries.id, id), deliveryInScope(scope))).get();
}

export function listDeliveries(db: Db, scope: Scope, webhookId: string, limit: number, afterSeq?: number): { rows: DeliveryRow[]; hasMore: boolean } {
  const ofHook = and(eq(deliveries.webhookId, webhookId), deliveryInScope(scope));
  const where = afterSeq === undefined ? ofHook : and(ofHook, lt(deliveries.seq, afterSeq));
  const rows = db.select().from(deliveries).where(where).orderBy(desc(deliveries.seq)).limit(limit + 1).all();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

export function attemptsOf(db: Db, deliveryId: string): AttemptRow[] {
  return db.select().from(deliveryAttempts).where(eq(deliveryAttempts.deliveryId, deliveryId)).orderBy(deliveryAttempts.number).all();
}

/**
 * Leases up to `limit` due pending deliveries of live webhooks. A lease that lapses (the process died
 * mid-send) makes the delivery due again, so it is re-sent rather than lost.
 */
export function claimDueDeliveries(db: Db, owner: string, now: number, leaseMs: number, limit: number): DeliveryRow[] {
  return db.$client
    .query(
      `UPDATE deliveries SET lease_owner = ?1, lease_expires_at = ?2
       WHERE id IN (
         SELECT d.id FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= ?3
           AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ?3)
           AND w.status = 'active' AND w.deleted_at IS NULL
         ORDER BY d.next_attempt_at LIMIT ?4${skipLocked(db, "d")})
       RETURNING *`,
    )
    .all(owner, now + leaseMs, now, limit)
    .map(toDeliveryRow);
}

function toDeliveryRow(r: any): DeliveryRow {
  return {
    seq: r.seq, id: r.id, orgId: r.org_id, webhookId: r.webhook_id, eventId: r.event_id, kind: r.kind, status: r.status,
    attemptCount: r.attempt_count, nextAttemptAt: r.next_attempt_at, leaseOwner: r.lease_owner, leaseExpiresAt: r.lease_expires_at,
    createdAt: r.created_at, completedAt: r.completed_at, lastError: r.last_error,
  };
}

export function nextDeliveryDueAt(db: Db): number | undefined {
  const row = db.$client
    .query(
      `SELECT min(CASE WHEN d.lease_expires_at > d.next_attempt_at THEN d.lease_expires_at ELSE d.next_attempt_at END) AS t FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.status = 'pending' AND w.status = 'active' AND w.deleted_at IS NULL`,
    )
    .get() as { t: number | null };
  return row.t ?? undefined;
}

export function insertAttempt(db: Db, row: AttemptRow): void {
  db.insert(deliveryAttempts).values(row).run();
}

export function finishDeliveryAttempt(db: Db, id: string, owner: string, set: Partial<DeliveryRow>): boolean {
  return (
    db
      .update(deliveries)
      .set({ ...set, leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(deliveries.id, id), eq(deliveries.status, "pending"), eq(deliveries.leaseOwner, owner)))
      .returning({ id: deliveries.id })
      .all().length > 0
  );
}

export function resetWebhookFailures(db: Db, id: string): void {
  db.update(webhooks).set({ consecutiveFailures: 0 }).where(eq(webhooks.id, id)).run();
}

/** Counts one more failed delivery; returns the new count. */
export function bumpWebhookFailures(db: Db, id: string): number {
  return db
    .update(webhooks)
    .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1` })
    .where(eq(webhooks.id, id))
    .returning({ n: webhooks.consecutiveFailures })
    .get()!.n;
}

export function disableWebhook(db: Db, id: string, now: number): void {
  db.update(webhooks).set({ status: "disabled", disabledAt: now }).where(and(eq(webhooks.id, id), eq(webhooks.status, "active"))).run();
}

/** Ends the pending deliveries of a webhook that was deleted or deactivated. */
export function abandonPending(db: Db, webhookId: string, now: number, reason: string): void {
  db.update(deliveries)
    .set({ status: "failed", completedAt: now, lastError: reason, nextAttemptAt: null, leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(deliveries.webhookId, webhookId), eq(deliveries.status, "pending")))
    .run();
}
