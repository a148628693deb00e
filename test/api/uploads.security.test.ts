import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/clock.ts";
import { uploadFilePath, uploadsDir } from "../../src/pipeline/acquire.ts";
import { sweepExpiredUploads } from "../../src/uploads/store.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { rawRequest, rawUpload, tusClient } from "../helpers/uploads.ts";

/**
 * Uploads are scoped to the organisation and the key's environment: another organisation's id, a
 * live key's view of a sandbox upload and an expired id all read as unknown, everywhere.
 */
const clock = new ManualClock(Date.now());
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ clock, scheduler: false });
});
afterAll(() => app.stop());

const DAY = 24 * 3600 * 1000;

test("another organisation's or environment's upload is unknown: job, GET, HEAD, PATCH, DELETE", async () => {
  const owner = app.key("up-sec-a");
  const upload = (await rawUpload(app, owner, new Uint8Array(100))).json;
  const url = `${app.baseUrl}/v1/uploads/${upload.id}`;
  for (const other of [app.key("up-sec-b"), app.key("up-sec-a", "live")]) {
    const job = await app.api("POST", "/v1/jobs", { key: other, body: { source: { type: "upload", upload_id: upload.id } } });
    expect(job.json.error).toMatchObject({ code: "invalid_upload", param: "source.upload_id" });
    expect((await app.api("GET", `/v1/uploads/${upload.id}`, { key: other })).json.error.code).toBe("not_found");
    const tus = tusClient(app, other);
    expect((await tus.head(url)).status).toBe(404);
    expect((await tus.patch(url, 100, new Uint8Array(1))).status).toBe(404);
    expect((await tus.delete(url)).status).toBe(404);
  }
  expect(existsSync(uploadFilePath(app.dataDir, upload.id))).toBe(true);
  expect((await app.api("GET", `/v1/uploads/${upload.id}`, { key: owner })).status).toBe(200);
});

test("an expired upload is refused like an unknown one, then swept from disk by the scheduler", async () => {
  const key = app.key("up-sec-exp");
  const upload = (await rawUpload(app, key, new Uint8Array(100))).json;
  clock.advance(DAY + 1);
  expect((await app.api("POST", "/v1/jobs", { key, body: { source: { type: "upload", upload_id: upload.id } } })).json.error.code).toBe("invalid_upload");
  expect((await app.api("GET", `/v1/uploads/${upload.id}`, { key })).status).toBe(404);
  // The scheduler's housekeeping runs the sweep.
  expect(existsSync(uploadFilePath(app.dataDir, upload.id))).toBe(true);
  app.scheduler.tick();
  expect(existsSync(uploadFilePath(app.dataDir, upload.id))).toBe(false);
  expect(existsSync(`${uploadFilePath(app.dataDir, upload.id)}.json`)).toBe(false);
});

test("a raw upload's .partial file left by a crash is swept once older than a day", async () => {
  const dir = uploadsDir(app.dataDir);
  const stale = join(dir, "upl_crashed.partial");
  const fresh = join(dir, "upl_inflight.partial");
  writeFileSync(stale, "x");
  writeFileSync(fresh, "x");
  const old = (clock.now() - DAY - 60_000) / 1000;
  utimesSync(stale, old, old);
  const now = clock.now() / 1000;
  utimesSync(fresh, now, now);
  sweepExpiredUploads(app.ctx.db, clock, app.dataDir);
  expect(existsSync(stale)).toBe(false);
  expect(existsSync(fresh)).toBe(true);
});

test("a job waiting for its upload keeps it past the expiry; the sweep leaves it alone", async () => {
  const key = app.key("up-sec-keep");
  const upload = (await rawUpload(app, key, new Uint8Array(100))).json;
  clock.advance(DAY - 1000);
  const job = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "upload", upload_id: upload.id } } });
  expect(job.status).toBe(202);
  clock.advance(2000);
  // Past the first expiry: the submission pushed it a day out, and the queued job still needs it.
  expect((await app.api("GET", `/v1/uploads/${upload.id}`, { key })).status).toBe(200);
  clock.advance(DAY * 2);
  expect(sweepExpiredUploads(app.ctx.db, clock, app.dataDir)).not.toContain(upload.id);
  expect(existsSync(uploadFilePath(app.dataDir, upload.id))).toBe(true);
});

test("a raw upload of 256 MiB is streamed to disk, never held in memory", async () => {
  // The appliance in a process of its own, so its peak memory (VmHWM) is the upload's alone and not
  // the test runner's, whose heap moves with every other test in the run.
  const server = new ServerProcess(freePort());
  await server.start();
  try {
    const key = await server.cli("keys", "create", "--org", "up-sec-mem", "--env", "test");
    const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.proc!.pid}/status`, "utf8"))![1]) * 1024;
    const before = peak();
    const chunk = new Uint8Array(1024 * 1024).fill(7);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 256) return c.close();
        sent++;
        c.enqueue(chunk);
      },
    });
    const res = await fetch(`${server.baseUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" }, body: stream });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { size: number }).size).toBe(256 * 1024 * 1024);
    // Held in memory, the peak would grow by at least the upload's 256 MiB.
    expect(peak() - before).toBeLessThan(96 * 1024 * 1024);
  } finally {
    await server.kill9();
  }
}, 180_000);

/**
 * Upload takeover (issue 36): the access check authorised the id in the route's path while tus took
 * the last `/` segment of the whole URL, query included, so `/v1/uploads/<own>?/<victim>` read,
 * overwrote, completed or deleted the victim's upload. Every tus request must act on the id the
 * check authorised, and any URL that is not exactly `/v1/uploads/<id>` is refused.
 */
test("tus HEAD/PATCH/DELETE on a crafted URL never reach another organisation's or environment's upload", async () => {
  const attacker = app.key("up-take-a");
  const victims = [
    { who: "another organisation", key: app.key("up-take-b") },
    { who: "the attacker's organisation, live", key: app.key("up-take-a", "live") },
  ];
  const ownUrl = (await tusClient(app, attacker).create(10, { filename: "mine.mp3" })).headers.get("location")!;
  const own = ownUrl.split("/").pop()!;
  for (const { who, key } of victims) {
    const victimUrl = (await tusClient(app, key).create(10, { filename: "victim-secret.mp3" })).headers.get("location")!;
    const victim = victimUrl.split("/").pop()!;
    const shapes = [
      `/v1/uploads/${own}?/${victim}`,
      `/v1/uploads/${own}?x=/${victim}`,
      `/v1/uploads/${own}?`,
      `/v1/uploads/${own}#/${victim}`,
      `/v1/uploads/${own}%2F${victim}`,
      `/v1/uploads/${own}%2f..%2f${victim}`,
      // Bun resolves dot segments before the app sees the URL, so `${victim}/../${own}` is simply the
      // attacker's own upload; this one becomes the victim's URL, which the attacker may not touch.
      `/v1/uploads/${own}/../${victim}`,
      `/v1/uploads/${own}/.%2e/${victim}`,
      `/v1/uploads/${own}/${victim}`,
      `/v1/uploads/${own}/`,
    ];
    const tus = { authorization: `Bearer ${attacker}`, "tus-resumable": "1.0.0" };
    for (const target of shapes) {
      for (const [method, headers, body] of [
        ["HEAD", tus, undefined],
        ["PATCH", { ...tus, "upload-offset": "0", "content-type": "application/offset+octet-stream" }, new Uint8Array(10).fill(0x41)],
        ["DELETE", tus, undefined],
      ] as const) {
        const res = await rawRequest(app, method, target, headers, body);
        const label = `${method} ${target} (victim: ${who}) -> ${res.status}`;
        // 404 from the upload routes; a target the router cannot place at all may read as 405.
        expect({ label, refused: [404, 405].includes(res.status) }).toEqual({ label, refused: true });
        expect(res.headers["upload-length"]).toBeUndefined();
        expect(res.headers["upload-metadata"]).toBeUndefined();
        expect(res.headers["x-request-id"]).toMatch(/^req_/);
        if (method !== "HEAD") expect(JSON.parse(res.body).error).toMatchObject({ code: res.status === 404 ? "not_found" : "method_not_allowed", request_id: res.headers["x-request-id"] });
      }
    }
    // The victim's upload is untouched: still there, still empty, still receiving, its own bytes to send.
    const check = await tusClient(app, key).head(victimUrl);
    expect(check.status).toBe(200);
    expect(check.headers.get("upload-offset")).toBe("0");
    expect(existsSync(uploadFilePath(app.dataDir, victim))).toBe(true);
    expect((await app.api("GET", `/v1/uploads/${victim}`, { key })).json).toMatchObject({ status: "receiving", received_bytes: 0 });
  }
  // The attacker's own upload, by its plain URL, still works for every verb.
  const mine = tusClient(app, attacker);
  expect((await mine.head(ownUrl)).headers.get("upload-offset")).toBe("0");
  expect((await mine.patch(ownUrl, 0, new Uint8Array(10))).status).toBe(204);
  expect((await mine.delete(ownUrl)).status).toBe(204);
});

test("an unfinished tus upload expires 6 h after its last bytes (each PATCH renews it) and is swept with its files; complete, it keeps 24 h", async () => {
  const key = app.key("up-sec-unfinished");
  const tus = tusClient(app, key);
  const HOUR = 3600 * 1000;
  const created = await tus.create(20);
  const url = created.headers.get("location")!;
  const id = url.split("/").pop()!;
  const body = (await created.json()) as any;
  expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(6 * HOUR);
  clock.advance(5 * HOUR);
  expect((await tus.patch(url, 0, new Uint8Array(10))).status).toBe(204);
  clock.advance(5 * HOUR); // 10 h after creation, 5 h after the last bytes: still there
  expect((await app.api("GET", `/v1/uploads/${id}`, { key })).json).toMatchObject({ status: "receiving", received_bytes: 10 });
  clock.advance(HOUR + 1);
  expect((await tus.head(url)).status).toBe(404);
  app.scheduler.tick();
  expect(existsSync(uploadFilePath(app.dataDir, id))).toBe(false);
  expect(existsSync(`${uploadFilePath(app.dataDir, id)}.json`)).toBe(false);

  // Finished, the upload gets the full day from its completion.
  const other = (await tus.create(10)).headers.get("location")!;
  clock.advance(5 * HOUR);
  expect((await tus.patch(other, 0, new Uint8Array(10))).status).toBe(204);
  clock.advance(23 * HOUR);
  expect((await app.api("GET", `/v1/uploads/${other.split("/").pop()}`, { key })).json.status).toBe("complete");
});
