import { z } from "zod";

/**
 * Billing settings, read from the environment once at start-up (kept beside src/config.ts rather
 * than in it so the payment and mail settings stay in one place with the code that uses them).
 */
const BillingEnvSchema = z.object({
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Another Stripe API endpoint, e.g. stripe-mock (http://localhost:12111) on a test bench. */
  STRIPE_API_BASE: z.string().url().optional(),
  /** e.g. smtp://user:pass@mail.lan:587 or smtps://...; unset: receipts are stored, not mailed. */
  CLIPYARD_SMTP_URL: z.string().url().optional(),
  CLIPYARD_RECEIPT_FROM: z.string().min(3).default("clipyard <billing@localhost>"),
  /** Offline (operator-approved) top-ups: on by default for self-hosted installs without Stripe. */
  CLIPYARD_OFFLINE_TOPUPS: z.enum(["auto", "on", "off"]).default("auto"),
});

export interface BillingConfig {
  stripe?: { secretKey: string; webhookSecret: string; apiBase?: string };
  smtpUrl?: string;
  receiptFrom: string;
  offlineTopups: boolean;
}

export function loadBillingConfig(env: Record<string, string | undefined> = process.env): BillingConfig {
  // An empty variable means "not set" (how shells and compose files usually unset things).
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = BillingEnvSchema.safeParse(set);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid configuration: ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  if (Boolean(e.STRIPE_SECRET_KEY) !== Boolean(e.STRIPE_WEBHOOK_SECRET)) {
    throw new Error("invalid configuration: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together or not at all");
  }
  const stripe = e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, apiBase: e.STRIPE_API_BASE } : undefined;
  return {
    stripe,
    smtpUrl: e.CLIPYARD_SMTP_URL,
    receiptFrom: e.CLIPYARD_RECEIPT_FROM,
    offlineTopups: e.CLIPYARD_OFFLINE_TOPUPS === "on" || (e.CLIPYARD_OFFLINE_TOPUPS === "auto" && !stripe),
  };
}
