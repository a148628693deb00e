import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { billingHolds, creditLots, jobCharges, ledgerEntries, type CreditLotRow, type HoldRow, type LedgerRow } from "../db/schema.ts";
import { FREE_TIER_JOBS } from "./pricing.ts";

/**
 * Read side of the wallet. Pure queries, no writes; callers that decide on money (hold, debit) run
 * them inside the same IMMEDIATE transaction as their write, so what they read cannot change under
 * them.
 */

/** Credits still spendable now: the remaining cents of lots that have not expired. */
export function balanceCents(db: Db, orgId: string, now: number): number {
  const row = db
    .select({ v: sql<number>`coalesce(sum(${creditLots.remainingCents}), 0)` })
    .from(creditLots)
    .where(and(eq(creditLots.orgId, orgId), gt(creditLots.expiresAt, now)))
    .get();
  return row?.v ?? 0;
}

/** Cents reserved by active paid holds (in-flight live jobs outside the free tier). */
export function heldCents(db: Db, orgId: string): number {
  const row = db
    .select({ v: sql<number>`coalesce(sum(${billingHolds.amountCents}), 0)` })
    .from(billingHolds)
    .where(and(eq(billingHolds.orgId, orgId), eq(billingHolds.status, "active"), eq(billingHolds.kind, "paid")))
    .get();
  return row?.v ?? 0;
}

/**
 * Free-tier slots in use: successful jobs that were free, plus in-flight jobs holding a free slot.
 * Counting in-flight free jobs is what makes the 4th concurrent submission need balance.
 */
export function freeSlotsTaken(db: Db, orgId: string): number {
  const used = db
    .select({ n: sql<number>`count(*)` })
    .from(jobCharges)
    .where(and(eq(jobCharges.orgId, orgId), eq(jobCharges.free, true)))
    .get()!.n;
  const reserved = db
    .select({ n: sql<number>`count(*)` })
    .from(billingHolds)
    .where(and(eq(billingHolds.orgId, orgId), eq(billingHolds.status, "active"), eq(billingHolds.kind, "free")))
    .get()!.n;
  return used + reserved;
}

export interface WalletSummary {
  balanceCents: number;
  heldCents: number;
  /** balance − held, floored at 0 (held can exceed balance when a reserved lot expires mid-job). */
  availableCents: number;
  freeJobsRemaining: number;
  freeJobsUsed: number;
}

export function walletSummary(db: Db, orgId: string, now: number): WalletSummary {
  const balance = balanceCents(db, orgId, now);
  const held = heldCents(db, orgId);
  const taken = freeSlotsTaken(db, orgId);
  const freeUsed = db
    .select({ n: sql<number>`count(*)` })
    .from(jobCharges)
    .where(and(eq(jobCharges.orgId, orgId), eq(jobCharges.free, true)))
    .get()!.n;
  return {
    balanceCents: balance,
    heldCents: held,
    availableCents: Math.max(0, balance - held),
    freeJobsRemaining: Math.max(0, FREE_TIER_JOBS - taken),
    freeJobsUsed: freeUsed,
  };
}

export function listLots(db: Db, orgId: string): CreditLotRow[] {
  return db.select().from(creditLots).where(eq(creditLots.orgId, orgId)).orderBy(asc(creditLots.expiresAt), sql`rowid`).all();
}

export function listActiveHolds(db: Db, orgId: string): HoldRow[] {
  return db
    .select()
    .from(billingHolds)
    .where(and(eq(billingHolds.orgId, orgId), eq(billingHolds.status, "active")))
    .orderBy(asc(billingHolds.createdAt))
    .all();
}

export function listLedger(db: Db, orgId: string, limit = 100): LedgerRow[] {
  return db.select().from(ledgerEntries).where(eq(ledgerEntries.orgId, orgId)).orderBy(desc(ledgerEntries.seq)).limit(limit).all();
}
