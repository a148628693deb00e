import { and, eq } from "drizzle-orm";
import { ApiError } from "../errors.ts";
import type { Db } from "../db/client.ts";
import { billingHolds, jobCharges, type HoldRow, type JobRow } from "../db/schema.ts";
import { log } from "../log.ts";
import { debitFifo } from "./ledger.ts";
import { FREE_TIER_JOBS, formatUsd, priceCents } from "./pricing.ts";
import { balanceCents, freeSlotsTaken, heldCents } from "./wallet.ts";

/**
 * The money side of a live job's life, as two effects that run inside the job's own transactions:
 * `holdForJob` in the submission transaction, `settleJob` in the terminal transition's. Sandbox
 * jobs are never touched. See docs/billing.md for the rules and why they are sound.
 */

function activeHold(db: Db, jobId: string): HoldRow | undefined {
  return db
    .select()
    .from(billingHolds)
    .where(and(eq(billingHolds.jobId, jobId), eq(billingHolds.status, "active")))
    .get();
}

/**
 * Submit effect. Reserves a free-tier slot while one is unreserved; otherwise reserves the job's
 * price against available balance (unexpired lots minus active holds) or refuses the submission
 * with insufficient_balance, in which case the job insert rolls back with it.
 */
export function holdForJob(db: Db, job: JobRow, now: number): HoldRow | undefined {
  if (job.env !== "live") return undefined;
  const price = priceCents(job.sourceType);
  let hold: HoldRow;
  if (freeSlotsTaken(db, job.orgId) < FREE_TIER_JOBS) {
    hold = { jobId: job.id, orgId: job.orgId, kind: "free", amountCents: 0, status: "active", createdAt: now, settledAt: null };
  } else {
    const available = balanceCents(db, job.orgId, now) - heldCents(db, job.orgId);
    if (available < price) {
      throw new ApiError(
        "insufficient_balance",
        `This ${job.sourceType} job costs ${formatUsd(price)} and the wallet has ${formatUsd(Math.max(0, available))} available; top up in the dashboard's billing page.`,
      );
    }
    hold = { jobId: job.id, orgId: job.orgId, kind: "paid", amountCents: price, status: "active", createdAt: now, settledAt: null };
  }
  db.insert(billingHolds).values(hold).run();
  return hold;
}

export type Settlement =
  | { kind: "none" }
  | { kind: "released"; hold: HoldRow | undefined }
  | { kind: "charged"; free: boolean; chargedCents: number; uncollectedCents: number };

/**
 * Terminal effect. failed: the hold is released, nothing is charged. complete: the job is free if
 * it held a free slot or a free slot is unreserved now (the spec's free tier is the first three
 * *successful* jobs, so a paid job that finishes after a free one failed takes the freed slot);
 * otherwise its price is debited oldest lot first. The charge row's primary key makes a second
 * debit of the same job impossible.
 */
export function settleJob(db: Db, job: JobRow, now: number): Settlement {
  if (job.env !== "live") return { kind: "none" };
  const hold = activeHold(db, job.id);
  if (job.status === "failed") {
    if (hold) db.update(billingHolds).set({ status: "released", settledAt: now }).where(eq(billingHolds.jobId, job.id)).run();
    return { kind: "released", hold };
  }
  if (job.status !== "complete") return { kind: "none" };
  if (db.select({ id: jobCharges.jobId }).from(jobCharges).where(eq(jobCharges.jobId, job.id)).get()) return { kind: "none" };

  const free = hold?.kind === "free" || freeSlotsTaken(db, job.orgId) < FREE_TIER_JOBS;
  // The price is the one reserved at submission; a job from before billing existed pays list price.
  const price = hold?.kind === "paid" ? hold.amountCents : priceCents(job.sourceType);
  let charged = 0;
  if (!free) {
    // A hold guaranteed the credits that were unexpired when it was placed, so those lots stay
    // eligible for this job even if they expired while it ran.
    charged = debitFifo(db, { orgId: job.orgId, jobId: job.id, amountCents: price, eligibleAfter: hold ? hold.createdAt : now, now });
  }
  const uncollected = free ? 0 : price - charged;
  if (uncollected > 0) log.warn("job completed without enough credit to pay for it", { job: job.id, org: job.orgId, uncollected });
  db.insert(jobCharges)
    .values({ jobId: job.id, orgId: job.orgId, free, priceCents: free ? 0 : price, chargedCents: charged, uncollectedCents: uncollected, createdAt: now })
    .run();
  if (hold) db.update(billingHolds).set({ status: "captured", settledAt: now }).where(eq(billingHolds.jobId, job.id)).run();
  return { kind: "charged", free, chargedCents: charged, uncollectedCents: uncollected };
}
