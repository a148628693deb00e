import { and, desc, eq, sql } from "drizzle-orm";
import { ApiError } from "../errors.ts";
import { isoUtc } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import { billingProfiles, orgs, receipts, topups, type ReceiptRow, type TopupRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { creditLot } from "./ledger.ts";
import { checkTopupAmount, formatUsd } from "./pricing.ts";

/**
 * Top-ups: a pending record, then one guarded pending → paid step that creates the credit lot, its
 * ledger credit and the receipt together. Whoever calls `settleTopup` twice (a replayed Stripe
 * event, a double-clicked approve) gets the first result back and nothing is credited twice.
 */

export type Provider = TopupRow["provider"];

export function createTopup(db: Db, args: { orgId: string; provider: Provider; amountCents: number; now: number; note?: string }): TopupRow {
  const row: TopupRow = {
    id: newId("top"),
    orgId: args.orgId,
    provider: args.provider,
    amountCents: checkTopupAmount(args.amountCents),
    status: "pending",
    providerRef: null,
    note: args.note ?? null,
    createdAt: args.now,
    settledAt: null,
  };
  db.insert(topups).values(row).run();
  return row;
}

export function setProviderRef(db: Db, topupId: string, ref: string): void {
  db.update(topups).set({ providerRef: ref }).where(eq(topups.id, topupId)).run();
}

export function getTopup(db: Db, id: string): TopupRow | undefined {
  return db.select().from(topups).where(eq(topups.id, id)).get();
}

export function listTopups(db: Db, orgId: string, limit = 50): TopupRow[] {
  return db.select().from(topups).where(eq(topups.orgId, orgId)).orderBy(desc(topups.createdAt)).limit(limit).all();
}

export interface Settled {
  receipt: ReceiptRow;
  /** false when the top-up had already been settled (a replay): nothing new was credited. */
  credited: boolean;
}

/** pending → paid: credit lot, ledger credit and receipt in one transaction. Idempotent. */
export function settleTopup(db: Db, topupId: string, now: number): Settled {
  return tx(db, () => {
    const paid = db
      .update(topups)
      .set({ status: "paid", settledAt: now })
      .where(and(eq(topups.id, topupId), eq(topups.status, "pending")))
      .returning()
      .get();
    if (!paid) {
      const existing = getTopup(db, topupId);
      if (!existing) throw new ApiError("not_found", `No top-up ${topupId}.`);
      const receipt = db.select().from(receipts).where(eq(receipts.topupId, topupId)).get();
      if (existing.status !== "paid" || !receipt) throw new ApiError("not_found", `Top-up ${topupId} was ${existing.status}, not paid.`);
      return { receipt, credited: false };
    }
    const lot = creditLot(db, { orgId: paid.orgId, topupId: paid.id, amountCents: paid.amountCents, now });
    const receipt = issueReceipt(db, paid, lot.expiresAt, now);
    return { receipt, credited: true };
  });
}

/** pending → rejected (an operator declines an offline top-up). */
export function rejectTopup(db: Db, orgId: string, topupId: string, now: number): boolean {
  const res = db
    .update(topups)
    .set({ status: "rejected", settledAt: now })
    .where(and(eq(topups.id, topupId), eq(topups.orgId, orgId), eq(topups.status, "pending")))
    .returning({ id: topups.id })
    .all();
  return res.length > 0;
}

/** An operator's grant (`clipyard credits grant`): a top-up that is created and paid at once. */
export function grantCredits(db: Db, orgId: string, amountCents: number, now: number, note?: string): Settled {
  return tx(db, () => {
    const topup = createTopup(db, { orgId, provider: "grant", amountCents, now, note });
    return settleTopup(db, topup.id, now);
  });
}

const PROVIDER_LABEL: Record<Provider, string> = {
  stripe: "Card payment (Stripe Checkout)",
  offline: "Offline payment approved by the operator",
  grant: "Operator credit grant",
};

function issueReceipt(db: Db, topup: TopupRow, expiresAt: number, now: number): ReceiptRow {
  const number = db.select({ n: sql<number>`coalesce(max(${receipts.number}), 0) + 1` }).from(receipts).get()!.n;
  const org = db.select().from(orgs).where(eq(orgs.id, topup.orgId)).get()!;
  const email = billingEmail(db, topup.orgId);
  const text = [
    `clipyard receipt #${number}`,
    ``,
    `Organisation:   ${org.name}`,
    `Date:           ${isoUtc(now)}`,
    `Description:    Prepaid wallet credit`,
    `Payment:        ${PROVIDER_LABEL[topup.provider]}${topup.providerRef ? ` (${topup.providerRef})` : ""}`,
    `Amount:         ${formatUsd(topup.amountCents)} USD`,
    `Credit expires: ${isoUtc(expiresAt)}`,
    `Top-up id:      ${topup.id}`,
  ].join("\n");
  const receipt: ReceiptRow = {
    id: newId("rcpt"),
    number,
    orgId: topup.orgId,
    topupId: topup.id,
    amountCents: topup.amountCents,
    issuedAt: now,
    text,
    emailTo: email,
    emailedAt: null,
    emailError: null,
  };
  db.insert(receipts).values(receipt).run();
  return receipt;
}

export function listReceipts(db: Db, orgId: string): ReceiptRow[] {
  return db.select().from(receipts).where(eq(receipts.orgId, orgId)).orderBy(desc(receipts.number)).all();
}

export function getReceipt(db: Db, orgId: string, id: string): ReceiptRow | undefined {
  return db.select().from(receipts).where(and(eq(receipts.id, id), eq(receipts.orgId, orgId))).get();
}

export function markReceiptEmailed(db: Db, id: string, result: { at: number } | { error: string }): void {
  db.update(receipts)
    .set("at" in result ? { emailedAt: result.at, emailError: null } : { emailError: result.error })
    .where(eq(receipts.id, id))
    .run();
}

export function billingEmail(db: Db, orgId: string): string | null {
  return db.select().from(billingProfiles).where(eq(billingProfiles.orgId, orgId)).get()?.billingEmail ?? null;
}

export function setBillingEmail(db: Db, orgId: string, email: string | null): void {
  db.insert(billingProfiles)
    .values({ orgId, billingEmail: email })
    .onConflictDoUpdate({ target: billingProfiles.orgId, set: { billingEmail: email } })
    .run();
}
