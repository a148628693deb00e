#!/usr/bin/env bun
/**
 * A cluster on one machine: a throwaway PostgreSQL (scripts/cluster/postgres.sh), one API node
 * (`serve --role api`) and N worker nodes (`serve --role worker`, CLIPYARD_WORKERS=1 each), all on one
 * data folder, a fresh schema per N. For each N: a batch of sandbox jobs (CLIPYARD_TIME_SCALE 0.01)
 * and a small batch of short live jobs (jfk.wav, 11 s of real speech, served over loopback; time scale
 * 1), each on freshly started nodes, timed from the first submission to the last `completed_at`, as
 * jobs completed per minute and the ratio to N=1.
 * Which worker process claimed and finished each job is read from the database: a trigger the bench
 * adds to its own schema records every status or lease change of `jobs` with the connection's
 * application_name (each node connects as clipyard-api, clipyard-w1, …), so nothing is inferred from
 * logs. Then GET /v1/jobs/{id} under the same load (many keys, closed loop) against an `all` node on
 * SQLite and an `all` node on PostgreSQL: requests/s and p99, medians of the rounds, side by side.
 * Every process runs in its own process group and is stopped (SIGTERM, then SIGKILL of the group), and
 * the PostgreSQL server stopped and its folder removed, also on an error or Ctrl-C.
 * Usage: bun scripts/bench/cluster.ts [--quick] [--nodes 1,2,4] [--sandbox-jobs 300] [--live-jobs 4]
 *          [--seconds 5] [--concurrency 32] [--rounds 3] [--no-live] [--no-sandbox] [--no-api]
 *          [--pg-async-commit] [--keep-logs]
 * --quick: nodes 1,2, 100 sandbox jobs, 2 live jobs, 2 rounds of 3 s. --pg-async-commit adds a
 * PostgreSQL node whose connection turns synchronous_commit off (a diagnostic, not a setting to run).
 * --keep-logs keeps the nodes' logs (printed folder). Live jobs need CLIPYARD_MODELS_DIR and
 * CLIPYARD_SPEECH_DIR as the server does, and ../shared/media (or CLIPYARD_SHARED_MEDIA).
 */
import { spawn, type Subprocess } from "bun";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median, numberFlag, runLoad, stringFlag, table } from "./load.ts";
import { testPostgresUrl, stopOwnPostgres } from "../../test/helpers/postgres.ts";
import { freePort } from "../../test/helpers/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const MAIN = join(ROOT, "src/main.ts");
const flag = (name: string) => process.argv.includes(`--${name}`);
const quick = flag("quick");
const nodeCounts = (stringFlag("nodes") ?? (quick ? "1,2" : "1,2,4")).split(",").map(Number);
const sandboxJobs = numberFlag("sandbox-jobs", quick ? 100 : 300);
const liveJobs = numberFlag("live-jobs", quick ? 2 : 4);
const seconds = numberFlag("seconds", quick ? 3 : 5);
const concurrency = numberFlag("concurrency", 32);
const rounds = numberFlag("rounds", quick ? 2 : 3);
const LIVE_FILE = "jfk.wav";
const LIVE_OPTIONS = { clip_count: 1, min_clip_seconds: 5, max_clip_seconds: 15 };
const SHARED_MEDIA = resolve(process.env.CLIPYARD_SHARED_MEDIA ?? join(ROOT, "../shared/media"));
if (nodeCounts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--nodes: a comma-separated list of counts, got ${stringFlag("nodes")}`);

// ---- processes: each node in its own process group, so a stop takes its ffmpeg and speech worker too
interface Node {
  name: string;
  proc: Subprocess;
  log: string;
}
const nodes = new Set<Node>();
const cleanups: Array<() => void | Promise<void>> = [];

function startNode(name: string, args: string[], env: Record<string, string>, log: string): Node {
  // setsid: the node leads a new process group (its pid is the group id).
  const proc = spawn(["setsid", "bun", "run", MAIN, ...args], { env: { ...process.env, ...env }, stdout: "ignore", stderr: Bun.file(log) });
  const node = { name, proc, log };
  nodes.add(node);
  return node;
}

async function stopNode(node: Node): Promise<void> {
  nodes.delete(node);
  // SIGTERM to the node: a worker hands back what it holds; then whatever is left of its group goes.
  try {
    process.kill(node.proc.pid, "SIGTERM");
  } catch {}
  await Promise.race([node.proc.exited, Bun.sleep(10_000)]);
  try {
    process.kill(-node.proc.pid, "SIGKILL");
  } catch {}
  await node.proc.exited;
}

async function stopAll(): Promise<void> {
  await Promise.all([...nodes].map(stopNode));
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c();
    } catch (err) {
      console.error(`cleanup: ${(err as Error).message}`);
    }
  }
}

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping every node and the PostgreSQL server`);
    void stopAll().finally(() => process.exit(130));
  });
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, node?: Node): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch {}
    if (node && node.proc.exitCode !== null) throw new Error(`${node.name} exited (${node.proc.exitCode}) before ${what}:\n${tail(node.log)}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${node ? `:\n${tail(node.log)}` : ""}`);
    await Bun.sleep(100);
  }
}

const tail = (path: string, lines = 20) => (existsSync(path) ? readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n") : "(no log)");
const healthy = (port: number) => async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined);
const workerStarted = (node: Node) => () => (tail(node.log, 1000).includes("clipyard worker started") ? true : undefined);

// ---- the appliance's own stores, for keys, credits and the bench's trigger
const { openDb, postgresOf } = await import("../../src/db/client.ts");
const { createKey } = await import("../../src/accounts/keys.ts");
const { ensureOrg } = await import("../../src/accounts/orgs.ts");
const { grantCredits } = await import("../../src/billing/topups.ts");
const { systemClock } = await import("../../src/clock.ts");

function makeKeys(where: { dataDir: string; databaseUrl?: string }, org: string, env: "test" | "live", count: number, grantCents = 0): string[] {
  const db = openDb(where);
  try {
    const o = ensureOrg(db, org, systemClock);
    const keys: string[] = [];
    db.$client.transaction(() => {
      for (let i = 0; i < count; i++) keys.push(createKey(db, o.id, env, systemClock).key);
    })();
    if (grantCents) grantCredits(db, o.id, grantCents, systemClock.now(), "cluster bench");
    return keys;
  } finally {
    db.$client.close();
  }
}

/**
 * Records who (application_name) moved each job to which status or lease owner, in the bench's schema;
 * and every terminal UPDATE (it sets completed_at) that changed no row: a finish another node had
 * already made, paid for with a cluster-wide write lock all the same.
 */
function installJobTriggers(databaseUrl: string, schema: string): void {
  const db = openDb({ dataDir: "", databaseUrl });
  try {
    postgresOf(db)!.exec(`
      CREATE TABLE "${schema}".bench_job_events (job_id TEXT NOT NULL, env TEXT NOT NULL, from_status TEXT, status TEXT NOT NULL, lease_owner TEXT, app TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());
      CREATE FUNCTION "${schema}".bench_job_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status OR NEW.lease_owner IS DISTINCT FROM OLD.lease_owner THEN
          INSERT INTO "${schema}".bench_job_events (job_id, env, from_status, status, lease_owner, app) VALUES (NEW.id, NEW.env, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.status END, NEW.status, NEW.lease_owner, current_setting('application_name'));
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER bench_job_events AFTER INSERT OR UPDATE ON "${schema}".jobs FOR EACH ROW EXECUTE FUNCTION "${schema}".bench_job_event();
      CREATE TABLE "${schema}".bench_noop_finishes (app TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());
      CREATE FUNCTION "${schema}".bench_noop_finish() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM changed) AND current_query() LIKE '%"completed_at"%' THEN
          INSERT INTO "${schema}".bench_noop_finishes (app) VALUES (current_setting('application_name'));
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER bench_noop_finishes AFTER UPDATE ON "${schema}".jobs REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".bench_noop_finish();`);
  } finally {
    db.$client.close();
  }
}

interface Spread {
  /** Per application_name: claims (queued -> processing with a lease), terminal transitions made. */
  byNode: Map<string, { claims: number; finished: number }>;
  /** Jobs that went back to queued (a lease lapsed or was handed back). */
  requeued: number;
  /** Jobs claimed more than once. */
  reclaimed: number;
  /** Terminal UPDATEs that found the job already terminal (another node finished it first). */
  noopFinishes: number;
}

function readSpread(databaseUrl: string, schema: string, env: "test" | "live", since: number): Spread {
  const db = openDb({ dataDir: "", databaseUrl });
  try {
    const pg = postgresOf(db)!;
    // A claim is queued -> processing with a lease; a sandbox job's finish lease (processing ->
    // processing, leased by the worker that finishes it) is not a second claim.
    const rows = pg.query(`SELECT app, status, lease_owner AS owner, count(*)::int AS n FROM "${schema}".bench_job_events WHERE env = ?1 AND (status <> 'processing' OR from_status IS DISTINCT FROM 'processing') GROUP BY 1, 2, 3`).all(env) as { app: string; status: string; owner: string | null; n: number }[];
    const byNode = new Map<string, { claims: number; finished: number }>();
    const at = (app: string) => byNode.get(app) ?? byNode.set(app, { claims: 0, finished: 0 }).get(app)!;
    let requeued = 0;
    for (const r of rows) {
      if (r.status === "processing" && r.owner) at(r.app).claims += r.n;
      if (r.status === "complete" || r.status === "failed") at(r.app).finished += r.n;
      if (r.status === "queued" && r.app !== "clipyard-api") requeued += r.n;
    }
    const reclaimed = (pg.query(`SELECT count(*)::int AS n FROM (SELECT job_id FROM "${schema}".bench_job_events WHERE env = ?1 AND status = 'processing' AND from_status = 'queued' AND lease_owner IS NOT NULL GROUP BY 1 HAVING count(*) > 1) t`).get(env) as { n: number }).n;
    // The table has no env: count the no-ops since this phase began (phases run one after the other).
    const noopFinishes = (pg.query(`SELECT count(*)::int AS n FROM "${schema}".bench_noop_finishes WHERE at >= to_timestamp(?1::double precision / 1000)`).get(since) as { n: number }).n;
    return { byNode, requeued, reclaimed, noopFinishes };
  } finally {
    db.$client.close();
  }
}

// ---- HTTP helpers
async function api(base: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

interface BatchResult {
  submitted: number;
  complete: number;
  failed: number;
  /** First submission to the last completed_at, seconds. */
  seconds: number;
  submitSeconds: number;
  perMinute: number;
  errors: string[];
}

/**
 * Submits `count` jobs (`bodyOf(i)`), at most `writesPerKey` per key, `parallel` at a time, then lists
 * the org's jobs (newest first, all pages) until every one is terminal or `timeoutMs` passes.
 */
async function runBatch(base: string, submitKeys: string[], pollKeys: string[], count: number, bodyOf: (i: number) => unknown, parallel: number, timeoutMs: number): Promise<BatchResult> {
  const ids = new Set<string>();
  const errors: string[] = [];
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      for (let i; (i = next++) < count; ) {
        const r = await api(base, "POST", "/v1/jobs", submitKeys[i % submitKeys.length]!, bodyOf(i));
        if (r.status === 202) ids.add(r.json.id);
        else errors.push(`submit ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
      }
    }),
  );
  const submitSeconds = (Date.now() - t0) / 1000;
  let poll = 0;
  const end = Date.now() + timeoutMs;
  let jobs = new Map<string, any>();
  for (;;) {
    jobs = new Map();
    let after: string | undefined;
    for (;;) {
      const r = await api(base, "GET", `/v1/jobs?limit=100${after ? `&starting_after=${after}` : ""}`, pollKeys[poll++ % pollKeys.length]!);
      if (r.status !== 200) throw new Error(`list: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
      for (const j of r.json.data) jobs.set(j.id, j);
      if (!r.json.has_more) break;
      after = r.json.data.at(-1).id;
    }
    const pending = [...ids].filter((id) => !["complete", "failed"].includes(jobs.get(id)?.status));
    if (pending.length === 0) break;
    if (Date.now() > end) {
      errors.push(`${pending.length} of ${ids.size} not terminal after ${timeoutMs / 1000} s: ${[...new Set(pending.map((id) => jobs.get(id)?.status ?? "missing"))].join(", ")}`);
      break;
    }
    await Bun.sleep(250);
  }
  const mine = [...ids].map((id) => jobs.get(id)).filter(Boolean);
  const done = mine.filter((j) => j.status === "complete" || j.status === "failed");
  for (const j of done.filter((j) => j.status === "failed").slice(0, 3)) errors.push(`failed ${j.id}: ${j.error?.code} ${j.error?.message}`);
  const last = Math.max(...done.map((j) => Date.parse(j.completed_at)));
  const secs = (last - t0) / 1000;
  return {
    submitted: ids.size,
    complete: done.filter((j) => j.status === "complete").length,
    failed: done.filter((j) => j.status === "failed").length,
    seconds: secs,
    submitSeconds,
    perMinute: (done.length / secs) * 60,
    errors,
  };
}

// ---- the run
const work = mkdtempSync(join(tmpdir(), "clipyard-bench-cluster-"));
const keepLogs = flag("keep-logs");
cleanups.push(() => {
  if (!keepLogs) rmSync(work, { recursive: true, force: true });
});
const model = cpus()[0]?.model ?? "?";
const lines: string[] = [];
const say = (s: string) => {
  lines.push(s);
  console.log(s);
};

// Other people's work on a shared machine moves every number here: say how busy it was.
const load = () => loadavg().map((x) => x.toFixed(1)).join(" ");
const loadBefore = load();

try {
  const commonEnv = {
    CLIPYARD_LOG_LEVEL: "info",
    CLIPYARD_ALLOW_PRIVATE_NETWORK: "1",
    CLIPYARD_ALLOW_HTTP: "1",
    CLIPYARD_MODELS_DIR: process.env.CLIPYARD_MODELS_DIR ?? join(ROOT, "models"),
    ...(process.env.CLIPYARD_SPEECH_DIR ? { CLIPYARD_SPEECH_DIR: process.env.CLIPYARD_SPEECH_DIR } : {}),
  };
  let pgUrl: string | undefined;
  const needPg = !flag("no-api") || !flag("no-sandbox") || !flag("no-live");
  if (needPg) {
    // The tests' throwaway server (scripts/cluster/postgres.sh on a free port), stopped at the end.
    cleanups.push(stopOwnPostgres);
    pgUrl = testPostgresUrl();
  }
  const urlFor = (schema: string, app: string) => `${pgUrl}?schema=${schema}&application_name=${app}`;

  // ---- jobs completed per minute, N worker processes
  const media = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const name = decodeURIComponent(new URL(req.url).pathname.slice(1));
      return name === LIVE_FILE ? new Response(Bun.file(join(SHARED_MEDIA, LIVE_FILE))) : new Response("no", { status: 404 });
    },
  });
  cleanups.push(() => void media.stop(true));
  const liveUrl = `http://127.0.0.1:${media.port}/${LIVE_FILE}`;
  const throughput: Record<string, string | number>[] = [];
  const spread: Record<string, string | number>[] = [];
  const problems: string[] = [];
  const base1: { sandbox?: number; live?: number } = {};
  if (!flag("no-sandbox") || !flag("no-live")) {
    for (const n of nodeCounts) {
      const schema = `bench_w${n}_${process.pid}`;
      const dataDir = join(work, `data-w${n}`);
      const benchUrl = urlFor(schema, "clipyard-bench");
      let sandboxKeys: string[] = [];
      let liveKeys: string[] = [];
      const row: Record<string, string | number> = { "worker processes": n };
      for (const kind of ["sandbox", "live"] as const) {
        if (flag(`no-${kind}`)) continue;
        // A cluster per phase: sandbox jobs at time scale 0.01, live jobs at 1 (the scale shortens the
        // 30-minute stall budget too, which a queued live job would run out of).
        const port = freePort();
        const base = `http://127.0.0.1:${port}`;
        const env = { ...commonEnv, CLIPYARD_DATA_DIR: dataDir, CLIPYARD_PORT: String(port), CLIPYARD_TIME_SCALE: kind === "sandbox" ? "0.01" : "1", CLIPYARD_WORKERS: "1" };
        const apiNode = startNode("api", ["serve", "--role", "api"], { ...env, CLIPYARD_DATABASE_URL: urlFor(schema, "clipyard-api") }, join(work, `w${n}-${kind}-api.log`));
        await eventually("the API node", healthy(port), 60_000, apiNode);
        if (!sandboxKeys.length && !liveKeys.length) {
          installJobTriggers(benchUrl, schema);
          // 60 writes/min per key: at most 30 submissions per key; reads (polls) on their own 10 keys.
          sandboxKeys = makeKeys({ dataDir, databaseUrl: benchUrl }, "bench-sandbox", "test", Math.ceil(sandboxJobs / 30) + 10);
          // Live: the free tier's 3 jobs, then a granted wallet (300 ¢ a job).
          liveKeys = makeKeys({ dataDir, databaseUrl: benchUrl }, "bench-live", "live", Math.ceil(liveJobs / 30) + 5, 50_000);
        }
        const workers: Node[] = [];
        for (let w = 1; w <= n; w++) workers.push(startNode(`w${w}`, ["serve", "--role", "worker"], { ...env, CLIPYARD_DATABASE_URL: urlFor(schema, `clipyard-w${w}`) }, join(work, `w${n}-${kind}-worker${w}.log`)));
        for (const w of workers) await eventually(`${w.name} to start`, workerStarted(w), 60_000, w);
        const since = Date.now();
        const count = kind === "sandbox" ? sandboxJobs : liveJobs;
        const r =
          kind === "sandbox"
            ? await runBatch(base, sandboxKeys.slice(10), sandboxKeys.slice(0, 10), count, (i) => ({ source: { type: "video_url", url: `https://media.example.com/bench-${n}-${i}.mp4` } }), 8, 120_000)
            : await runBatch(base, liveKeys.slice(5), liveKeys.slice(0, 5), count, () => ({ source: { type: "video_url", url: liveUrl }, options: LIVE_OPTIONS }), count, 600_000);
        base1[kind] ??= r.perMinute;
        row[`${kind}: jobs`] = `${r.complete}/${count}${r.failed ? ` (${r.failed} failed)` : ""}`;
        row[`${kind}: s`] = r.seconds;
        row[`${kind}: jobs/min`] = r.perMinute;
        row[`${kind}: × N=1`] = r.perMinute / base1[kind]!;
        if (kind === "sandbox") row["sandbox: submit s"] = r.submitSeconds;
        for (const e of r.errors) problems.push(`N=${n} ${kind}: ${e}`);
        const s = readSpread(benchUrl, schema, kind === "sandbox" ? "test" : "live", since);
        const cell = (f: "claims" | "finished") => workers.map((w) => s.byNode.get(`clipyard-${w.name}`)?.[f] ?? 0).join(" / ");
        const others = [...s.byNode.keys()].filter((a) => !workers.some((w) => a === `clipyard-${w.name}`));
        spread.push({
          "worker processes": n,
          jobs: kind,
          "claimed by w1 / w2 / …": cell("claims"),
          "finished by w1 / w2 / …": cell("finished"),
          "finish UPDATEs that found it done": s.noopFinishes,
          requeued: s.requeued,
          "claimed twice": s.reclaimed,
          "lost (not terminal)": r.submitted - r.complete - r.failed,
          ...(others.length ? { "other writers": others.map((a) => `${a} ${JSON.stringify(s.byNode.get(a))}`).join(", ") } : {}),
        });
        for (const w of workers) await stopNode(w);
        await stopNode(apiNode);
        for (const node of [apiNode, ...workers]) {
          const errs = readFileSync(node.log, "utf8").split("\n").filter((l) => /"level":"(warn|error)"/.test(l));
          if (errs.length) problems.push(`N=${n} ${kind} ${node.name}: ${errs.length} warn/error log lines, first: ${errs[0]!.slice(0, 300)}`);
        }
      }
      throughput.push(row);
    }
    say(`Jobs completed per minute, one API node and N worker processes (CLIPYARD_WORKERS=1 each) on one PostgreSQL 15 and one data folder, ${cpus().length} cores (${model}), bun ${Bun.version}, ${new Date().toISOString().slice(0, 10)}`);
    say(`sandbox: ${sandboxJobs} jobs submitted 8 at a time (CLIPYARD_TIME_SCALE 0.01, so each is due 0.1-0.7 s after submission); live: ${liveJobs} jobs submitted at once, each ${LIVE_FILE} (11 s of real speech, one speaker) fetched over loopback, options ${JSON.stringify(LIVE_OPTIONS)}; seconds from the first submission to the last completed_at`);
    say(table(throughput));
    say("");
    say("Who ran what (from a trigger on jobs recording each transition's connection application_name): claims are queued -> processing with a lease; a due sandbox job is then leased and finished by one worker (not necessarily the one that claimed it)");
    say(table(spread));
  }

  // ---- GET /v1/jobs/{id}: SQLite and PostgreSQL, an `all` node each
  if (!flag("no-api")) {
    const results: Record<string, string | number>[] = [];
    const rps: number[] = [];
    const variants = [
      { name: "SQLite", schema: undefined as string | undefined, options: "" },
      { name: "PostgreSQL", schema: `bench_api_${process.pid}`, options: "" },
      // Diagnostic: how much of PostgreSQL's cost is the WAL flush each rate-limit hit commits.
      ...(flag("pg-async-commit") ? [{ name: "PostgreSQL, synchronous_commit off (not durable)", schema: `bench_api_async_${process.pid}`, options: `&options=${encodeURIComponent("-c synchronous_commit=off")}` }] : []),
    ];
    for (const v of variants) {
      const dataDir = join(work, `api-${v.schema ?? "sqlite"}`);
      const port = freePort();
      const databaseUrl = v.schema ? urlFor(v.schema, "clipyard-all") + v.options : undefined;
      // Time scale 100: the sandbox job stays queued (its claim is due 200+ s after submission) all
      // through the load, so every request reads the same row, the job scripts/bench/api.ts reads.
      const env = { ...commonEnv, CLIPYARD_LOG_LEVEL: "warn", CLIPYARD_DATA_DIR: dataDir, CLIPYARD_PORT: String(port), CLIPYARD_TIME_SCALE: "100", ...(databaseUrl ? { CLIPYARD_DATABASE_URL: databaseUrl } : {}) };
      const node = startNode(`all-${v.schema ?? "sqlite"}`, ["serve"], env, join(work, `api-${v.schema ?? "sqlite"}.log`));
      await eventually(`the ${v.name} node`, healthy(port), 60_000, node);
      // Reads are limited to 600/min per key: enough keys that round-robin keeps each far below, up to 60k req/s.
      const keys = makeKeys({ dataDir, databaseUrl: v.schema ? urlFor(v.schema, "clipyard-bench") : undefined }, "bench", "test", Math.ceil((60_000 * seconds * rounds) / 600) + 2);
      const base = `http://127.0.0.1:${port}`;
      const submitted = await api(base, "POST", "/v1/jobs", keys[0]!, { source: { type: "video_url", url: "https://media.example.com/bench.mp4" } });
      if (submitted.status !== 202) throw new Error(`submit on ${v.name}: ${submitted.status} ${JSON.stringify(submitted.json)}`);
      const job = submitted.json;
      const jobUrl = `${base}/v1/jobs/${job.id}`;
      const rates: number[] = [];
      const p99s: number[] = [];
      let k = 0;
      for (let r = 0; r < rounds; r++) {
        const res = await runLoad(() => new Request(jobUrl, { headers: { authorization: `Bearer ${keys[2 + (k++ % (keys.length - 2))]}` } }), { concurrency, seconds });
        if (res.errors) throw new Error(`${res.errors} non-200 answers on ${v.name}; first: ${res.firstError}`);
        rates.push(res.rps);
        p99s.push(res.p99);
      }
      const after = await api(base, "GET", `/v1/jobs/${job.id}`, keys[1]!);
      if (after.json?.status !== job.status) problems.push(`GET on ${v.name}: the job went from ${job.status} to ${after.json?.status} during the load`);
      await stopNode(node);
      rps.push(median(rates));
      results.push({ "back end (`all` node)": v.name, "req/s (median)": Math.round(median(rates)), "p99 ms (median)": median(p99s), "req/s per round": rates.map((x) => Math.round(x)).join(", "), "× SQLite": median(rates) / rps[0]! });
    }
    say("");
    say(`GET /v1/jobs/{id} of a queued sandbox job (as scripts/bench/api.ts): ${rounds} rounds × ${seconds} s, ${concurrency} connections, ${Math.ceil((60_000 * seconds * rounds) / 600)} keys round-robin (rate limit in memory on SQLite, in rate_hits on PostgreSQL), the load generator and PostgreSQL on the same ${cpus().length} cores`);
    say(table(results));
  }
  say("");
  say(`load average (1, 5, 15 min) before: ${loadBefore}; after: ${load()}`);
  if (problems.length) {
    say("");
    say("Problems seen:");
    for (const p of problems) say(`- ${p}`);
  }
} finally {
  await stopAll();
  if (keepLogs) console.log(`logs kept in ${work}`);
}
process.exit(0);
