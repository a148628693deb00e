import { expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { SlidingWindowLimiter, rateHeaders } from "../../src/api/rate-limit.ts";

test("a true sliding window: slots free up one by one as the window slides, not all at once", () => {
  const clock = new ManualClock(1_000_000);
  const limiter = new SlidingWindowLimiter(clock);
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
  const limiter = new SlidingWindowLimiter(clock);
  expect(limiter.hit("a", 1).allowed).toBe(true);
  for (let i = 0; i < 5; i++) expect(limiter.hit("a", 1).allowed).toBe(false);
  expect(limiter.hit("b", 1).allowed).toBe(true);
  clock.advance(60_001);
  expect(limiter.hit("a", 1).allowed).toBe(true);
});

test("headers: limit, remaining, reset in unix seconds, Retry-After only when refused", () => {
  const clock = new ManualClock(1_700_000_000_000);
  const limiter = new SlidingWindowLimiter(clock);
  const ok = rateHeaders(limiter.hit("k", 2));
  expect(ok["x-ratelimit-limit"]).toBe("2");
  expect(ok["x-ratelimit-remaining"]).toBe("1");
  expect(Number(ok["x-ratelimit-reset"])).toBe(1_700_000_060);
  expect(ok["retry-after"]).toBeUndefined();
  limiter.hit("k", 2);
  const no = rateHeaders(limiter.hit("k", 2));
  expect(no["retry-after"]).toBe("60");
});
