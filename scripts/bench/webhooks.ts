#!/usr/bin/env bun
/**
 * Webhook delivery: completion-to-delivery latency (job becomes terminal -> the receiver has the
 * signed event) and delivery throughput to a local receiver, through the real outbox, worker and
 * HTTP. Usage: bun scripts/bench/webhooks.ts [jobs=300]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createKey } from "../../src/accounts/keys.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { buildAppliance } from "../../src/appliance.ts";
import { systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { setLogLevel } from "../../src/log.ts";
import { submitJob } from "../../src/jobs/submit.ts";
import { registerWebhook } from "../../src/webhooks/service.ts";
import { median, table } from "./load.ts";

const N = Number(process.argv[2] ?? 300);
setLogLevel("error");
const dir = mkdtempSync(join(tmpdir(), "clipyard-bench-wh-"));
const arrivals = new Map<string, number>();
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const ev = await req.json();
    arrivals.set(ev.data.object.id, performance.timeOrigin + performance.now());
    return new Response("ok");
  },
});
const app = buildAppliance(loadConfig({ CLIPYARD_DATA_DIR: dir, CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" }));
app.deliveries.start();
const org = ensureOrg(app.ctx.db, "bench", systemClock);
createKey(app.ctx.db, org.id, "test", systemClock);
registerWebhook(app.ctx.webhooks, { orgId: org.id, env: "test" }, `http://127.0.0.1:${receiver.port}/hook`, ["job.failed"]);

const newJob = () =>
  submitJob(app.ctx.db, systemClock, { orgId: org.id, env: "test" }, { source: { type: "video_url", url: "https://e.com/fail.mp4" } }, { requestId: "req_bench", timeScale: 1 }).job.id;
const fail = (id: string) => app.ctx.transitions.fail(id, "transcription_failed", "bench", { from: ["queued", "processing"] });
const waitAll = async (ids: string[]) => {
  while (!ids.every((id) => arrivals.has(id))) await Bun.sleep(1);
};

// Latency: one job at a time, so each delivery is measured alone.
const latencies: number[] = [];
for (let i = 0; i < Math.min(N, 200); i++) {
  const id = newJob();
  const t0 = performance.timeOrigin + performance.now();
  fail(id);
  await waitAll([id]);
  latencies.push(arrivals.get(id)! - t0);
}
latencies.sort((a, b) => a - b);

// Throughput: N jobs become terminal at once; time until the receiver has every event.
const ids = Array.from({ length: N }, newJob);
const t0 = performance.now();
for (const id of ids) fail(id);
await waitAll(ids);
const seconds = (performance.now() - t0) / 1000;

console.log(`webhooks: ${N} deliveries, ${cpus().length} cores (${cpus()[0]?.model}), bun ${Bun.version}, receiver on loopback`);
console.log(
  table([
    { measure: "completion -> delivered, p50 (ms)", value: median(latencies) },
    { measure: "completion -> delivered, p99 (ms)", value: latencies[Math.floor(latencies.length * 0.99)]! },
    { measure: `burst of ${N}: deliveries per second`, value: Math.round(N / seconds) },
  ]),
);
await app.deliveries.stop();
receiver.stop(true);
app.ctx.db.$client.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
