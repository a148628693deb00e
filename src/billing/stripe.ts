import Stripe from "stripe";
import type { TopupRow } from "../db/schema.ts";

export interface CheckoutSession {
  id: string;
  url: string;
}

/** What a verified checkout.session.completed event tells us. */
export interface PaidCheckout {
  eventId: string;
  sessionId: string;
  topupId: string | null;
  amountTotal: number | null;
  currency: string | null;
  paid: boolean;
}

/**
 * The Stripe adapter: Checkout session creation and webhook verification through the official SDK.
 * `apiBase` points the SDK at another API endpoint (STRIPE_API_BASE: stripe-mock, tests);
 * production leaves it unset and the SDK talks to api.stripe.com.
 */
export class StripeGateway {
  private readonly stripe: Stripe;

  constructor(
    secretKey: string,
    private readonly webhookSecret: string,
    apiBase?: string,
  ) {
    const base = apiBase ? new URL(apiBase) : undefined;
    const endpoint = base
      ? { host: base.hostname, port: Number(base.port || (base.protocol === "http:" ? 80 : 443)), protocol: base.protocol === "http:" ? ("http" as const) : ("https" as const) }
      : {};
    this.stripe = new Stripe(secretKey, { maxNetworkRetries: 1, timeout: 20_000, ...endpoint });
  }

  async createCheckout(topup: TopupRow, orgName: string, returnUrl: string): Promise<CheckoutSession> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: "payment",
        client_reference_id: topup.id,
        metadata: { topup_id: topup.id, org_id: topup.orgId },
        line_items: [
          {
            quantity: 1,
            price_data: { currency: "usd", unit_amount: topup.amountCents, product_data: { name: `clipyard wallet credit (${orgName})` } },
          },
        ],
        success_url: `${returnUrl}?checkout=success`,
        cancel_url: `${returnUrl}?checkout=cancelled`,
      },
      // One session per top-up even if the create call is retried.
      { idempotencyKey: `checkout-${topup.id}` },
    );
    if (!session.url) throw new Error("Stripe returned a checkout session without a URL");
    return { id: session.id, url: session.url };
  }

  /**
   * Verifies the Stripe-Signature header (rejects on a bad signature or a timestamp older than the
   * SDK's 300 s tolerance). Async because under Bun the SDK resolves to its worker build, whose
   * crypto is WebCrypto: the synchronous constructEvent throws there, constructEventAsync is the
   * same check.
   */
  verify(rawBody: string, signature: string, nowMs: number): Promise<Stripe.Event> {
    return this.stripe.webhooks.constructEventAsync(rawBody, signature, this.webhookSecret, undefined, undefined, nowMs);
  }

  static paidCheckout(event: Stripe.Event): PaidCheckout | null {
    if (event.type !== "checkout.session.completed" && event.type !== "checkout.session.async_payment_succeeded") return null;
    const s = event.data.object as Stripe.Checkout.Session;
    return {
      eventId: event.id,
      sessionId: s.id,
      topupId: s.client_reference_id ?? s.metadata?.topup_id ?? null,
      amountTotal: s.amount_total ?? null,
      currency: s.currency ?? null,
      paid: s.payment_status === "paid" || event.type === "checkout.session.async_payment_succeeded",
    };
  }
}
