import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
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
