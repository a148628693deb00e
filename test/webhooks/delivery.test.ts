import { afterEach, expect, test } from "bun:test";
import Stripe from "stripe";
import { ManualClock } from "../../src/clock.ts";
import { getJobById } from "../../src/jobs/store.ts";
import { nextDeliveryDueAt } from "../../src/webhooks/store.ts";
import { DEACTIVATE_AFTER, MAX_SENDS, RETRY_DELAYS_MS } from "../../src/webhooks/retry.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { startReceiver } from "../helpers/receiver.ts";

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" };
let app: TestAppliance;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
afterEach(async () => {
  await app?.stop();
  receiver?.stop();
});

async function register(key: string, events = ["job.completed", "job.failed"]) {
  const res = await app.api("POST", "/v1/webhooks", { key, body: { url: receiver.url(), events } });
  expect(res.status).toBe(201);
  return res.json as { id: string; secret: string };
}

const failingJob = { source: { type: "video_url", url: "https://media.example.com/will-fail.mp4" } };

test("a real delivery verifies with the official Stripe SDK and carries the job as GET returns it", async () => {
  receiver = await startReceiver();
  app = await startAppliance({ env: { ...LAN, CLIPYARD_TIME_SCALE: "0.005" } });
  const key = app.key("wh-stripe");
  const hook = await register(key);
  expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9]{33}$/);
  const job = (await app.api("POST", "/v1/jobs", { key, body: failingJob })).json;
  const req = await receiver.waitFor(1);
  // A declared length, not a chunked body: some receivers refuse chunked requests.
  expect(req.headers.get("transfer-encoding")).toBeNull();
  expect(req.headers.get("content-length")).toBe(String(Buffer.byteLength(req.raw)));
  const stripe = new Stripe("sk_test_unused");
  const event = (await stripe.webhooks.constructEventAsync(req.raw, req.headers.get("x-service-signature")!, hook.secret)) as any;
  expect(event.type).toBe("job.failed");
  expect(event.id).toMatch(/^evt_/);
  expect(event.request_id).toMatch(/^req_/);
  expect(event.data.object).toEqual((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json);
  // A tampered body or the wrong secret fails verification.
  expect(stripe.webhooks.constructEventAsync(req.raw.replace("failed", "complete"), req.headers.get("x-service-signature")!, hook.secret)).rejects.toThrow();
  expect(stripe.webhooks.constructEventAsync(req.raw, req.headers.get("x-service-signature")!, "whsec_other")).rejects.toThrow();
});

test("the full retry schedule, exactly, then failed; nothing more is sent", async () => {
  receiver = await startReceiver();
  receiver.answer([], 500);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  app = await startAppliance({ clock, scheduler: false, env: { ...LAN, CLIPYARD_TIME_SCALE: "1" } });
  const key = app.key("wh-retry");
  const hook = await register(key);
  const id = (await app.api("POST", "/v1/jobs", { key, body: failingJob })).json.id;
  const created = getJobById(app.ctx.db, id)!.createdAt;
  clock.set(created + 71_000);
  app.scheduler.tick();
  app.scheduler.tick();
  expect(getJobById(app.ctx.db, id)!.status).toBe("failed");

  const sendTimes: number[] = [];
  for (let i = 0; i < MAX_SENDS; i++) {
    await app.deliveries.tick();
    expect(receiver.requests.length).toBe(i + 1);
    sendTimes.push(clock.now());
    const delay = RETRY_DELAYS_MS[i];
    if (delay === undefined) break;
    clock.advance(delay - 1);
    await app.deliveries.tick();
    expect(receiver.requests.length).toBe(i + 1); // not a millisecond early
    clock.advance(1);
  }
  expect(sendTimes.slice(1).map((t, i) => t - sendTimes[i]!)).toEqual([...RETRY_DELAYS_MS]);
  clock.advance(7 * 86_400_000);
  await app.deliveries.tick();
  expect(receiver.requests.length).toBe(MAX_SENDS);
  const list = (await app.api("GET", `/v1/webhooks/${hook.id}/deliveries`, { key })).json;
  expect(list.data[0]).toMatchObject({ status: "failed", attempt_count: MAX_SENDS, last_error: "HTTP 500" });
  expect(list.data[0].attempts.map((a: any) => a.http_status)).toEqual(Array(MAX_SENDS).fill(500));
  // Every attempt re-sent the same event.
  expect(new Set(receiver.requests.map((r) => r.json.id)).size).toBe(1);
});

test("10 consecutive failed deliveries deactivate the webhook; a success in between resets the count", async () => {
  receiver = await startReceiver();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  app = await startAppliance({ clock, scheduler: false, env: { ...LAN, CLIPYARD_TIME_SCALE: "1" } });
  const key = app.key("wh-deactivate");
  const hook = await register(key);
  const jobs = async (n: number) => {
    for (let i = 0; i < n; i++) await app.api("POST", "/v1/jobs", { key, body: failingJob });
    clock.advance(71_000);
    app.scheduler.tick();
    app.scheduler.tick();
  };
  /** Runs the worker until no delivery is pending, jumping the clock to each due time. */
  const exhaust = async () => {
    for (let i = 0; i < 500; i++) {
      await app.deliveries.tick();
      const next = nextDeliveryDueAt(app.ctx.db);
      if (next === undefined) return;
      clock.set(Math.max(clock.now(), next));
    }
    throw new Error("deliveries never settled");
  };
  const state = async () => (await app.api("GET", "/v1/webhooks", { key })).json.data[0];

  receiver.answer([], 500);
  await jobs(9);
  await exhaust();
  expect(await state()).toMatchObject({ status: "active", consecutive_failures: 9 });
  receiver.answer([], 200);
  await jobs(1);
  await app.deliveries.tick();
  expect(await state()).toMatchObject({ status: "active", consecutive_failures: 0 });
  receiver.answer([], 500);
  await jobs(DEACTIVATE_AFTER);
  await exhaust();
  expect(await state()).toMatchObject({ status: "disabled", consecutive_failures: DEACTIVATE_AFTER });
  const before = receiver.requests.length;
  await jobs(1);
  await exhaust();
  expect(receiver.requests.length).toBe(before); // a deactivated webhook gets nothing
  expect((await app.api("POST", `/v1/webhooks/${hook.id}/test`, { key })).json.error.code).toBe("webhook_disabled");
});

test("a delivery cut off by a crash is sent again once its lease lapses, never lost", async () => {
  receiver = await startReceiver();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  app = await startAppliance({ clock, scheduler: false, env: { ...LAN, CLIPYARD_TIME_SCALE: "1" } });
  const key = app.key("wh-crash");
  await register(key);
  await app.api("POST", "/v1/jobs", { key, body: failingJob });
  clock.advance(71_000);
  app.scheduler.tick();
  app.scheduler.tick();
  // The outbox committed with the transition: one pending delivery before any worker ran.
  const pending = () => app.ctx.db.$client.query("SELECT status, lease_owner FROM deliveries").all() as any[];
  expect(pending()).toEqual([{ status: "pending", lease_owner: null }]);
  // A worker claims it and dies before recording anything.
  const { claimDueDeliveries } = await import("../../src/webhooks/store.ts");
  expect(claimDueDeliveries(app.ctx.db, "dead-worker", clock.now(), 15_000, 10).length).toBe(1);
  await app.deliveries.tick();
  expect(receiver.requests.length).toBe(0); // still leased to the dead worker
  clock.advance(15_001);
  await app.deliveries.tick();
  expect(receiver.requests.length).toBe(1);
  expect(pending()[0].status).toBe("succeeded");
});

test("SSRF: loopback targets are refused at registration and at connect time unless allowed", async () => {
  receiver = await startReceiver();
  app = await startAppliance({ env: { CLIPYARD_ALLOW_HTTP: "1" } });
  const key = app.key("wh-ssrf");
  for (const url of [receiver.url(), "http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/", "ftp://example.com/"]) {
    const res = await app.api("POST", "/v1/webhooks", { key, body: { url, events: ["job.failed"] } });
    expect(res.json.error).toMatchObject({ code: "invalid_webhook_url", param: "url" });
  }
  // A name that resolves to loopback passes registration but is refused when connecting.
  const port = new URL(receiver.url()).port;
  const outcome = await app.deliveries.send(`http://localhost:${port}/hook`, "whsec_x", "{}", { id: "dlv_x", eventId: "evt_x" });
  expect(outcome.ok).toBe(false);
  expect(outcome.error).toMatch(/loopback/);
  expect(receiver.requests.length).toBe(0);
});

test("invalid_events for empty, unknown and mixed lists", async () => {
  receiver = await startReceiver();
  app = await startAppliance({ env: LAN });
  const key = app.key("wh-events");
  for (const events of [[], ["job.started"], ["job.completed", "job.nope"], "job.completed"]) {
    const res = await app.api("POST", "/v1/webhooks", { key, body: { url: receiver.url(), events } });
    expect(res.json.error.code).toBe("invalid_events");
    expect(res.status).toBe(400);
  }
});
