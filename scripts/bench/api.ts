#!/usr/bin/env bun
/**
 * GET /v1/jobs/{id} through the whole appliance (auth, rate limit, SQLite, serializer) next to a bare
 * Bun.serve handler returning a job-sized JSON body, on the same machine; prints a table and the ratio.
 * Usage: bun scripts/bench/api.ts [seconds=5] [concurrency=32] [rounds=3]; CLIPYARD_DATABASE_URL=postgres://… runs it on PostgreSQL;
 * CLIPYARD_BENCH_KEYS=N spreads the load over N keys (default: enough that no key reaches its 600 reads a minute at 150k req/s);
 * CLIPYARD_BENCH_CPU_PROF=dir writes a CPU profile of the appliance's server process there (bun --cpu-prof).
 */
import { spawn } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median, runLoad, table, type LoadResult } from "./load.ts";

const [seconds = 5, concurrency = 32, rounds = 3] = process.argv.slice(2).map(Number);
const ROOT = resolve(import.meta.dir, "../..");
const port = 18000 + Math.floor(Math.random() * 1000);
const dataDir = mkdtempSync(join(tmpdir(), "clipyard-bench-"));
// With CLIPYARD_DATABASE_URL set, the appliance runs on that PostgreSQL, in a schema of its own per run.
const databaseUrl = process.env.CLIPYARD_DATABASE_URL ? withSchema(process.env.CLIPYARD_DATABASE_URL, `bench_${port}_${Date.now()}`) : undefined;
function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return u.toString();
}
const env = { ...process.env, ...(databaseUrl ? { CLIPYARD_DATABASE_URL: databaseUrl } : {}), CLIPYARD_PORT: String(port), CLIPYARD_DATA_DIR: dataDir, CLIPYARD_LOG_LEVEL: "warn" };
const cli = async (...args: string[]) => (await new Response(spawn(["bun", "run", join(ROOT, "src/main.ts"), ...args], { env, stdout: "pipe" }).stdout).text()).trim();

const profileDir = process.env.CLIPYARD_BENCH_CPU_PROF;
const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(profileDir)}`] : [];
const server = spawn(["bun", ...profile, "run", join(ROOT, "src/main.ts"), "serve"], { env, stdout: "ignore", stderr: "inherit" });
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
  } catch {}
  if (i > 200) throw new Error("server did not start");
  await Bun.sleep(50);
}
// Reads are limited to 600/min per key: spread the load over enough keys that no request is refused,
// sized for up to 150k req/s over every round (a round-robin key sees at most 1/N of the traffic).
const keys: string[] = [];
// CLIPYARD_BENCH_KEYS sets the count instead: far fewer requests per second (PostgreSQL) would
// otherwise send each key once, measuring only a key's first request (its row read whole).
const keyCount = Number(process.env.CLIPYARD_BENCH_KEYS) || Math.ceil((150_000 * seconds * rounds) / 600);
const { openDb } = await import("../../src/db/client.ts");
const { createKey } = await import("../../src/accounts/keys.ts");
const { ensureOrg } = await import("../../src/accounts/orgs.ts");
const { systemClock } = await import("../../src/clock.ts");
const db = openDb({ dataDir, databaseUrl });
const org = ensureOrg(db, "bench", systemClock);
db.$client.transaction(() => {
  for (let i = 0; i < keyCount; i++) keys.push(createKey(db, org.id, "test", systemClock).key);
})();
db.$client.close();
const submitted = await (
  await fetch(`http://127.0.0.1:${port}/v1/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${keys[0]}`, "content-type": "application/json" },
    body: JSON.stringify({ source: { type: "video_url", url: "https://media.example.com/bench.mp4" } }),
  })
).json();
const jobUrl = `http://127.0.0.1:${port}/v1/jobs/${submitted.id}`;
// The sandbox job completes about 25 s after submission and its body grows from ~260 bytes to ~10 KB
// (clips, transcript, exports): measure the finished job, so both servers send the same body all along.
let body = "";
for (let i = 0; ; i++) {
  body = await (await fetch(jobUrl, { headers: { authorization: `Bearer ${keys[1 + (i % (keys.length - 1))]}` } })).text();
  const status = JSON.parse(body).status;
  if (status === "complete" || status === "failed") break;
  if (i > 600) throw new Error(`the bench job is still ${status} after 120 s`);
  await Bun.sleep(200);
}

// The bare server runs in its own process too, so both sides pay the same process boundary.
const barePort = port + 1;
const bare = spawn(
  ["bun", "-e", `const b = ${JSON.stringify(body)}; Bun.serve({ port: ${barePort}, hostname: "127.0.0.1", fetch: () => new Response(b, { headers: { "content-type": "application/json" } }) });`],
  { stdout: "ignore", stderr: "inherit" },
);
await Bun.sleep(500);
const bareUrl = `http://127.0.0.1:${barePort}/v1/jobs/${submitted.id}`;

const healthUrl = `http://127.0.0.1:${port}/healthz`;
// CPU time each server process spent per request (user + system, from /proc): unlike req/s, this
// hardly moves with what else the machine is running, so it compares runs on a shared VM.
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
};
const cpuPerRequest = { appliance: [] as number[], bare: [] as number[] };
async function measured(pid: number, into: number[], load: () => Promise<LoadResult>): Promise<LoadResult> {
  const before = cpuMs(pid);
  const r = await load();
  into.push(((cpuMs(pid) - before) * 1000) / r.requests);
  return r;
}
const results = { appliance: [] as number[], bare: [] as number[], health: [] as number[], p99a: [] as number[], p99b: [] as number[], p99h: [] as number[] };
let k = 0;
for (let r = 0; r < rounds; r++) {
  const a = await measured(server.pid, cpuPerRequest.appliance, () => runLoad(() => new Request(jobUrl, { headers: { authorization: `Bearer ${keys[k++ % keys.length]}` } }), { concurrency, seconds }));
  if (a.errors) throw new Error(`${a.errors} non-200 answers from the appliance; first: ${a.firstError}`);
  // Every server gets the same request (an authorization header included), so the load generator,
  // which shares this machine's cores, does the same work on each side.
  const b = await measured(bare.pid, cpuPerRequest.bare, () => runLoad(() => new Request(bareUrl, { headers: { authorization: `Bearer ${keys[k++ % keys.length]}` } }), { concurrency, seconds }));
  const h = await runLoad(() => new Request(healthUrl, { headers: { authorization: `Bearer ${keys[k++ % keys.length]}` } }), { concurrency, seconds });
  results.health.push(h.rps);
  results.p99h.push(h.p99);
  results.appliance.push(a.rps);
  results.p99a.push(a.p99);
  results.bare.push(b.rps);
  results.p99b.push(b.p99);
}
server.kill();
bare.kill();
await server.exited; // the profile is written as the server exits
await bare.exited;
// The appliance's data folder (its SQLite file and thousands of keys) is this run's alone.
rmSync(dataDir, { recursive: true, force: true });
const ra = median(results.appliance);
const rb = median(results.bare);
console.log(`GET /v1/jobs/{id} (${databaseUrl ? "PostgreSQL" : "SQLite"}, ${body.length}-byte body): ${rounds} rounds × ${seconds} s, ${concurrency} connections, ${keyCount} keys, ${cpus().length} cores (${cpus()[0]?.model}), bun ${Bun.version}`);
console.log(
  table([
    { server: `clipyard (Elysia + auth + rate limit + ${databaseUrl ? "PostgreSQL" : "SQLite"})`, "req/s (median)": Math.round(ra), "p99 ms (median)": median(results.p99a), "server CPU µs/request": median(cpuPerRequest.appliance) },
    { server: "clipyard GET /healthz (Elysia, no auth)", "req/s (median)": Math.round(median(results.health)), "p99 ms (median)": median(results.p99h), "server CPU µs/request": "" },
    { server: "bare Bun.serve, same body", "req/s (median)": Math.round(rb), "p99 ms (median)": median(results.p99b), "server CPU µs/request": median(cpuPerRequest.bare) },
  ]),
);
console.log(`ratio clipyard / bare: ${(ra / rb).toFixed(2)} (target >= 0.6); server CPU per request, bare / clipyard: ${(median(cpuPerRequest.bare) / median(cpuPerRequest.appliance)).toFixed(2)}; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
process.exit(0);
