import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, type Clock } from "../../../src/clock.ts";
import { DbSlidingWindowLimiter, SlidingWindowLimiter, rateHeaders, type RateLimiter } from "../../../src/api/rate-limit.ts";
import type { Db } from "../../../src/db/client.ts";
import { openTestDb } from "../../helpers/db.ts";

// The window in memory (one appliance) and in the database (a cluster's API nodes, here on the test
// back end: SQLite, or PostgreSQL under CLIPYARD_TEST_DATABASE_URL) must decide alike.
const dirs: string[] = [];
const dbs: Db[] = [];
function freshDb(dir = mkdtempSync(join(tmpdir(), "clipyard-rate-"))): Db {
  dirs.push(dir);
  const db = openTestDb(dir);
  dbs.push(db);
  return db;
}
afterAll(() => {
  for (const db of dbs) db.$client.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const limiters: Array<[string, (clock: Clock) => RateLimiter]> = [
  ["in memory", (clock) => new SlidingWindowLimiter(clock)],
  ["in the database", (clock) => new DbSlidingWindowLimiter(freshDb(), clock)],
];

describe.each(limiters)("sliding window %s", (_, make) => {
  test("a true sliding window: slots free up one by one as the window slides, not all at once", () => {
    const clock = new ManualClock(1_000_000);
    const limiter = make(clock);
    for (let i = 0; i < 3; i++) {
      expect(limiter.hit("k", 3).allowed).toBe(true);
      clock.advance(10_000);
    }
    // t = 30 s: the window holds hits at 0, 10, 20 s.
    const refused = limiter.hit("k", 3);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterSeconds).toBe(30);
    clock.advance(30_001); // the first hit (t=0) has left the window; the others have not
    expect(limiter.hit("k", 3).allowed).toBe(true);
    expect(limiter.hit("k", 3).allowed).toBe(false);
    // A fixed window would have reset everything at 60 s; the sliding one frees the t=10 s slot only.
    clock.advance(10_000);
    expect(limiter.hit("k", 3).allowed).toBe(true);
    expect(limiter.hit("k", 3).allowed).toBe(false);
  });

  test("refused requests are not counted and keys are independent", () => {
    const clock = new ManualClock(0);
    const limiter = make(clock);
    expect(limiter.hit("a", 1).allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect(limiter.hit("a", 1).allowed).toBe(false);
    expect(limiter.hit("b", 1).allowed).toBe(true);
    clock.advance(60_001);
    expect(limiter.hit("a", 1).allowed).toBe(true);
  });

  test("headers: limit, remaining, reset in unix seconds, Retry-After only when refused", () => {
    const clock = new ManualClock(1_700_000_000_000);
    const limiter = make(clock);
    const ok = rateHeaders(limiter.hit("k", 2));
    expect(ok["x-ratelimit-limit"]).toBe("2");
    expect(ok["x-ratelimit-remaining"]).toBe("1");
    expect(Number(ok["x-ratelimit-reset"])).toBe(1_700_000_060);
    expect(ok["retry-after"]).toBeUndefined();
    limiter.hit("k", 2);
    const no = rateHeaders(limiter.hit("k", 2));
    expect(no["retry-after"]).toBe("60");
  });

  test("sweep forgets what has left the window and nothing inside it", () => {
    const clock = new ManualClock(0);
    const limiter = make(clock);
    limiter.hit("old", 1);
    clock.advance(30_000);
    limiter.hit("new", 1);
    clock.advance(30_001);
    limiter.sweep();
    expect(limiter.hit("old", 1).allowed).toBe(true);
    expect(limiter.hit("new", 1).allowed).toBe(false);
  });
});

test("two API nodes on one database share each key's window", () => {
  const clock = new ManualClock(5_000_000);
  const dir = mkdtempSync(join(tmpdir(), "clipyard-rate-"));
  // Two connections, as two nodes have.
  const a = new DbSlidingWindowLimiter(freshDb(dir), clock);
  const b = new DbSlidingWindowLimiter(freshDb(dir), clock);
  expect(a.hit("k", 3).allowed).toBe(true);
  expect(b.hit("k", 3).allowed).toBe(true);
  expect(a.hit("k", 3).remaining).toBe(0);
  expect(b.hit("k", 3).allowed).toBe(false);
});
