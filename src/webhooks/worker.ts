import type { Clock } from "../clock.ts";
import { unixSeconds } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import { webhooks, type DeliveryRow } from "../db/schema.ts";
import { eq } from "drizzle-orm";
import { newId } from "../ids.ts";
import { Pacer } from "../jobs/pacer.ts";
import { log } from "../log.ts";
import type { NetworkPolicy } from "../net/ip-policy.ts";
import { safeRequest } from "../net/safe-fetch.ts";
import type { SecretBox } from "../secrets.ts";
import { DEACTIVATE_AFTER, DELIVERY_TIMEOUT_MS, nextAttemptDelay } from "./retry.ts";
import { signatureHeader } from "./signature.ts";
import {
  abandonPending,
  bumpWebhookFailures,
  claimDueDeliveries,
  disableWebhook,
  getEvent,
  insertAttempt,
  finishDeliveryAttempt,
  nextDeliveryDueAt,
  resetWebhookFailures,
} from "./store.ts";

export interface SendOutcome {
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Sends due deliveries. Each send is leased, so two workers never send the same attempt and a send
 * cut off by a crash is retried after its lease lapses. The outcome of an attempt (the attempt
 * record, the delivery's new state, the webhook's failure count) commits in one transaction.
 */
export class DeliveryWorker {
  readonly owner = newId("dworker");
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pacer: Pacer;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly policy: NetworkPolicy,
    private readonly timeScale: number,
    private readonly concurrency = 8,
  ) {
    this.pacer = new Pacer("delivery tick", clock, () => this.tick(), () => nextDeliveryDueAt(db));
  }

  /** Claims what is due and sends it; resolves when those sends are recorded. */
  async tick(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const claimed = claimDueDeliveries(this.db, this.owner, this.clock.now(), DELIVERY_TIMEOUT_MS + 5_000, free);
    await Promise.all(
      claimed.map((d) => {
        const p = this.deliver(d).finally(() => {
          this.inFlight.delete(p);
          this.wake();
        });
        this.inFlight.add(p);
        return p;
      }),
    );
  }

  private async deliver(d: DeliveryRow): Promise<void> {
    const event = getEvent(this.db, d.eventId)!;
    const hook = this.db.select().from(webhooks).where(eq(webhooks.id, d.webhookId)).get()!;
    const startedAt = this.clock.now();
    const outcome = await this.send(hook.url, this.box.open(hook.secretEnc), event.payload, d);
    this.record(d, startedAt, outcome);
  }

  async send(url: string, secret: string, payload: string, d: Pick<DeliveryRow, "id" | "eventId">): Promise<SendOutcome> {
    const t0 = performance.now();
    try {
      const res = await safeRequest(
        url,
        {
          method: "POST",
          timeoutMs: DELIVERY_TIMEOUT_MS,
          body: payload,
          headers: {
            "content-type": "application/json",
            "user-agent": "clipyard-webhooks/1",
            "x-service-signature": signatureHeader(secret, unixSeconds(this.clock.now()), payload),
            "x-service-delivery-id": d.id,
            "x-service-event-id": d.eventId,
          },
        },
        this.policy,
      );
      const ok = res.status >= 200 && res.status < 300;
      const error = ok ? null : res.status >= 300 && res.status < 400 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`;
      return { ok, httpStatus: res.status, error, durationMs: Math.round(performance.now() - t0) };
    } catch (err) {
      return { ok: false, httpStatus: null, error: (err as Error).message || String(err), durationMs: Math.round(performance.now() - t0) };
    }
  }

  private record(d: DeliveryRow, at: number, o: SendOutcome): void {
    tx(this.db, () => {
      const number = d.attemptCount + 1;
      const now = this.clock.now();
      if (o.ok) {
        if (!finishDeliveryAttempt(this.db, d.id, this.owner, { status: "succeeded", attemptCount: number, completedAt: now, nextAttemptAt: null, lastError: null })) return;
        insertAttempt(this.db, { deliveryId: d.id, number, at, durationMs: o.durationMs, httpStatus: o.httpStatus, error: null });
        resetWebhookFailures(this.db, d.webhookId);
        return;
      }
      const delay = nextAttemptDelay(number, this.timeScale);
      const set =
        delay === null
          ? { status: "failed" as const, attemptCount: number, completedAt: now, nextAttemptAt: null, lastError: o.error }
          : { attemptCount: number, nextAttemptAt: now + delay, lastError: o.error };
      if (!finishDeliveryAttempt(this.db, d.id, this.owner, set)) return;
      insertAttempt(this.db, { deliveryId: d.id, number, at, durationMs: o.durationMs, httpStatus: o.httpStatus, error: o.error });
      if (delay === null && bumpWebhookFailures(this.db, d.webhookId) >= DEACTIVATE_AFTER) {
        disableWebhook(this.db, d.webhookId, now);
        abandonPending(this.db, d.webhookId, now, "webhook deactivated after 10 consecutive failed deliveries");
        log.warn("webhook deactivated", { webhook: d.webhookId });
      }
    });
  }

  start(): void {
    this.pacer.start();
  }

  wake(): void {
    this.pacer.wake();
  }

  /** Stops claiming; lets in-flight sends finish (bounded by their timeout). */
  async stop(): Promise<void> {
    this.pacer.stop();
    await Promise.race([Promise.all(this.inFlight), Bun.sleep(DELIVERY_TIMEOUT_MS)]);
  }
}
