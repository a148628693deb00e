import { afterEach, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { billingHolds, jobCharges, ledgerEntries } from "../../src/db/schema.ts";
import { grantCredits } from "../../src/billing/topups.ts";
import { listLots, walletSummary } from "../../src/billing/wallet.ts";
import type { DbLocation } from "../../src/db/client.ts";
import { dollars, world, type World } from "./helpers.ts";

/**
 * Real concurrency: several threads, each with its own connection to the same database (a SQLite
 * file, or PostgreSQL as several nodes share it), race to submit or complete jobs. IMMEDIATE
 * transactions (PostgreSQL: the cluster-wide advisory lock) serialize them; these tests check the money.
 */
let w: World;
afterEach(() => w?.close());

type Result = { done: number; refused: number; errors: string[] };

async function race(location: DbLocation, now: number, tasks: unknown[]): Promise<Result[]> {
  const workers = tasks.map(() => new Worker(new URL("./concurrency-worker.ts", import.meta.url)));
  try {
    await Promise.all(
      workers.map(
        (wk, i) =>
          new Promise<void>((resolve) => {
            wk.onmessage = () => resolve();
            wk.postMessage({ setup: { location, now, task: tasks[i] } });
          }),
      ),
    );
    const results = workers.map(
      (wk) => new Promise<Result>((resolve, reject) => {
        wk.onmessage = (ev) => resolve((ev.data as { result: Result }).result);
        wk.onerror = (ev) => reject(ev.error ?? new Error(ev.message));
      }),
    );
    for (const wk of workers) wk.postMessage({ go: true });
    return await Promise.all(results);
  } finally {
    for (const wk of workers) wk.terminate();
  }
}

const chunks = <T>(xs: T[], n: number): T[][] => Array.from({ length: n }, (_, i) => xs.filter((_, j) => j % n === i));

describe("concurrency", () => {
  test("50 live jobs completed concurrently (each raced by two threads) leave an exact balance", async () => {
    w = world();
    for (let i = 0; i < 3; i++) w.complete(w.submit()); // free tier used up
    grantCredits(w.db, w.orgId, dollars(100), w.clock.now());
    grantCredits(w.db, w.orgId, dollars(100), w.clock.now());
    grantCredits(w.db, w.orgId, dollars(62.34), w.clock.now());
    grantCredits(w.db, w.orgId, dollars(30), w.clock.now()); // covers the holds of the jobs that will fail
    const paid = Array.from({ length: 50 }, (_, i) => w.submit(i % 2 ? "youtube_url" : "video_url"));
    const doomed = Array.from({ length: 10 }, () => w.submit("video_url")); // fail concurrently, never billed
    expect(walletSummary(w.db, w.orgId, w.clock.now())).toMatchObject({ balanceCents: 29234, heldCents: 25000 + 3000 });

    const ids = paid.map((j) => j.id);
    const tasks = [
      ...chunks(ids, 4).map((jobIds) => ({ op: "complete", jobIds })),
      ...chunks([...ids].reverse(), 4).map((jobIds) => ({ op: "complete", jobIds })), // the same jobs again, other order
      { op: "fail", jobIds: doomed.map((j) => j.id) },
    ];
    const results = await race(w.location, w.clock.now(), tasks);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(results.slice(0, 8).reduce((s, r) => s + r.done, 0)).toBe(50); // each job completed exactly once
    expect(results[8]!.done).toBe(10);

    // 25 × 300 + 25 × 700 = 25 000 debited from 29 234; the failed jobs' holds are released.
    expect(walletSummary(w.db, w.orgId, w.clock.now())).toMatchObject({ balanceCents: 4234, heldCents: 0 });
    const charges = w.db.select().from(jobCharges).where(eq(jobCharges.free, false)).all();
    expect(charges).toHaveLength(50);
    expect(charges.reduce((s, c) => s + c.chargedCents, 0)).toBe(25000);
    const debited = w.db.select({ v: sql<number>`sum(${ledgerEntries.amountCents})` }).from(ledgerEntries).where(eq(ledgerEntries.kind, "debit")).get()!.v;
    expect(debited).toBe(-25000);
    const lots = listLots(w.db, w.orgId);
    expect(lots.every((l) => l.remainingCents >= 0)).toBe(true);
    expect(lots.map((l) => l.remainingCents)).toEqual([0, 0, 1234, 3000]); // FIFO held under contention
    expect(w.db.select().from(billingHolds).where(eq(billingHolds.status, "released")).all()).toHaveLength(10);
  }, 60_000);

  test("concurrent submissions never over-commit the wallet", async () => {
    w = world();
    for (let i = 0; i < 3; i++) w.complete(w.submit());
    grantCredits(w.db, w.orgId, dollars(30), w.clock.now()); // exactly ten video_url jobs
    const tasks = Array.from({ length: 4 }, () => ({ op: "submit", orgId: w.orgId, count: 10, type: "video_url" }));
    const results = await race(w.location, w.clock.now(), tasks);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(results.reduce((s, r) => s + r.done, 0)).toBe(10);
    expect(results.reduce((s, r) => s + r.refused, 0)).toBe(30);
    expect(walletSummary(w.db, w.orgId, w.clock.now())).toMatchObject({ balanceCents: 3000, heldCents: 3000, availableCents: 0 });
  }, 60_000);
});
