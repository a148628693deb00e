import { z } from "zod";

/** GET /v1/wallet (a documented extension to the spec): the organisation's prepaid credit. */
export const WalletLotSchema = z.object({
  id: z.string(),
  amount_cents: z.number().int(),
  remaining_cents: z.number().int(),
  purchased_at: z.string(),
  expires_at: z.string(),
});

export const WalletSchema = z.object({
  object: z.literal("wallet"),
  currency: z.literal("usd"),
  /** false for a sandbox key, whose wallet is always empty: sandbox jobs are free. */
  livemode: z.boolean(),
  /** Remaining cents of unexpired lots. */
  balance_cents: z.number().int(),
  /** Cents reserved by in-flight live jobs outside the free tier. */
  held_cents: z.number().int(),
  /** What a new submission can reserve: balance − held, floored at 0. */
  available_cents: z.number().int(),
  /** Free-tier slots neither used by a successful job nor reserved by an in-flight one. */
  free_jobs_remaining: z.number().int(),
  /** Unexpired lots with credit left, oldest (first to be spent) first. */
  lots: z.array(WalletLotSchema),
});

export type Wallet = z.infer<typeof WalletSchema>;
