import { and, eq, or, sql } from "drizzle-orm";
import type { Scope } from "../accounts/scope.ts";
import { skipLocked, type Db } from "../db/client.ts";
import { camelColumns, preparedOnce } from "../db/prepared.ts";
import { clipRenders, type ClipRenderRow } from "../db/schema.ts";

/**
 * One small function per statement on clip_renders; state changes are guarded by the state they
 * expect. The lease verbs (claim, extend, finish, release) mean what README's architecture says.
 */

export function insertRender(db: Db, row: Omit<ClipRenderRow, "leaseOwner" | "leaseExpiresAt" | "attempts" | "error" | "completedAt" | "startedAt"> & { completedAt?: number | null }): ClipRenderRow {
  return db.insert(clipRenders).values({ ...row, attempts: 0 }).returning().get();
}

export function renderByIdempotencyKey(db: Db, scope: Scope, key: string): ClipRenderRow | undefined {
  return db.select().from(clipRenders).where(and(eq(clipRenders.orgId, scope.orgId), eq(clipRenders.env, scope.env), eq(clipRenders.idempotencyKey, key))).get();
}

/** Re-renders an organisation has waiting or in progress in a world (the per-organisation queue bound). */
export function pendingRenderCount(db: Db, scope: Scope): number {
  const row = db.$client
    .query(`SELECT count(*) AS n FROM clip_renders WHERE org_id = ?1 AND env = ?2 AND status IN ('queued', 'rendering')`)
    .get(scope.orgId, scope.env) as { n: number | string };
  return Number(row.n);
}

/**
 * Queued renders, or renders whose worker died (lease lapsed); takes a lease on one in one statement
 * (on PostgreSQL skipping a row another node is claiming at this moment). Round-robin across
 * organisations: the organisation whose latest render started longest ago (never: first) goes next,
 * oldest first within it, so one organisation's burst delays another's render by one render at most.
 */
export function claimNextRender(db: Db, owner: string, now: number, leaseMs: number): ClipRenderRow | undefined {
  return (claimRender(db).get(owner, now + leaseMs, now) as ClipRenderRow | null) ?? undefined;
}

const claimRender = preparedOnce((db) =>
  db.$client.query(
    `UPDATE clip_renders SET status = 'rendering', lease_owner = ?1, lease_expires_at = ?2, attempts = attempts + 1, started_at = ?3
     WHERE id = (SELECT q.id FROM clip_renders q
                 WHERE q.env = 'live' AND (q.status = 'queued' OR (q.status = 'rendering' AND q.lease_expires_at < ?3))
                 ORDER BY coalesce((SELECT s.started_at FROM clip_renders s WHERE s.org_id = q.org_id AND s.env = 'live' AND s.started_at IS NOT NULL ORDER BY s.started_at DESC LIMIT 1), 0), q.created_at
                 LIMIT 1${skipLocked(db)})
       AND (status = 'queued' OR (status = 'rendering' AND lease_expires_at < ?3))
     RETURNING ${camelColumns(clipRenders)}`,
  ),
);

export function extendRenderLease(db: Db, id: string, owner: string, until: number): boolean {
  return db.update(clipRenders).set({ leaseExpiresAt: until }).where(and(eq(clipRenders.id, id), eq(clipRenders.leaseOwner, owner), eq(clipRenders.status, "rendering"))).returning({ id: clipRenders.id }).all().length > 0;
}

export function finishRender(db: Db, id: string, owner: string, status: "complete" | "failed", now: number, error: string | null): boolean {
  return (
    db
      .update(clipRenders)
      .set({ status, error, completedAt: now, leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(clipRenders.id, id), eq(clipRenders.leaseOwner, owner), eq(clipRenders.status, "rendering")))
      .returning({ id: clipRenders.id })
      .all().length > 0
  );
}

/** Graceful stop: this worker's renders go back to the queue for the next start. */
export function releaseRenderLeases(db: Db, owner: string): void {
  db.update(clipRenders).set({ status: "queued", leaseOwner: null, leaseExpiresAt: null }).where(and(eq(clipRenders.leaseOwner, owner), eq(clipRenders.status, "rendering"))).run();
}

/** When the render worker next has something to do: a queued render now, or a lapsing lease. */
export function nextRenderDueAt(db: Db): number | undefined {
  const row = db
    .select({ t: sql<number | null>`min(CASE WHEN ${clipRenders.status} = 'queued' THEN ${clipRenders.createdAt} ELSE ${clipRenders.leaseExpiresAt} END)` })
    .from(clipRenders)
    .where(and(eq(clipRenders.env, "live"), or(eq(clipRenders.status, "queued"), eq(clipRenders.status, "rendering"))))
    .get();
  return row?.t ?? undefined;
}
