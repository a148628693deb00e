import type { Clock } from "../clock.ts";

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

/**
 * A true sliding window: each key keeps the times of its accepted requests in the last 60 s, and a
 * request is allowed while fewer than `limit` of them are inside the window ending now. Refused
 * requests are not recorded, so a client hammering a full window still recovers when it slides.
 * Kept in memory on purpose: it guards the appliance, not money, and a restart may forget it.
 */
export class SlidingWindowLimiter {
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
    const oldest = times[0] ?? now;
    const resetAt = oldest + this.windowMs;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - times.length),
      resetAt,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetAt - now) / 1000)),
    };
  }

  /** Forget keys whose window is empty (called periodically to bound memory). */
  sweep(): void {
    const from = this.clock.now() - this.windowMs;
    for (const [key, times] of this.hits) if ((times.at(-1) ?? 0) <= from) this.hits.delete(key);
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
