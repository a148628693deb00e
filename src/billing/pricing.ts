import { ApiError } from "../errors.ts";

/**
 * Spec §1 "Pricing and billing" and §8 as data: every price, bound and lifetime the wallet uses.
 * Money is integer US cents everywhere; dollars exist only at the edges (CLI input, display).
 */
/** An upload (extension) costs what a video_url does: the same pipeline after acquisition. */
export const PRICE_CENTS: Record<string, number> = { video_url: 300, youtube_url: 700, upload: 300 };
export const FREE_TIER_JOBS = 3;
export const TOPUP_MIN_CENTS = 500;
export const TOPUP_MAX_CENTS = 50_000;
export const CREDIT_LIFETIME_MONTHS = 12;

export function priceCents(sourceType: string): number {
  const price = PRICE_CENTS[sourceType];
  if (price === undefined) throw new Error(`no price for source type ${sourceType}`);
  return price;
}

/** Purchase time plus 12 calendar months (UTC); a 29 February purchase expires on 1 March. */
export function creditExpiry(purchasedAt: number): number {
  const d = new Date(purchasedAt);
  d.setUTCMonth(d.getUTCMonth() + CREDIT_LIFETIME_MONTHS);
  return d.getTime();
}

/** "12", "12.5", "12.50" → cents. Anything else (more than two decimals, signs, exponents) → null. */
export function parseUsd(input: string): number | null {
  const m = /^\s*(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(input);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
}

/** Spec §8: 5 to 500 USD per top-up transaction, whatever the provider. */
export function checkTopupAmount(cents: number | null, param = "amount"): number {
  if (cents === null || !Number.isSafeInteger(cents) || cents < TOPUP_MIN_CENTS || cents > TOPUP_MAX_CENTS) {
    throw new ApiError("invalid_amount", `A top-up is between ${formatUsd(TOPUP_MIN_CENTS)} and ${formatUsd(TOPUP_MAX_CENTS)}.`, param);
  }
  return cents;
}

export function formatUsd(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
