#!/usr/bin/env bun
/**
 * The README's first command: starts the appliance, serves the bundled sample episode from a local
 * media server, submits it as a live job, follows it to `complete` and prints what came out. The
 * appliance keeps running afterwards so the share page can be opened; Ctrl-C stops it.
 *   bun scripts/demo.ts [--exit]
 */
import { spawn } from "bun";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { serveFile } from "../src/web/files.ts";
import { SHOW_VOCABULARY } from "./fixtures/sandbox-script.ts";

const ROOT = resolve(import.meta.dir, "..");
const SAMPLE = join(ROOT, "fixtures", "sample", "rooftop-hours.m4a");
const port = Number(process.env.CLIPYARD_PORT ?? 8787);
const dataDir = resolve(process.env.CLIPYARD_DATA_DIR ?? join(ROOT, "data", "demo"));
mkdirSync(dataDir, { recursive: true });

const media = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => serveFile(SAMPLE, req) });
const sampleUrl = `http://127.0.0.1:${media.port}/rooftop-hours.m4a`;
// The sample is served on loopback, so this appliance is told it may fetch from the LAN.
const env = { ...process.env, CLIPYARD_PORT: String(port), CLIPYARD_DATA_DIR: dataDir, CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_LOG_LEVEL: "warn" };
const base = `http://127.0.0.1:${port}`;

const server = spawn(["bun", "run", join(ROOT, "src/main.ts"), "serve"], { env, stdout: "inherit", stderr: "inherit" });
const stop = () => {
  server.kill();
  media.stop(true);
};
process.on("SIGINT", () => (stop(), process.exit(130)));
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/healthz`)).ok) break;
  } catch {}
  if (i > 100) throw new Error(`the appliance did not start on ${base} (is the port taken? set CLIPYARD_PORT)`);
  await Bun.sleep(100);
}
const key = (await new Response(spawn(["bun", "run", join(ROOT, "src/main.ts"), "keys", "create", "--org", "demo", "--env", "live"], { env, stdout: "pipe" }).stdout).text()).trim();
console.log(`appliance: ${base}   (live key for org "demo": ${key})`);
console.log(`submitting the bundled sample (${sampleUrl}) as a live job, with the show's vocabulary (${SHOW_VOCABULARY.join(", ")})…`);

const api = async (method: string, path: string, body?: unknown) =>
  (await fetch(base + path, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;
let job = await api("POST", "/v1/jobs", { source: { type: "video_url", url: sampleUrl }, options: { caption_style: "bold", vocabulary: SHOW_VOCABULARY } });
if (job.error) {
  console.error(`submission refused: ${job.error.code}: ${job.error.message}`);
  // The demo keeps its data (and the "demo" organisation's wallet) between runs in dataDir; once
  // the free jobs are used, the operator credits the wallet or starts from an empty data folder.
  if (job.error.code === "insufficient_balance") {
    console.error(`the "demo" organisation has used its free jobs: credit it with\n  bun run src/main.ts credits grant --org demo --amount 5 --note demo\n(with CLIPYARD_DATA_DIR=${dataDir}), or delete ${dataDir} and run the demo again`);
  }
  stop();
  process.exit(1);
}
const t0 = performance.now();
let last = "";
while (job.status === "queued" || job.status === "processing") {
  await Bun.sleep(1000);
  job = await api("GET", `/v1/jobs/${job.id}`);
  const line = job.progress ? `${job.status}: ${job.progress.stage} ${job.progress.percent}%` : job.status;
  if (line !== last) console.log(`  ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s  ${line}`);
  last = line;
}
if (job.status !== "complete") {
  console.error(`job ${job.id} failed: ${job.error.code}: ${job.error.message}`);
  stop();
  process.exit(1);
}
console.log(`\njob ${job.id} complete in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
for (const c of job.output.clips) {
  console.log(`#${c.rank} [${c.category}] ${c.start_time.toFixed(1)}-${c.end_time.toFixed(1)} s  "${c.hook}"`);
  console.log(`    9:16 ${c.rendered_urls.linkedin}\n    16:9 ${c.rendered_urls.x}`);
}
console.log(`\nshow notes:\n${job.output.show_notes.split("\n").slice(0, 8).join("\n")}\n…`);
console.log(`\ntranscript: ${job.output.transcript.length} speaker turns; first: ${job.output.transcript[0].speaker}: "${job.output.transcript[0].text.slice(0, 80)}…"`);
console.log(`\nguest share page: ${job.output.guest_share_url}`);
if (process.argv.includes("--exit")) {
  stop();
  process.exit(0);
}
console.log("the appliance keeps running; press Ctrl-C to stop it");
