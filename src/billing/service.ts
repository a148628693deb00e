import { eq } from "drizzle-orm";
import { ApiError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import { orgs, stripeEvents, type JobRow, type ReceiptRow, type TopupRow } from "../db/schema.ts";
import type { SubmitEffect } from "../jobs/submit.ts";
import type { JobTransitions } from "../jobs/transitions.ts";
import { log } from "../log.ts";
import { holdForJob, settleJob } from "./charges.ts";
import type { BillingConfig } from "./config.ts";
import { smtpMailer, type Mailer } from "./mailer.ts";
import { checkTopupAmount, formatUsd } from "./pricing.ts";
import { StripeGateway } from "./stripe.ts";
import { createTopup, getTopup, grantCredits, markReceiptEmailed, rejectTopup, setProviderRef, settleTopup, type Settled } from "./topups.ts";

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The billing service: wires the wallet into job submission and completion, runs top-ups through
 * their provider and mails receipts. Built once in the composition root (src/appliance.ts).
 */
export class Billing {
  readonly stripe: StripeGateway | undefined;
  private readonly mailer: Mailer | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly config: BillingConfig,
    deps: { mailer?: Mailer; stripe?: StripeGateway } = {},
  ) {
    this.mailer = deps.mailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl) : undefined);
    this.stripe = deps.stripe ?? (config.stripe ? new StripeGateway(config.stripe.secretKey, config.stripe.webhookSecret, config.stripe.apiBase) : undefined);
  }

  /** The submit effect (hold) and terminal effect (debit or release), for AppContext and JobTransitions. */
  readonly submitEffect: SubmitEffect = (job: JobRow) => void holdForJob(this.db, job, this.clock.now());

  install(transitions: JobTransitions, submitEffects: SubmitEffect[]): void {
    submitEffects.push(this.submitEffect);
    transitions.onTerminal((job) => void settleJob(this.db, job, this.clock.now()));
  }

  get providers(): { stripe: boolean; offline: boolean } {
    return { stripe: Boolean(this.stripe), offline: this.config.offlineTopups };
  }

  /** `clipyard credits grant`: credit now, receipt stored and mailed. */
  grant(orgId: string, amountCents: number, note?: string): Settled {
    const settled = grantCredits(this.db, orgId, amountCents, this.clock.now(), note);
    this.mailReceipt(settled.receipt);
    return settled;
  }

  requestOfflineTopup(orgId: string, amountCents: number): TopupRow {
    if (!this.config.offlineTopups) throw new ApiError("payment_provider_unavailable", "Offline top-ups are turned off on this appliance.");
    return createTopup(this.db, { orgId, provider: "offline", amountCents, now: this.clock.now() });
  }

  /** The operator confirms an offline payment arrived; idempotent (a second approve credits nothing). */
  approveOfflineTopup(orgId: string, topupId: string): Settled {
    const topup = getTopup(this.db, topupId);
    if (!topup || topup.orgId !== orgId || topup.provider !== "offline") throw new ApiError("not_found", `No offline top-up ${topupId}.`);
    const settled = settleTopup(this.db, topupId, this.clock.now());
    if (settled.credited) this.mailReceipt(settled.receipt);
    return settled;
  }

  rejectOfflineTopup(orgId: string, topupId: string): boolean {
    return rejectTopup(this.db, orgId, topupId, this.clock.now());
  }

  /** Creates a pending top-up and its Stripe Checkout session; the caller redirects to the URL. */
  async startStripeCheckout(orgId: string, amountCents: number, returnUrl: string): Promise<string> {
    if (!this.stripe) throw new ApiError("payment_provider_unavailable", "Card payments are not configured (STRIPE_SECRET_KEY).");
    checkTopupAmount(amountCents);
    const org = this.db.select().from(orgs).where(eq(orgs.id, orgId)).get()!;
    const topup = createTopup(this.db, { orgId, provider: "stripe", amountCents, now: this.clock.now() });
    const session = await this.stripe.createCheckout(topup, org.name, returnUrl);
    setProviderRef(this.db, topup.id, session.id);
    return session.url;
  }

  /**
   * POST /billing/stripe/webhook. Verifies the signature with the SDK, then applies a paid checkout
   * at most once: the event id is recorded in the same transaction as the credit, and the top-up's
   * pending → paid step is guarded, so replays and duplicate events (two ids for one session) are
   * both harmless. Answers 2xx for events it does not act on, so Stripe stops retrying them.
   */
  async handleStripeWebhook(rawBody: string, signature: string | null): Promise<WebhookAnswer> {
    if (!this.stripe) throw new ApiError("not_found", "Card payments are not configured on this appliance.");
    let event;
    try {
      if (!signature) throw new Error("Stripe-Signature header missing");
      event = await this.stripe.verify(rawBody, signature, this.clock.now());
    } catch (err) {
      throw new ApiError("invalid_signature", `Webhook signature rejected: ${(err as Error).message.split("\n")[0]}`);
    }
    const paid = StripeGateway.paidCheckout(event);
    const now = this.clock.now();
    const result = tx(this.db, (): { answer: WebhookAnswer; receipt?: ReceiptRow } => {
      const fresh = this.db.insert(stripeEvents).values({ id: event.id, type: event.type, receivedAt: now }).onConflictDoNothing().returning().get();
      if (!fresh) return { answer: { status: 200, body: { received: true, duplicate: true } } };
      if (!paid) return { answer: { status: 200, body: { received: true, ignored: event.type } } };
      if (!paid.paid) return { answer: { status: 200, body: { received: true, ignored: "payment not yet paid" } } };
      const topup = paid.topupId ? getTopup(this.db, paid.topupId) : undefined;
      if (!topup || topup.provider !== "stripe") {
        log.error("stripe checkout for an unknown top-up", { event: event.id, session: paid.sessionId, topup: paid.topupId });
        return { answer: { status: 200, body: { received: true, ignored: "unknown top-up" } } };
      }
      if (paid.amountTotal !== topup.amountCents || (paid.currency ?? "usd").toLowerCase() !== "usd") {
        log.error("stripe checkout amount differs from the top-up", { event: event.id, topup: topup.id, paid: paid.amountTotal, expected: topup.amountCents });
        return { answer: { status: 200, body: { received: true, ignored: "amount mismatch" } } };
      }
      if (topup.providerRef === null) setProviderRef(this.db, topup.id, paid.sessionId);
      const settled = settleTopup(this.db, topup.id, now);
      return {
        answer: { status: 200, body: { received: true, credited: settled.credited, topup: topup.id, amount: formatUsd(topup.amountCents) } },
        receipt: settled.credited ? settled.receipt : undefined,
      };
    });
    if (result.receipt) this.mailReceipt(result.receipt);
    return result.answer;
  }

  /** Mails a stored receipt when SMTP and a billing address are configured; records the outcome. */
  mailReceipt(receipt: ReceiptRow): void {
    if (!this.mailer || !receipt.emailTo) return;
    const mailer = this.mailer;
    const to = receipt.emailTo;
    const job = (async () => {
      try {
        await mailer.send({ from: this.config.receiptFrom, to, subject: `clipyard receipt #${receipt.number}: ${formatUsd(receipt.amountCents)} wallet credit`, text: receipt.text });
        markReceiptEmailed(this.db, receipt.id, { at: this.clock.now() });
      } catch (err) {
        log.warn("receipt email failed", { receipt: receipt.id, error: (err as Error).message });
        markReceiptEmailed(this.db, receipt.id, { error: (err as Error).message });
      }
    })();
    this.inFlight.add(job);
    void job.finally(() => this.inFlight.delete(job));
  }

  /** Resolves when every receipt mail started so far has been sent or has failed (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }
}
