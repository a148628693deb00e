import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ApiError } from "../../src/errors.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { billingHolds, jobCharges, jobs, ledgerEntries } from "../../src/db/schema.ts";
import { listLots, walletSummary } from "../../src/billing/wallet.ts";
import { grantCredits } from "../../src/billing/topups.ts";
import { creditExpiry } from "../../src/billing/pricing.ts";
import { dollars, world, type World } from "./helpers.ts";

let w: World;
afterEach(() => w?.close());

const DAY = 24 * 3600 * 1000;
const summary = () => walletSummary(w.db, w.orgId, w.clock.now());
const jobCount = () => w.db.select().from(jobs).all().length;

function expectRefused(fn: () => unknown, code: string) {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code as never);
  return err as ApiError;
}

/** Uses up the free tier with three completed jobs. */
function useFreeTier() {
  for (let i = 0; i < 3; i++) w.complete(w.submit());
}

describe("free tier", () => {
  test("the 3rd successful live job is free and the 4th needs balance, then is billed", () => {
    w = world();
    for (let i = 0; i < 3; i++) {
      const job = w.submit(i === 2 ? "youtube_url" : "video_url");
      expect(w.complete(job)?.status).toBe("complete");
      const charge = w.db.select().from(jobCharges).where(eq(jobCharges.jobId, job.id)).get()!;
      expect(charge.free).toBe(true);
      expect(charge.chargedCents).toBe(0);
    }
    expect(summary().freeJobsRemaining).toBe(0);

    const before = jobCount();
    const err = expectRefused(() => w.submit(), "insufficient_balance");
    expect(err.status).toBe(402);
    expect(jobCount()).toBe(before); // the refused submission wrote nothing

    grantCredits(w.db, w.orgId, dollars(10), w.clock.now());
    const fourth = w.submit();
    expect(summary()).toMatchObject({ balanceCents: 1000, heldCents: 300, availableCents: 700 });
    w.complete(fourth);
    expect(summary()).toMatchObject({ balanceCents: 700, heldCents: 0, availableCents: 700, freeJobsUsed: 3 });
    const charge = w.db.select().from(jobCharges).where(eq(jobCharges.jobId, fourth.id)).get()!;
    expect(charge).toMatchObject({ free: false, priceCents: 300, chargedCents: 300, uncollectedCents: 0 });
  });

  test("in-flight free jobs reserve their slots: the 4th concurrent submission needs balance", () => {
    w = world();
    const inFlight = [w.submit(), w.submit(), w.submit()];
    expect(summary().freeJobsRemaining).toBe(0);
    expectRefused(() => w.submit(), "insufficient_balance");
    grantCredits(w.db, w.orgId, dollars(5), w.clock.now());
    const fourth = w.submit();
    const hold = w.db.select().from(billingHolds).where(eq(billingHolds.jobId, fourth.id)).get()!;
    expect(hold).toMatchObject({ kind: "paid", amountCents: 300, status: "active" });
    for (const j of inFlight) w.complete(j);
    w.complete(fourth);
    expect(summary().balanceCents).toBe(200);
  });

  test("a free job that fails frees its slot; a paid job finishing later takes it and is not charged", () => {
    w = world();
    grantCredits(w.db, w.orgId, dollars(5), w.clock.now());
    const free = [w.submit(), w.submit(), w.submit()];
    const paid = w.submit();
    expect(summary().heldCents).toBe(300);
    w.fail(free[0]!);
    w.complete(paid); // now one of the first three successful jobs
    const charge = w.db.select().from(jobCharges).where(eq(jobCharges.jobId, paid.id)).get()!;
    expect(charge.free).toBe(true);
    expect(summary()).toMatchObject({ balanceCents: 500, heldCents: 0 });
    w.complete(free[1]!);
    w.complete(free[2]!);
    expect(summary()).toMatchObject({ balanceCents: 500, freeJobsUsed: 3, freeJobsRemaining: 0 });
  });

  test("sandbox jobs are never billed and never count toward the free tier", () => {
    w = world();
    for (let i = 0; i < 5; i++) w.complete(w.submit("video_url", "test"));
    expect(w.db.select().from(jobCharges).all()).toHaveLength(0);
    expect(w.db.select().from(billingHolds).all()).toHaveLength(0);
    expect(summary().freeJobsRemaining).toBe(3);
  });

  test("free tier and wallets are per organisation", () => {
    w = world();
    useFreeTier();
    const other = ensureOrg(w.db, "globex", w.clock).id;
    const job = w.submit("youtube_url", "live", other);
    w.complete(job);
    expect(walletSummary(w.db, other, w.clock.now()).freeJobsRemaining).toBe(2);
    expectRefused(() => w.submit(), "insufficient_balance");
  });
});

describe("debits", () => {
  test("failed jobs are never billed and their hold is released", () => {
    w = world();
    useFreeTier();
    grantCredits(w.db, w.orgId, dollars(7), w.clock.now());
    const job = w.submit("youtube_url");
    expect(summary()).toMatchObject({ heldCents: 700, availableCents: 0 });
    expectRefused(() => w.submit(), "insufficient_balance");
    w.fail(job);
    expect(summary()).toMatchObject({ balanceCents: 700, heldCents: 0, availableCents: 700 });
    expect(w.db.select().from(billingHolds).where(eq(billingHolds.jobId, job.id)).get()!.status).toBe("released");
    expect(w.db.select().from(jobCharges).where(eq(jobCharges.jobId, job.id)).get()).toBeUndefined();
    expect(w.db.select().from(ledgerEntries).where(eq(ledgerEntries.kind, "debit")).all()).toHaveLength(0);
  });

  test("a terminal job is settled once: a second complete or fail changes nothing", () => {
    w = world();
    useFreeTier();
    grantCredits(w.db, w.orgId, dollars(10), w.clock.now());
    const job = w.submit();
    expect(w.complete(job)).toBeDefined();
    expect(w.complete(job)).toBeUndefined();
    expect(w.fail(job)).toBeUndefined();
    expect(summary().balanceCents).toBe(700);
  });

  test("FIFO: the oldest lot is used first and a debit spans lots", () => {
    w = world();
    useFreeTier();
    const first = grantCredits(w.db, w.orgId, dollars(5), w.clock.now()).receipt.topupId;
    w.clock.advance(DAY);
    const second = grantCredits(w.db, w.orgId, dollars(20), w.clock.now()).receipt.topupId;
    w.complete(w.submit("video_url")); // 300 from the first lot
    w.complete(w.submit("youtube_url")); // 200 from the first, 500 from the second
    const lots = listLots(w.db, w.orgId);
    expect(lots.map((l) => [l.topupId, l.remainingCents])).toEqual([
      [first, 0],
      [second, 1500],
    ]);
    const debits = w.db.select().from(ledgerEntries).where(eq(ledgerEntries.kind, "debit")).all();
    expect(debits.map((d) => [d.lotId, d.amountCents])).toEqual([
      [lots[0]!.id, -300],
      [lots[0]!.id, -200],
      [lots[1]!.id, -500],
    ]);
    // The ledger explains every lot: credits plus debits equal what remains.
    for (const lot of lots) {
      const sum = w.db.select().from(ledgerEntries).where(eq(ledgerEntries.lotId, lot.id)).all().reduce((s, e) => s + e.amountCents, 0);
      expect(sum).toBe(lot.remainingCents);
    }
  });
});

describe("expiry (injected clock)", () => {
  test("lots expire 12 months after purchase and are then neither available nor debited", () => {
    w = world();
    useFreeTier();
    const t0 = w.clock.now();
    grantCredits(w.db, w.orgId, dollars(5), t0);
    expect(listLots(w.db, w.orgId)[0]!.expiresAt).toBe(Date.UTC(2027, 0, 15, 12));
    w.clock.set(creditExpiry(t0) - 1);
    expect(summary().balanceCents).toBe(500);
    w.clock.set(creditExpiry(t0));
    expect(summary().balanceCents).toBe(0);
    expectRefused(() => w.submit(), "insufficient_balance");
    grantCredits(w.db, w.orgId, dollars(6), w.clock.now());
    w.complete(w.submit());
    const lots = listLots(w.db, w.orgId);
    expect(lots.map((l) => l.remainingCents)).toEqual([500, 300]); // the expired lot was not touched
    expect(summary().balanceCents).toBe(300);
  });

  test("a lot that expires while its hold is open still pays for that job, never more", () => {
    w = world();
    useFreeTier();
    const t0 = w.clock.now();
    grantCredits(w.db, w.orgId, dollars(5), t0);
    w.clock.set(creditExpiry(t0) - 60_000);
    const job = w.submit(); // held against the soon-expiring lot
    w.clock.set(creditExpiry(t0) + 60_000);
    expect(summary()).toMatchObject({ balanceCents: 0, heldCents: 300, availableCents: 0 });
    // The open hold still counts against available balance (conservative until the job ends).
    grantCredits(w.db, w.orgId, dollars(5), w.clock.now());
    expect(summary()).toMatchObject({ balanceCents: 500, heldCents: 300, availableCents: 200 });
    expectRefused(() => w.submit(), "insufficient_balance");
    grantCredits(w.db, w.orgId, dollars(5), w.clock.now());
    const later = w.submit();
    w.complete(job);
    w.complete(later);
    const lots = listLots(w.db, w.orgId);
    // The old job paid from the lot its hold reserved, not from the newer lots.
    expect(lots.map((l) => l.remainingCents)).toEqual([200, 200, 500]);
    expect(w.db.select().from(jobCharges).all().filter((c) => !c.free).map((c) => c.uncollectedCents)).toEqual([0, 0]);
  });

  test("calendar months: a 29 February purchase expires on 1 March of the next year", () => {
    expect(new Date(creditExpiry(Date.UTC(2028, 1, 29, 10))).toISOString()).toBe("2029-03-01T10:00:00.000Z");
  });
});
