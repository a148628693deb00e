import type { Clock } from "../clock.ts";
import { keyedTx, postgresOf, type Db } from "../db/client.ts";
import { countHits, deleteHitsBefore, hitInOneRoundTrip, insertHit } from "./rate-limit-store.ts";

export const RATE_WINDOW_MS = 60_000;
export const RATE_LIMITS = { write: 60, read: 600 } as const;
export type RateClass = keyof typeof RATE_LIMITS;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix ms at which the window next frees a slot (the oldest counted request leaves it). */
  resetAt: number;
  retryAfterSeconds: number;
}

/** Counts a request against `key`'s window and says whether it may go ahead. */
export interface RateLimiter {
  hit(key: string, limit: number): RateDecision;
  /** Drops what has left every window (called periodically to bound memory or rows). */
  sweep(): void;
}

/** The decision for a window holding `count` accepted requests, the oldest at `oldest`. */
function decide(now: number, windowMs: number, limit: number, count: number, oldest: number, allowed: boolean): RateDecision {
  const resetAt = oldest + windowMs;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt,
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetAt - now) / 1000)),
  };
}

/**
 * A true sliding window: each key keeps the times of its accepted requests in the last 60 s, and a
 * request is allowed while fewer than `limit` of them are inside the window ending now. Refused
 * requests are not recorded, so a client hammering a full window still recovers when it slides.
 * Kept in memory on purpose on a single appliance: it guards the appliance, not money, and a restart
 * may forget it. A cluster's API nodes share DbSlidingWindowLimiter instead.
 */
export class SlidingWindowLimiter implements RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {}

  hit(key: string, limit: number): RateDecision {
    const now = this.clock.now();
    const from = now - this.windowMs;
    let times = this.hits.get(key);
    if (!times) this.hits.set(key, (times = []));
    let drop = 0;
    while (drop < times.length && times[drop]! <= from) drop++;
    if (drop) times.splice(0, drop);
    const allowed = times.length < limit;
    if (allowed) times.push(now);
    return decide(now, this.windowMs, limit, times.length, times[0] ?? now, allowed);
  }

  /** Forget keys whose window is empty (called periodically to bound memory). */
  sweep(): void {
    const from = this.clock.now() - this.windowMs;
    for (const [key, times] of this.hits) if ((times.at(-1) ?? 0) <= from) this.hits.delete(key);
  }
}

/**
 * The same sliding window kept in the database, so every API node of a cluster counts against one
 * window per key: a client spreading requests over nodes gets the limit once, not once per node.
 * Each hit is one transaction serialised per key (keyedTx), so two nodes never both take the last slot.
 */
export class DbSlidingWindowLimiter implements RateLimiter {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {}

  hit(key: string, limit: number): RateDecision {
    const now = this.clock.now();
    const pg = postgresOf(this.db);
    if (pg && !pg.inTransaction) {
      const { count, oldest, inserted } = hitInOneRoundTrip(pg, `rate:${key}`, key, now - this.windowMs, now, limit);
      return decide(now, this.windowMs, limit, inserted ? count + 1 : count, oldest ?? now, inserted);
    }
    return keyedTx(this.db, `rate:${key}`, () => {
      const { count, oldest } = countHits(this.db, key, now - this.windowMs);
      const allowed = count < limit;
      if (allowed) insertHit(this.db, key, now);
      const counted = allowed ? count + 1 : count;
      return decide(now, this.windowMs, limit, counted, oldest ?? now, allowed);
    });
  }

  sweep(): void {
    deleteHitsBefore(this.db, this.clock.now() - this.windowMs);
  }
}

export function rateHeaders(d: RateDecision): Record<string, string> {
  const h: Record<string, string> = {
    "x-ratelimit-limit": String(d.limit),
    "x-ratelimit-remaining": String(d.remaining),
    "x-ratelimit-reset": String(Math.ceil(d.resetAt / 1000)),
  };
  if (!d.allowed) h["retry-after"] = String(d.retryAfterSeconds);
  return h;
}
