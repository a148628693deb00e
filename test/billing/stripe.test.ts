import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { buildAppliance, type Appliance } from "../../src/appliance.ts";
import { createTopup, listReceipts } from "../../src/billing/topups.ts";
import { walletSummary } from "../../src/billing/wallet.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { stripeEvents, topups } from "../../src/db/schema.ts";
import { issueLoginToken } from "../../src/web/dashboard/session.ts";
import { testDbEnv } from "../helpers/db.ts";

/**
 * Stripe through the official SDK. Webhook events are signed with the SDK's own
 * generateTestHeaderStringAsync (Bun gets the SDK's WebCrypto build, so the sync variant throws) and sent to the appliance's endpoint; no network is involved. Checkout
 * session creation is pointed (STRIPE_API_BASE, i.e. the SDK's host/port options) at a local HTTP server standing in for
 * api.stripe.com, which cannot be reached from here, to check what the SDK sends.
 */
const SECRET = "whsec_test_clipyard_secret";
const sdk = new Stripe("sk_test_clipyard");

let dir: string;
let app: Appliance;
let clock: ManualClock;
let orgId: string;
let fakeApi: ReturnType<typeof Bun.serve> | undefined;
const savedEnv = { ...process.env };

afterEach(() => {
  process.env = { ...savedEnv };
  fakeApi?.stop(true);
  fakeApi = undefined;
  app?.ctx.db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

function boot() {
  process.env.STRIPE_SECRET_KEY = "sk_test_clipyard";
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
  delete process.env.CLIPYARD_SMTP_URL;
  dir = mkdtempSync(join(tmpdir(), "clipyard-stripe-"));
  clock = new ManualClock(Date.UTC(2026, 5, 1, 9));
  app = buildAppliance(loadConfig({ CLIPYARD_DATA_DIR: dir, ...testDbEnv(dir), CLIPYARD_PUBLIC_URL: "https://clipyard.example" }), clock);
  orgId = ensureOrg(app.ctx.db, "acme", clock).id;
}

function checkoutEvent(id: string, session: Partial<Stripe.Checkout.Session>, type = "checkout.session.completed"): string {
  return JSON.stringify({
    id,
    object: "event",
    type,
    api_version: "2025-01-01",
    created: Math.floor(clock.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object: { id: "cs_test_a1", object: "checkout.session", currency: "usd", payment_status: "paid", ...session } },
  });
}

async function deliver(body: string, opts: { secret?: string; timestamp?: number; signature?: string | null } = {}) {
  const signature =
    opts.signature === undefined
      ? await sdk.webhooks.generateTestHeaderStringAsync({ payload: body, secret: opts.secret ?? SECRET, timestamp: opts.timestamp ?? Math.floor(clock.now() / 1000) })
      : opts.signature;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== null) headers["stripe-signature"] = signature;
  return app.api.handle(new Request("https://clipyard.example/billing/stripe/webhook", { method: "POST", body, headers }));
}

const balance = () => walletSummary(app.ctx.db, orgId, clock.now()).balanceCents;

describe("Stripe webhook", () => {
  test("a signed checkout.session.completed credits the top-up exactly once, replays included", async () => {
    boot();
    const topup = createTopup(app.ctx.db, { orgId, provider: "stripe", amountCents: 2500, now: clock.now() });
    const body = checkoutEvent("evt_1", { client_reference_id: topup.id, amount_total: 2500 });

    const first = await deliver(body);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ received: true, credited: true, topup: topup.id });
    expect(balance()).toBe(2500);

    const replay = await deliver(body); // Stripe retries the same event
    expect(await replay.json()).toMatchObject({ duplicate: true });
    const sameSessionOtherEvent = await deliver(checkoutEvent("evt_2", { client_reference_id: topup.id, amount_total: 2500 }, "checkout.session.async_payment_succeeded"));
    expect(await sameSessionOtherEvent.json()).toMatchObject({ credited: false });
    expect(balance()).toBe(2500);
    expect(listReceipts(app.ctx.db, orgId)).toHaveLength(1);
    expect(app.ctx.db.select().from(topups).where(eq(topups.id, topup.id)).get()).toMatchObject({ status: "paid", providerRef: "cs_test_a1" });
  });

  test("bad, missing, tampered and stale signatures are refused and change nothing", async () => {
    boot();
    const topup = createTopup(app.ctx.db, { orgId, provider: "stripe", amountCents: 2500, now: clock.now() });
    const body = checkoutEvent("evt_1", { client_reference_id: topup.id, amount_total: 2500 });
    const cases = [
      await deliver(body, { secret: "whsec_someone_else" }),
      await deliver(body, { signature: null }),
      await deliver(body.replace('"amount_total":2500', '"amount_total":2501'), { signature: await sdk.webhooks.generateTestHeaderStringAsync({ payload: body, secret: SECRET, timestamp: Math.floor(clock.now() / 1000) }) }),
      await deliver(body, { timestamp: Math.floor(clock.now() / 1000) - 301 }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("invalid_signature");
    }
    expect(balance()).toBe(0);
    expect(app.ctx.db.select().from(stripeEvents).all()).toHaveLength(0);
  });

  test("unpaid sessions, wrong amounts and unknown top-ups are acknowledged but not credited", async () => {
    boot();
    const topup = createTopup(app.ctx.db, { orgId, provider: "stripe", amountCents: 2500, now: clock.now() });
    expect(await (await deliver(checkoutEvent("evt_a", { client_reference_id: topup.id, amount_total: 2500, payment_status: "unpaid" }))).json()).toMatchObject({ ignored: "payment not yet paid" });
    expect(await (await deliver(checkoutEvent("evt_b", { client_reference_id: topup.id, amount_total: 999 }))).json()).toMatchObject({ ignored: "amount mismatch" });
    expect(await (await deliver(checkoutEvent("evt_c", { client_reference_id: "top_nope", amount_total: 2500 }))).json()).toMatchObject({ ignored: "unknown top-up" });
    expect(await (await deliver(checkoutEvent("evt_d", {}, "customer.created"))).json()).toMatchObject({ ignored: "customer.created" });
    expect(balance()).toBe(0);
  });
});

describe("Stripe Checkout from the dashboard", () => {
  test("the top-up form creates a Checkout session through the SDK and redirects to it", async () => {
    const seen: Array<{ path: string; form: URLSearchParams; idempotencyKey: string | null; auth: string | null }> = [];
    fakeApi = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        seen.push({ path: new URL(req.url).pathname, form: new URLSearchParams(await req.text()), idempotencyKey: req.headers.get("idempotency-key"), auth: req.headers.get("authorization") });
        return Response.json({ id: "cs_test_from_api", object: "checkout.session", url: "https://checkout.stripe.com/c/pay/cs_test_from_api" });
      },
    });
    process.env.STRIPE_API_BASE = `http://127.0.0.1:${fakeApi.port}`;
    boot();

    const { token } = issueLoginToken(app.ctx.db, clock, orgId);
    const login = await app.api.handle(new Request("https://clipyard.example/dashboard/login", { method: "POST", body: new URLSearchParams({ token }) }));
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const pageHtml = await (await app.api.handle(new Request("https://clipyard.example/dashboard/topup", { headers: { cookie } }))).text();
    expect(pageHtml).toContain('value="stripe" checked');
    const csrf = /name="csrf" value="([^"]+)"/.exec(pageHtml)![1]!;
    const res = await app.api.handle(
      new Request("https://clipyard.example/dashboard/topup", { method: "POST", headers: { cookie }, body: new URLSearchParams({ amount: "75", provider: "stripe", csrf }) }),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("https://checkout.stripe.com/c/pay/cs_test_from_api");

    expect(seen).toHaveLength(1);
    const call = seen[0]!;
    expect(call.path).toBe("/v1/checkout/sessions");
    expect(call.auth).toBe("Bearer sk_test_clipyard");
    const pending = app.ctx.db.select().from(topups).where(eq(topups.orgId, orgId)).get()!;
    expect(pending).toMatchObject({ provider: "stripe", status: "pending", amountCents: 7500, providerRef: "cs_test_from_api" });
    expect(call.idempotencyKey).toBe(`checkout-${pending.id}`);
    expect(call.form.get("mode")).toBe("payment");
    expect(call.form.get("client_reference_id")).toBe(pending.id);
    expect(call.form.get("line_items[0][price_data][unit_amount]")).toBe("7500");
    expect(call.form.get("line_items[0][price_data][currency]")).toBe("usd");
    expect(call.form.get("success_url")).toBe("https://clipyard.example/dashboard/topup?checkout=success");

    // Out-of-bounds amounts never reach Stripe.
    const tooBig = await app.api.handle(
      new Request("https://clipyard.example/dashboard/topup", { method: "POST", headers: { cookie }, body: new URLSearchParams({ amount: "500.01", provider: "stripe", csrf }) }),
    );
    expect(tooBig.status).toBe(400);
    expect(seen).toHaveLength(1);

    // Then Stripe's signed event completes it.
    const paid = await deliver(checkoutEvent("evt_live", { id: "cs_test_from_api", client_reference_id: pending.id, amount_total: 7500 }));
    expect(await paid.json()).toMatchObject({ credited: true });
    expect(balance()).toBe(7500);
  });
});
