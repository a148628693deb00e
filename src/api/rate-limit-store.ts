import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { PgClient, sqlString } from "../db/postgres/client.ts";
import { rateHits } from "../db/schema.ts";

/** One small function per statement on rate_hits (DbSlidingWindowLimiter). */

/** Accepted requests of `bucket` after `from` (exclusive), and the oldest of them. */
export function countHits(db: Db, bucket: string, from: number): { count: number; oldest: number | null } {
  const row = db
    .select({ count: sql<number>`count(*)`, oldest: sql<number | null>`min(${rateHits.at})` })
    .from(rateHits)
    .where(and(eq(rateHits.bucket, bucket), gt(rateHits.at, from)))
    .get();
  return { count: Number(row?.count ?? 0), oldest: row?.oldest ?? null };
}

export function insertHit(db: Db, bucket: string, at: number): void {
  db.insert(rateHits).values({ bucket, at }).run();
}

/** Every hit that has left its window (at or before `before`). */
export function deleteHitsBefore(db: Db, before: number): void {
  db.delete(rateHits).where(lte(rateHits.at, before)).run();
}

/**
 * countHits, then insertHit when the window has room, under `lockKey`'s advisory lock, in one round
 * trip to PostgreSQL instead of four (BEGIN and the lock, the count, the insert, COMMIT): the
 * statements of one simple query run as one transaction, and the count's snapshot is taken after the
 * lock is granted, so it sees every hit committed before, as the transaction it replaces did.
 * The commit does not wait for the WAL to reach the disk (synchronous_commit off, for this
 * transaction only): other nodes see the hit as soon as it commits, so the limit stays exact across
 * nodes, and only a PostgreSQL crash can forget the last fraction of a second of hits (a single
 * SQLite appliance keeps its windows in memory and forgets them all on a restart). Waiting for that
 * flush was most of a request's time: ~5 ms on the dev VM, with the event loop blocked.
 */
export function hitInOneRoundTrip(pg: PgClient, lockKey: string, bucket: string, from: number, at: number, limit: number): { count: number; oldest: number | null; inserted: boolean } {
  const b = sqlString(bucket);
  const [row] = pg.batch(`SELECT set_config('synchronous_commit', 'off', true); ${PgClient.lockStatement(lockKey)};
    WITH w AS (SELECT count(*) AS n, min(at) AS oldest FROM rate_hits WHERE bucket = ${b} AND at > ${Math.floor(from)}),
    ins AS (INSERT INTO rate_hits (bucket, at) SELECT ${b}, ${Math.floor(at)} FROM w WHERE w.n < ${Math.floor(limit)} RETURNING 1)
    SELECT w.n, w.oldest, (SELECT count(*) FROM ins) FROM w`);
  const [n, oldest, inserted] = row as [unknown, unknown, unknown];
  return { count: Number(n), oldest: oldest === null ? null : Number(oldest), inserted: Number(inserted) > 0 };
}
