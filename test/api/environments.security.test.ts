import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { startFeedServer } from "../helpers/feed-server.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { rawUpload, tusClient } from "../helpers/uploads.ts";
import { makeImage } from "../helpers/images.ts";

const PNG_16 = makeImage({ width: 16, height: 16, format: "png" });

/**
 * Test and live are separate worlds inside one organisation (issue #25, item 2). One organisation
 * holds a sandbox key and a live key; each world gets a job (submitted with the same
 * Idempotency-Key and body), a webhook and deliveries. Every /v1 route of the app's route table must
 * have a case below proving, in both directions, that a key sees only its own world and that the
 * other world's ids answer not_found — a new endpoint without a case fails the coverage test.
 */

type Env = "test" | "live";
interface World {
  env: Env;
  key: string;
  jobId: string;
  webhookId: string;
  deliveryId: string;
  /** A complete raw upload and an unfinished tus upload of this world. */
  uploadId: string;
  tusUrl: string;
  feedId: string;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
}

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "0.002" };
const IDEMPOTENCY_KEY = "same-key-in-both-worlds";
// Sandbox: a "fail" URL ends failed by rule. Live: the metadata address is always refused by the
// fetcher, so the real pipeline fails fast with media_fetch_failed without touching the network.
const BODY = { source: { type: "video_url", url: "https://169.254.169.254/fail.mp4" } };
const OTHER_BODY = { source: { type: "video_url", url: "https://169.254.169.254/another-fail.mp4" } };

let app: TestAppliance;
const worlds = {} as Record<Env, World>;
const other = (w: World) => worlds[w.env === "test" ? "live" : "test"];
const code = (r: { json: any }) => r.json?.error?.code;

async function poll<T>(read: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await Bun.sleep(20);
  }
}

function expectNotFound(res: { status: number; json: any; headers: Headers }, param: string | null = "id") {
  expect(res.status).toBe(404);
  expect(res.json.error).toMatchObject({ type: "invalid_request_error", code: "not_found", param });
  expect(res.json.error.request_id).toBe(res.headers.get("x-request-id"));
}

beforeAll(async () => {
  app = await startAppliance({ env: LAN });
  for (const env of ["test", "live"] as const) {
    const key = app.key("two-worlds", env);
    const receiver = await startReceiver();
    const hook = await app.api("POST", "/v1/webhooks", { key, body: { url: receiver.url(`/${env}`), events: ["job.completed", "job.failed"] } });
    expect(hook.status).toBe(201);
    const job = await app.api("POST", "/v1/jobs", { key, body: BODY, headers: { "idempotency-key": IDEMPOTENCY_KEY } });
    expect(job.status).toBe(202);
    // Nothing listens on port 9: the feed's polls fail at once, and it still has to stay in its world.
    const feed = await app.api("POST", "/v1/feeds", { key, body: { url: `http://127.0.0.1:9/${env}.xml` } });
    expect(feed.status).toBe(201);
    const upload = await rawUpload(app, key, new Uint8Array(64));
    expect(upload.status).toBe(201);
    const tus = await tusClient(app, key).create(128);
    expect(tus.status).toBe(201);
    worlds[env] = { env, key, jobId: job.json.id, webhookId: hook.json.id, deliveryId: "", uploadId: upload.json.id, tusUrl: new URL(tus.headers.get("location")!, app.baseUrl).href, feedId: feed.json.id, receiver };
  }
  // Both jobs end failed; each world's webhook gets its own job's event and nothing else.
  for (const w of Object.values(worlds)) {
    await poll(() => app.api("GET", `/v1/jobs/${w.jobId}`, { key: w.key }), (r) => r.json.status === "failed");
    const list = await poll(
      () => app.api("GET", `/v1/webhooks/${w.webhookId}/deliveries`, { key: w.key }),
      (r) => r.json.data.length > 0 && r.json.data[0].status === "succeeded",
    );
    w.deliveryId = list.json.data[0].id;
  }
}, 60_000);

afterAll(async () => {
  await app.stop();
  for (const w of Object.values(worlds)) w.receiver.stop();
});

test("the same Idempotency-Key in both worlds makes two jobs; a retry in each world replays its own", async () => {
  expect(worlds.test.jobId).not.toBe(worlds.live.jobId);
  for (const w of Object.values(worlds)) {
    const again = await app.api("POST", "/v1/jobs", { key: w.key, body: BODY, headers: { "idempotency-key": IDEMPOTENCY_KEY } });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json).toMatchObject({ id: w.jobId, livemode: w.env === "live" });
  }
});

test("a webhook receives only its own world's job events", async () => {
  for (const w of Object.values(worlds)) {
    const events = w.receiver.requests.map((r) => r.json);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.data.object.livemode).toBe(w.env === "live");
      expect(e.data.object.id).not.toBe(other(w).jobId);
    }
    const error = w.env === "live" ? "media_fetch_failed" : "transcription_failed";
    expect(events[0]).toMatchObject({ type: "job.failed", data: { object: { id: w.jobId, error: { code: error } } } });
  }
});

test("a test event never borrows the other world's job: a live webhook in an org with only sandbox jobs has none", async () => {
  const sandbox = app.key("sandbox-jobs-only", "test");
  const live = app.key("sandbox-jobs-only", "live");
  expect((await app.api("POST", "/v1/jobs", { key: sandbox, body: BODY })).status).toBe(202);
  const hook = (await app.api("POST", "/v1/webhooks", { key: live, body: { url: "https://hooks.example.com/x", events: ["job.completed"] } })).json;
  const res = await app.api("POST", `/v1/webhooks/${hook.id}/test`, { key: live });
  expect(res.status).toBe(409);
  expect(res.json.error.code).toBe("no_job_for_test_event");
});

/** One case per route; each runs twice, from the sandbox world and from the live world. */
const cases: Record<string, (w: World) => Promise<void>> = {
  "GET /v1/jobs": async (w) => {
    const list = await app.api("GET", "/v1/jobs?limit=100", { key: w.key });
    expect(list.status).toBe(200);
    expect(list.json.data.map((j: any) => j.id)).toContain(w.jobId);
    expect(list.json.data.map((j: any) => j.id)).not.toContain(other(w).jobId);
    expect(list.json.data.every((j: any) => j.livemode === (w.env === "live"))).toBe(true);
    // A cursor from the other world is no cursor here.
    const foreign = await app.api("GET", `/v1/jobs?starting_after=${other(w).jobId}`, { key: w.key });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toMatchObject({ code: "invalid_parameter", param: "starting_after" });
  },
  "GET /v1/jobs/:id": async (w) => {
    expect((await app.api("GET", `/v1/jobs/${w.jobId}`, { key: w.key })).json).toMatchObject({ id: w.jobId, livemode: w.env === "live" });
    expectNotFound(await app.api("GET", `/v1/jobs/${other(w).jobId}`, { key: w.key }));
  },
  "POST /v1/jobs": async (w) => {
    // The other world's Idempotency-Key record is not this world's: a different body is no conflict.
    const key = `${w.env}-only-key`;
    const mine = await app.api("POST", "/v1/jobs", { key: w.key, body: BODY, headers: { "idempotency-key": key } });
    const theirs = await app.api("POST", "/v1/jobs", {
      key: other(w).key,
      body: OTHER_BODY,
      headers: { "idempotency-key": key },
    });
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(mine.json.livemode).toBe(w.env === "live");
    expect(theirs.json.livemode).toBe(w.env !== "live");
    for (const [k, id] of [[w.key, theirs.json.id], [other(w).key, mine.json.id]] as const) expectNotFound(await app.api("GET", `/v1/jobs/${id}`, { key: k }));
  },
  "POST /v1/jobs/:id/clips/:clip_id/renders": async (w) => {
    // The other world's job is an unknown id; this world's (failed) job is found but has no clips.
    expectNotFound(await app.api("POST", `/v1/jobs/${other(w).jobId}/clips/clip_x/renders`, { key: w.key, body: { caption_style: "boxed" } }));
    const mine = await app.api("POST", `/v1/jobs/${w.jobId}/clips/clip_x/renders`, { key: w.key, body: { caption_style: "boxed" } });
    expect(mine.status).toBe(409);
    expect(mine.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  },
  "POST /v1/jobs/:id/transcript/corrections": async (w) => {
    const body = { replace: [{ find: "shelter", with: "stop" }] };
    expectNotFound(await app.api("POST", `/v1/jobs/${other(w).jobId}/transcript/corrections`, { key: w.key, body }));
    const mine = await app.api("POST", `/v1/jobs/${w.jobId}/transcript/corrections`, { key: w.key, body });
    expect(mine.status).toBe(409);
    expect(mine.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  },
  "POST /v1/jobs/:id/clips": async (w) => {
    expectNotFound(await app.api("POST", `/v1/jobs/${other(w).jobId}/clips`, { key: w.key, body: { start_time: 1, end_time: 20 } }));
    const mine = await app.api("POST", `/v1/jobs/${w.jobId}/clips`, { key: w.key, body: { start_time: 1, end_time: 20 } });
    expect(mine.status).toBe(409);
    expect(mine.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  },
  "DELETE /v1/jobs/:id/clips/:clip_id": async (w) => {
    expectNotFound(await app.api("DELETE", `/v1/jobs/${other(w).jobId}/clips/clip_x`, { key: w.key }));
    const mine = await app.api("DELETE", `/v1/jobs/${w.jobId}/clips/clip_x`, { key: w.key });
    expect(mine.status).toBe(409);
    expect(mine.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  },
  "POST /v1/webhooks": async (w) => {
    const created = await app.api("POST", "/v1/webhooks", { key: w.key, body: { url: "https://hooks.example.com/x", events: ["job.failed"] } });
    expect(created.status).toBe(201);
    expect(created.json.livemode).toBe(w.env === "live");
    const ids = (await app.api("GET", "/v1/webhooks", { key: other(w).key })).json.data.map((h: any) => h.id);
    expect(ids).not.toContain(created.json.id);
    expect((await app.api("DELETE", `/v1/webhooks/${created.json.id}`, { key: w.key })).status).toBe(200);
  },
  "GET /v1/webhooks": async (w) => {
    const list = await app.api("GET", "/v1/webhooks", { key: w.key });
    expect(list.json.data.map((h: any) => h.id)).toContain(w.webhookId);
    expect(list.json.data.map((h: any) => h.id)).not.toContain(other(w).webhookId);
    expect(list.json.data.every((h: any) => h.livemode === (w.env === "live"))).toBe(true);
  },
  "DELETE /v1/webhooks/:id": async (w) => {
    expectNotFound(await app.api("DELETE", `/v1/webhooks/${other(w).webhookId}`, { key: w.key }));
    // Still there, still active, for its own world.
    const theirs = (await app.api("GET", "/v1/webhooks", { key: other(w).key })).json.data;
    expect(theirs.find((h: any) => h.id === other(w).webhookId)?.status).toBe("active");
  },
  "POST /v1/webhooks/:id/test": async (w) => {
    expectNotFound(await app.api("POST", `/v1/webhooks/${other(w).webhookId}/test`, { key: w.key }));
    const sent = await app.api("POST", `/v1/webhooks/${w.webhookId}/test`, { key: w.key });
    expect(sent.status).toBe(202);
    const req = await poll(() => w.receiver.requests.find((r) => r.json?.request_id === sent.json.request_id), (r) => r !== undefined);
    // Built from the most recent job of the webhook's own world, never the other world's.
    expect(req!.json.data.object.livemode).toBe(w.env === "live");
    expect(req!.json.data.object.id).not.toBe(other(w).jobId);
  },
  "GET /v1/webhooks/:id/deliveries": async (w) => {
    expectNotFound(await app.api("GET", `/v1/webhooks/${other(w).webhookId}/deliveries`, { key: w.key }));
    const mine = await app.api("GET", `/v1/webhooks/${w.webhookId}/deliveries`, { key: w.key });
    expect(mine.json.data.map((d: any) => d.id)).toContain(w.deliveryId);
    expect(mine.json.data.map((d: any) => d.id)).not.toContain(other(w).deliveryId);
    const foreignCursor = await app.api("GET", `/v1/webhooks/${w.webhookId}/deliveries?starting_after=${other(w).deliveryId}`, { key: w.key });
    expect(foreignCursor.status).toBe(400);
    expect(foreignCursor.json.error).toMatchObject({ code: "invalid_parameter", param: "starting_after" });
  },
  "POST /v1/webhooks/deliveries/:id/replay": async (w) => {
    expectNotFound(await app.api("POST", `/v1/webhooks/deliveries/${other(w).deliveryId}/replay`, { key: w.key }));
    const replay = await app.api("POST", `/v1/webhooks/deliveries/${w.deliveryId}/replay`, { key: w.key });
    expect(replay.status).toBe(202);
    expect(replay.json.webhook_id).toBe(w.webhookId);
  },
  "POST /v1/uploads": async (w) => {
    // A job may not start from the other world's upload; its own is accepted.
    const foreign = await app.api("POST", "/v1/jobs", { key: w.key, body: { source: { type: "upload", upload_id: other(w).uploadId } } });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toMatchObject({ code: "invalid_upload", param: "source.upload_id" });
    const made = await rawUpload(app, w.key, new Uint8Array(8));
    expect((await app.api("GET", `/v1/uploads/${made.json.id}`, { key: other(w).key })).json.error.code).toBe("not_found");
  },
  "GET /v1/uploads/:id": async (w) => {
    expectNotFound(await app.api("GET", `/v1/uploads/${other(w).uploadId}`, { key: w.key }));
    expect((await app.api("GET", `/v1/uploads/${w.uploadId}`, { key: w.key })).status).toBe(200);
  },
  "HEAD /v1/uploads/:id": async (w) => {
    expect((await tusClient(app, w.key).head(other(w).tusUrl)).status).toBe(404);
    expect((await tusClient(app, w.key).head(w.tusUrl)).status).toBe(200);
  },
  "PATCH /v1/uploads/:id": async (w) => {
    expect((await tusClient(app, w.key).patch(other(w).tusUrl, 0, new Uint8Array(1))).status).toBe(404);
    // The other world's upload did not move.
    expect((await tusClient(app, other(w).key).head(other(w).tusUrl)).headers.get("upload-offset")).toBe("0");
  },
  "DELETE /v1/uploads/:id": async (w) => {
    expect((await tusClient(app, w.key).delete(other(w).tusUrl)).status).toBe(404);
    expect((await tusClient(app, other(w).key).head(other(w).tusUrl)).status).toBe(200);
  },
  "POST /v1/feeds": async (w) => {
    // One podcast registered in both worlds: no conflict across worlds, and each world's registration
    // makes its episode's job in its own world only.
    const host = startFeedServer([{ guid: `only-${w.env}`, url: `https://169.254.169.254/feed-${w.env}-fail.mp3` }]);
    try {
      const mine = await app.api("POST", "/v1/feeds", { key: w.key, body: { url: host.url() } });
      expect(mine.status).toBe(201);
      expect(mine.json.livemode).toBe(w.env === "live");
      expect((await app.api("GET", "/v1/feeds", { key: other(w).key })).json.data.map((f: any) => f.id)).not.toContain(mine.json.id);
      const polled = await poll(
        async () => (await app.api("GET", "/v1/feeds", { key: w.key })).json.data.find((f: any) => f.id === mine.json.id),
        (f) => f.jobs_created === 1,
      );
      expect(polled.livemode).toBe(w.env === "live");
      const job = (await app.api("GET", "/v1/jobs?limit=100", { key: w.key })).json.data.find((j: any) => j.source.url === `https://169.254.169.254/feed-${w.env}-fail.mp3`);
      expect(job.livemode).toBe(w.env === "live");
      expectNotFound(await app.api("GET", `/v1/jobs/${job.id}`, { key: other(w).key }));
      const theirs = await app.api("POST", "/v1/feeds", { key: other(w).key, body: { url: host.url() } });
      expect(theirs.status).toBe(201);
      for (const [k, id] of [[w.key, mine.json.id], [other(w).key, theirs.json.id]] as const) expect((await app.api("DELETE", `/v1/feeds/${id}`, { key: k })).status).toBe(200);
    } finally {
      host.stop();
    }
  },
  "GET /v1/feeds": async (w) => {
    const list = await app.api("GET", "/v1/feeds", { key: w.key });
    expect(list.status).toBe(200);
    expect(list.json.data.map((f: any) => f.id)).toContain(w.feedId);
    expect(list.json.data.map((f: any) => f.id)).not.toContain(other(w).feedId);
    expect(list.json.data.every((f: any) => f.livemode === (w.env === "live"))).toBe(true);
  },
  "DELETE /v1/feeds/:id": async (w) => {
    expectNotFound(await app.api("DELETE", `/v1/feeds/${other(w).feedId}`, { key: w.key }));
    const theirs = (await app.api("GET", "/v1/feeds", { key: other(w).key })).json.data;
    expect(theirs.map((f: any) => f.id)).toContain(other(w).feedId);
  },
  "PUT /v1/vocabulary": async (w) => {
    // Each world keeps its own list: a sandbox key never changes what live jobs hear, nor the other way.
    const mine = `${w.env} name ${Math.random().toString(36).slice(2, 8)}`;
    expect((await app.api("PUT", "/v1/vocabulary", { key: w.key, body: { entries: [mine] } })).status).toBe(200);
    expect((await app.api("GET", "/v1/vocabulary", { key: other(w).key })).json.entries).not.toContain(mine);
  },
  "GET /v1/vocabulary": async (w) => {
    const seen = (await app.api("GET", "/v1/vocabulary", { key: w.key })).json;
    expect(seen.livemode).toBe(w.env === "live");
    await app.api("PUT", "/v1/vocabulary", { key: other(w).key, body: { entries: [`only ${other(w).env}`] } });
    expect((await app.api("GET", "/v1/vocabulary", { key: w.key })).json.entries).not.toContain(`only ${other(w).env}`);
  },
  "PUT /v1/brand": async (w) => {
    // Each world keeps its own kit, and the other world's upload cannot become its logo.
    const mine = w.env === "live" ? "#A1A1A1" : "#B2B2B2";
    expect((await app.api("PUT", "/v1/brand", { key: w.key, body: { accent_color: mine } })).status).toBe(200);
    expect((await app.api("GET", "/v1/brand", { key: other(w).key })).json.accent_color).not.toBe(mine);
    const borrowed = await app.api("PUT", "/v1/brand", { key: w.key, body: { logo_upload_id: other(w).uploadId } });
    expect(borrowed.json.error).toMatchObject({ code: "invalid_body", param: "logo_upload_id" });
  },
  "GET /v1/brand": async (w) => {
    const seen = (await app.api("GET", "/v1/brand", { key: w.key })).json;
    expect(seen.livemode).toBe(w.env === "live");
    const theirs = w.env === "live" ? "#C3C3C3" : "#D4D4D4";
    await app.api("PUT", "/v1/brand", { key: other(w).key, body: { background_color: theirs } });
    expect((await app.api("GET", "/v1/brand", { key: w.key })).json.background_color).not.toBe(theirs);
  },
  "GET /v1/brand/logo": async (w) => {
    // Only the live world's kit has a logo here (its own upload): the sandbox key does not get it.
    if (w.env === "live") {
      const up = await rawUpload(app, w.key, PNG_16);
      expect((await app.api("PUT", "/v1/brand", { key: w.key, body: { logo_upload_id: up.json.id } })).status).toBe(200);
      expect((await fetch(`${app.baseUrl}/v1/brand/logo`, { headers: { authorization: `Bearer ${w.key}` } })).status).toBe(200);
    }
    expectNotFound(await app.api("GET", "/v1/brand/logo", { key: other(w).key }), null);
    await app.api("PUT", "/v1/brand", { key: w.key, body: {} });
  },
  "GET /v1/wallet": async (w) => {
    const wallet = await app.api("GET", "/v1/wallet", { key: w.key });
    expect(wallet.status).toBe(200);
    expect(wallet.json.livemode).toBe(w.env === "live");
    // Live jobs hold free-tier slots; the sandbox wallet knows nothing of the live one.
    if (w.env === "test") expect(wallet.json).toMatchObject({ balance_cents: 0, held_cents: 0, free_jobs_remaining: 0, lots: [] });
    else expect(wallet.json.free_jobs_remaining).toBeLessThanOrEqual(3);
  },
};

/** Routes that carry no organisation data, so have nothing to isolate. */
const PUBLIC_ROUTES = new Set(["GET /v1/openapi.json", "OPTIONS /v1/uploads" /* tus discovery: the server's capabilities */]);

test("every /v1 route of the app has an isolation case (a new endpoint must add one)", () => {
  const routes = app.http.routes.filter((r) => r.path.startsWith("/v1/")).map((r) => `${r.method} ${r.path}`);
  expect(routes.length).toBeGreaterThanOrEqual(10);
  expect(routes.filter((r) => !PUBLIC_ROUTES.has(r)).sort()).toEqual(Object.keys(cases).sort());
});

for (const [route, check] of Object.entries(cases)) {
  test(`${route}: each key sees only its own world`, async () => {
    await check(worlds.test);
    await check(worlds.live);
  });
}
