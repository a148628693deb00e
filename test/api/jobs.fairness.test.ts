import { afterEach, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { startDrippingServer } from "../helpers/media-server.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * Live workers are shared fairly between organisations (issue 36.4), through the real server with
 * real live workers: sources that drip a byte every half second (never idle long enough for a socket
 * timeout) stand in for a hostile host. One organisation may hold CLIPYARD_MAX_LIVE_JOBS_PER_ORG live
 * jobs in processing (default: half the workers, rounded up); claims go round-robin across
 * organisations; a download bringing under 64 KiB in CLIPYARD_DOWNLOAD_STALL_SECONDS fails with
 * media_fetch_failed, long before the stall watchdog (18 s at the tests' time scale of 0.01).
 */

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_DOWNLOAD_STALL_SECONDS: "2" };
let app: TestAppliance;
let drip: ReturnType<typeof startDrippingServer>;
afterEach(async () => {
  await app?.stop();
  drip?.stop();
});

async function submit(key: string, name: string): Promise<string> {
  const res = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "video_url", url: drip.url(name) } } });
  expect(res.status).toBe(202);
  return res.json.id;
}

const job = async (key: string, id: string) => (await app.api("GET", `/v1/jobs/${id}`, { key })).json;
const reaches = (key: string, id: string, status: string) => eventually(() => job(key, id), (j) => j.status === status, { what: `${id} ${status}` });

async function failsStalled(key: string, id: string) {
  const done = await eventually(() => job(key, id), (j) => j.status === "failed" || j.status === "complete", { what: `${id} terminal`, timeoutMs: 60_000 });
  expect(done.error.code).toBe("media_fetch_failed");
  expect(done.error.message).toContain("the download stalled (CLIPYARD_DOWNLOAD_STALL_SECONDS)");
}

test("two dripping jobs of one organisation hold one of two workers; another organisation's job is claimed at once; the drips fail media_fetch_failed", async () => {
  drip = startDrippingServer(500);
  app = await startAppliance({ env: { ...LAN, CLIPYARD_WORKERS: "2" } });
  expect(app.ctx.config.maxLiveJobsPerOrg).toBe(1);
  const a = app.key("fair-a", "live");
  const b = app.key("fair-b", "live");
  const a1 = await submit(a, "a1.mp4");
  const a2 = await submit(a, "a2.mp4");
  await reaches(a, a1, "processing");
  await eventually(() => drip.open(), (n) => n === 1, { what: "a1 downloading" });
  const b1 = await submit(b, "b1.mp4");
  await reaches(b, b1, "processing");
  // The second worker went to the other organisation; A's second job waits for A's first.
  expect((await job(a, a1)).status).toBe("processing");
  expect((await job(a, a2)).status).toBe("queued");
  await failsStalled(a, a1);
  await failsStalled(b, b1);
  await failsStalled(a, a2);
}, 90_000);

test("claims go round-robin: with one worker, another organisation's job runs before the busy organisation's next", async () => {
  drip = startDrippingServer(500);
  app = await startAppliance({ env: { ...LAN, CLIPYARD_WORKERS: "1" } });
  const a = app.key("rr-a", "live");
  const b = app.key("rr-b", "live");
  const a1 = await submit(a, "a1.mp4");
  const a2 = await submit(a, "a2.mp4");
  await reaches(a, a1, "processing");
  const b1 = await submit(b, "b1.mp4");
  // a2 was queued first, but A was served last: the worker freed by a1's stall goes to B.
  await reaches(b, b1, "processing");
  expect((await job(a, a1)).status).toBe("failed");
  expect((await job(a, a2)).status).toBe("queued");
  await failsStalled(a, a1);
  await failsStalled(b, b1);
  await failsStalled(a, a2);
}, 90_000);
