import { isoUtc } from "../../clock.ts";
import type { AppContext } from "../context.ts";
import { reply, type App } from "../routing.ts";
import { guard } from "../guard.ts";
import { readBodyLimited } from "../body.ts";
import type { Wallet } from "../../billing/schema.ts";
import { listLots, walletSummary } from "../../billing/wallet.ts";

const SANDBOX_WALLET: Wallet = {
  object: "wallet",
  currency: "usd",
  livemode: false,
  balance_cents: 0,
  held_cents: 0,
  available_cents: 0,
  free_jobs_remaining: 0,
  lots: [],
};

/** Largest Stripe event body accepted (Stripe's own events are a few KiB). */
const MAX_STRIPE_EVENT_BYTES = 256 * 1024;

/**
 * Billing's HTTP surface outside the dashboard: GET /v1/wallet (a documented extension of the API,
 * read rate class) and the Stripe webhook endpoint.
 */
export function register(app: App, ctx: AppContext): void {
  app.get("/v1/wallet", ({ request, set }): Wallet => {
    const principal = guard(ctx, request, reply(set).headers, "read");
    // Money is live-only: the sandbox world has its own wallet, always empty (its jobs are free), so a
    // test key learns nothing about the live balance, holds or purchases.
    if (principal.env === "test") return SANDBOX_WALLET;
    const now = ctx.clock.now();
    const s = walletSummary(ctx.db, principal.orgId, now);
    return {
      object: "wallet" as const,
      currency: "usd" as const,
      livemode: true,
      balance_cents: s.balanceCents,
      held_cents: s.heldCents,
      available_cents: s.availableCents,
      free_jobs_remaining: s.freeJobsRemaining,
      lots: listLots(ctx.db, principal.orgId)
        .filter((l) => l.expiresAt > now && l.remainingCents > 0)
        .map((l) => ({
          id: l.id,
          amount_cents: l.amountCents,
          remaining_cents: l.remainingCents,
          purchased_at: isoUtc(l.purchasedAt),
          expires_at: isoUtc(l.expiresAt),
        })),
    };
  });

  app.post(
    "/billing/stripe/webhook",
    async ({ request, set }) => {
      // Read with a cap, not arrayBuffer(): a chunked body declares no length for the app to refuse up front.
      const buf = await readBodyLimited(request, MAX_STRIPE_EVENT_BYTES, () => new Error("too large")).catch(() => null);
      if (!buf) {
        set.status = 413;
        return { error: "body_too_large" };
      }
      // The signature covers the exact bytes, so the body is verified as received, never re-serialized.
      const answer = await ctx.billing.handleStripeWebhook(new TextDecoder().decode(buf), request.headers.get("stripe-signature"));
      set.status = answer.status;
      return answer.body;
    },
    { parse: "none" },
  );
}
