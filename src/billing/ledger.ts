import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { creditLots, ledgerEntries, type CreditLotRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { creditExpiry } from "./pricing.ts";

/**
 * The only writers of credit lots and ledger entries. Every balance change is a ledger row tied to
 * one lot, so sum(ledger) per lot always equals amount − remaining. Call inside a transaction.
 */

export function creditLot(db: Db, args: { orgId: string; topupId: string; amountCents: number; now: number }): CreditLotRow {
  const lot: CreditLotRow = {
    id: newId("lot"),
    orgId: args.orgId,
    topupId: args.topupId,
    amountCents: args.amountCents,
    remainingCents: args.amountCents,
    purchasedAt: args.now,
    expiresAt: creditExpiry(args.now),
  };
  db.insert(creditLots).values(lot).run();
  db.insert(ledgerEntries)
    .values({ orgId: args.orgId, kind: "credit", amountCents: args.amountCents, lotId: lot.id, topupId: args.topupId, createdAt: args.now })
    .run();
  return lot;
}

/**
 * Takes `amountCents` for a job from lots that expire after `eligibleAfter`, the lot expiring
 * soonest first (FIFO: every lot lives 12 months, so soonest-expiring is oldest-purchased). Takes
 * what there is and returns the amount actually collected; the caller decides what a shortfall means.
 */
export function debitFifo(db: Db, args: { orgId: string; jobId: string; amountCents: number; eligibleAfter: number; now: number }): number {
  const lots = db
    .select()
    .from(creditLots)
    .where(and(eq(creditLots.orgId, args.orgId), gt(creditLots.expiresAt, args.eligibleAfter), gt(creditLots.remainingCents, 0)))
    .orderBy(asc(creditLots.expiresAt), asc(creditLots.purchasedAt), sql`rowid`) // rowid: insertion order breaks ties
    .all();
  let due = args.amountCents;
  for (const lot of lots) {
    if (due === 0) break;
    const take = Math.min(due, lot.remainingCents);
    // Guarded by the remaining amount read in this transaction; the CHECK (remaining >= 0) backs it.
    const updated = db
      .update(creditLots)
      .set({ remainingCents: sql`${creditLots.remainingCents} - ${take}` })
      .where(and(eq(creditLots.id, lot.id), eq(creditLots.remainingCents, lot.remainingCents)))
      .returning({ id: creditLots.id })
      .all();
    if (updated.length !== 1) throw new Error(`credit lot ${lot.id} changed under a debit transaction`);
    db.insert(ledgerEntries)
      .values({ orgId: args.orgId, kind: "debit", amountCents: -take, lotId: lot.id, jobId: args.jobId, createdAt: args.now })
      .run();
    due -= take;
  }
  return args.amountCents - due;
}
