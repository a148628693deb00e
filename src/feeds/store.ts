import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Scope } from "../accounts/scope.ts";
import { skipLocked, type Db } from "../db/client.ts";
import { feedItems, feeds, type FeedItemRow, type FeedRow } from "../db/schema.ts";

/**
 * One small function per statement on the feed tables. Every lookup a caller can name an id in is
 * scoped to one organisation and one world, like webhooks.
 */

const feedInScope = (scope: Scope) => and(eq(feeds.orgId, scope.orgId), eq(feeds.env, scope.env), isNull(feeds.deletedAt));

export function insertFeed(db: Db, row: FeedRow): void {
  db.insert(feeds).values(row).run();
}

export function getFeed(db: Db, scope: Scope, id: string): FeedRow | undefined {
  return db.select().from(feeds).where(and(eq(feeds.id, id), feedInScope(scope))).get();
}

export function getFeedById(db: Db, id: string): FeedRow | undefined {
  return db.select().from(feeds).where(eq(feeds.id, id)).get();
}

export function findFeedByUrl(db: Db, scope: Scope, url: string): FeedRow | undefined {
  return db.select().from(feeds).where(and(eq(feeds.url, url), feedInScope(scope))).get();
}

export function listFeeds(db: Db, scope: Scope): FeedRow[] {
  return db.select().from(feeds).where(feedInScope(scope)).orderBy(desc(feeds.createdAt)).all();
}

/** Every feed of an organisation, both worlds (the operator's CLI view). */
export function listOrgFeeds(db: Db, orgId: string): FeedRow[] {
  return db.select().from(feeds).where(and(eq(feeds.orgId, orgId), isNull(feeds.deletedAt))).orderBy(desc(feeds.createdAt)).all();
}

export function markFeedDeleted(db: Db, id: string, now: number): boolean {
  return db.update(feeds).set({ deletedAt: now }).where(and(eq(feeds.id, id), isNull(feeds.deletedAt))).returning({ id: feeds.id }).all().length > 0;
}

/**
 * Leases up to `limit` due feeds. A lease that lapses (the process died mid-poll) makes the feed due
 * again; the poll it repeats cannot duplicate jobs (feed_items' primary key).
 */
export function claimDueFeeds(db: Db, owner: string, now: number, leaseMs: number, limit: number): FeedRow[] {
  return db.$client
    .query(
      `UPDATE feeds SET lease_owner = ?1, lease_expires_at = ?2
       WHERE id IN (
         SELECT id FROM feeds
         WHERE deleted_at IS NULL AND next_poll_at <= ?3 AND (lease_expires_at IS NULL OR lease_expires_at <= ?3)
         ORDER BY next_poll_at LIMIT ?4${skipLocked(db)}
       )
       RETURNING id`,
    )
    .all(owner, now + leaseMs, now, limit)
    .map((r) => getFeedById(db, (r as { id: string }).id)!);
}

export function nextFeedDueAt(db: Db): number | undefined {
  const row = db.$client
    .query(`SELECT min(CASE WHEN lease_expires_at > next_poll_at THEN lease_expires_at ELSE next_poll_at END) AS at FROM feeds WHERE deleted_at IS NULL`)
    .get() as { at: number | null };
  return row.at ?? undefined;
}

export interface PollRecord {
  now: number;
  nextPollAt: number;
  status: "ok" | "not_modified" | "error";
  error: string | null;
  /** Validators for the next conditional GET; undefined keeps the stored ones. */
  validators?: { etag: string | null; lastModified: string | null };
}

/** Records a poll's outcome and releases the lease, if it is still ours. */
export function finishPoll(db: Db, id: string, owner: string, r: PollRecord): boolean {
  const set = {
    lastPolledAt: r.now,
    nextPollAt: r.nextPollAt,
    lastStatus: r.status,
    lastError: r.error,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...(r.validators ? { etag: r.validators.etag, lastModified: r.validators.lastModified } : {}),
  };
  return db.update(feeds).set(set).where(and(eq(feeds.id, id), eq(feeds.leaseOwner, owner))).returning({ id: feeds.id }).all().length > 0;
}

/** Which of `keys` this feed has already settled (a job made, or skipped for good); asked in slices. */
export function settledAmong(db: Db, feedId: string, keys: string[]): Set<string> {
  const settled = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const slice = keys.slice(i, i + 500);
    for (const r of db.select({ key: feedItems.itemKey }).from(feedItems).where(and(eq(feedItems.feedId, feedId), inArray(feedItems.itemKey, slice))).all()) settled.add(r.key);
  }
  return settled;
}

/** Feeds an organisation has registered, both worlds (the per-organisation bound). */
export function countOrgFeeds(db: Db, orgId: string): number {
  return db.select({ n: sql<number>`count(*)` }).from(feeds).where(and(eq(feeds.orgId, orgId), isNull(feeds.deletedAt))).all().map((r) => Number(r.n))[0] ?? 0;
}

/**
 * Records an episode once; false when it was already recorded (by an earlier poll or another
 * poller), in which case the caller's transaction must not make its job. Bumps the feed's counters.
 */
export function recordItem(db: Db, row: FeedItemRow): boolean {
  const fresh = db.insert(feedItems).values(row).onConflictDoNothing().returning({ key: feedItems.itemKey }).get();
  if (!fresh) return false;
  db.update(feeds)
    .set({ itemsSeen: sql`${feeds.itemsSeen} + 1`, jobsCreated: sql`${feeds.jobsCreated} + ${row.jobId === null ? 0 : 1}` })
    .where(eq(feeds.id, row.feedId))
    .run();
  return true;
}

/**
 * Records episodes skipped for good (job_id null) in one statement; rows already recorded are left
 * as they are. Bumps the feed's items_seen by the rows written. Returns how many were written.
 */
export function recordSkippedItems(db: Db, rows: FeedItemRow[]): number {
  if (rows.length === 0) return 0;
  const written = db.insert(feedItems).values(rows).onConflictDoNothing().returning({ key: feedItems.itemKey }).all().length;
  if (written > 0) db.update(feeds).set({ itemsSeen: sql`${feeds.itemsSeen} + ${written}` }).where(eq(feeds.id, rows[0]!.feedId)).run();
  return written;
}
