import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openDb, type Db } from "../../src/db/client.ts";
import { startMediaServer } from "../helpers/media-server.ts";
import { freshSchemaUrl, stopOwnPostgres } from "../helpers/postgres.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { startSeaweedFs, type SeaweedFs } from "../helpers/seaweedfs.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * A cluster on one machine, shaped like one on many: two API nodes and two worker nodes, separate
 * processes with a data folder each (working files only), sharing one PostgreSQL (a schema of this
 * test's own), one S3 bucket (SeaweedFS) and the key that seals webhook secrets. Each property of
 * docs/scale-out.md is checked through the API nodes, the way clients see the cluster.
 */
const ROOT = resolve(import.meta.dir, "../..");
const mediaDir = mkdtempSync(join(tmpdir(), "clipyard-cluster-media-"));
const databaseUrl = freshSchemaUrl("cluster");
const common = {
  CLIPYARD_DATABASE_URL: databaseUrl,
  CLIPYARD_SECRET_KEY: randomBytes(32).toString("base64"),
  // The 30-minute stall budget scales with it: 7.5 minutes here. At 0.05 (90 s) a job that waits out
  // a killed worker's lease on a loaded CI machine failed as pipeline_stalled before it could finish.
  CLIPYARD_TIME_SCALE: "0.25",
  // A dead worker's job is taken over 15 s after its last heartbeat. Shorter leases lapse on a
  // loaded CI machine (load 30 on 2 cores) while the worker is alive but starved: a heartbeat every
  // lease/4 s then arrives late and a live job is taken over, which the attempt counts below forbid.
  CLIPYARD_LEASE_SECONDS: "15",
  CLIPYARD_ALLOW_PRIVATE_NETWORK: "1",
  CLIPYARD_ALLOW_HTTP: "1",
  CLIPYARD_WORKERS: "1",
};
let sw: SeaweedFs;
const nodes: ServerProcess[] = [];
const node = () => {
  const p = new ServerProcess(freePort(), { ...common, ...sw.env() });
  nodes.push(p);
  return p;
};
let apis: ServerProcess[];
let workers: ServerProcess[];
let media: ReturnType<typeof startMediaServer>;
let db: Db;

beforeAll(async () => {
  // A short real recording: the bundled sample's first 30 s (two voices, one finished thought).
  const cut = spawnSync("ffmpeg", ["-v", "error", "-i", join(ROOT, "fixtures/sample/rooftop-hours.m4a"), "-t", "30", "-c", "copy", join(mediaDir, "short.m4a")]);
  if (cut.status !== 0) throw new Error(`ffmpeg: ${cut.stderr}`);
  media = startMediaServer(mediaDir);
  sw = await startSeaweedFs();
  apis = [node(), node()];
  workers = [node(), node()];
  // The first node migrates the schema; the others find it done (and wait on the migration lock if not).
  await apis[0]!.start("--role", "api");
  await Promise.all([apis[1]!.start("--role", "api"), ...workers.map((w) => w.start("--role", "worker"))]);
  db = openDb({ dataDir: mediaDir, databaseUrl });
}, 180_000);

afterAll(async () => {
  for (const p of nodes) if (p.proc && p.proc.exitCode === null) await p.kill9();
  db?.$client.close();
  media?.stop();
  await sw?.stop();
  stopOwnPostgres();
  for (const p of nodes) rmSync(p.dataDir, { recursive: true, force: true });
  rmSync(mediaDir, { recursive: true, force: true });
});

async function post(api: ServerProcess, key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.baseUrl}/v1/jobs`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

test("idempotent submissions alternated between the API nodes give one job", async () => {
  const key = await apis[0]!.cli("keys", "create", "--org", "cluster-idem", "--env", "test");
  const body = { source: { type: "video_url", url: "https://media.example.com/episode.mp4" } };
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(apis[i % 2]!, key, body, { "idempotency-key": "cluster-idem-0001" })));
  for (const a of answers) expect([200, 202]).toContain(a.status);
  expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
  const listed = await apis[1]!.api("GET", "/v1/jobs", key);
  expect(listed.data.map((j: any) => j.id)).toEqual([answers[0]!.json.id]);
});

test("the write rate limit counts requests on both API nodes against one window", async () => {
  const key = await apis[0]!.cli("keys", "create", "--org", "cluster-rate", "--env", "test");
  // Invalid bodies: each is a counted write (the budget is charged before validation) that makes no job.
  const remaining: number[] = [];
  for (let i = 0; i < 60; i++) {
    const res = await post(apis[i % 2]!, key, {});
    expect(res.status).toBe(400);
    remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
  }
  // One window: the count goes down by one per request whichever node answered it.
  expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
  for (const api of apis) {
    const over = await post(api, key, {});
    expect(over.status).toBe(429);
    expect(over.json.error.code).toBe("too_many_requests");
  }
});

test("live jobs spread over both workers; a worker killed mid-job has its job finished by the other; every file downloads from either API node", async () => {
  const key = await apis[0]!.cli("keys", "create", "--org", "cluster-live", "--env", "live");
  const body = { source: { type: "video_url", url: media.url("short.m4a") }, options: { clip_count: 1, min_clip_seconds: 5, max_clip_seconds: 15 } };
  const ids: string[] = [];
  for (const api of apis) ids.push((await post(api, key, body)).json.id);

  // Both workers hold one job each (CLIPYARD_WORKERS=1): the work spread.
  const owners = () => db.$client.query("SELECT id, lease_owner FROM jobs WHERE status = 'processing' AND lease_owner IS NOT NULL").all() as { id: string; lease_owner: string }[];
  const busy = await eventually(owners, (rows) => new Set(rows.map((r) => r.lease_owner)).size === 2, { timeoutMs: 120_000, what: "both workers holding a job" });
  const victimOwner = busy.find((r) => r.id === ids[0])!.lease_owner;
  const victim = workers.find((w) => readFileSync(w.logPath, "utf8").includes(victimOwner))!;
  expect(victim).toBeDefined();

  // kill -9 mid-job: no chance to hand the job back. After the lease lapses the other worker claims it.
  expect(await victim.kill9()).not.toBe(0);
  const survivor = workers.find((w) => w !== victim)!;
  const done = await Promise.all(
    ids.map((id) => eventually(() => apis[1]!.api("GET", `/v1/jobs/${id}`, key), (j: any) => j.status === "complete" || j.status === "failed", { timeoutMs: 400_000, what: `job ${id} finished` })),
  );
  for (const job of done) {
    expect(job.error).toBeNull();
    expect(job.status).toBe("complete");
  }
  const attempts = db.$client.query(`SELECT attempts FROM jobs WHERE id = ?`).get(ids[0]!) as { attempts: number };
  // At least the victim's claim and the survivor's. A fresh-clone CI run once saw 3: with 5 s leases on
  // a loaded 2-core machine a heartbeat can miss and the job be taken over once more, which is the
  // lease doing its job; what matters here is that the killed worker's job was resumed and completed.
  expect(attempts.attempts).toBeGreaterThanOrEqual(2);
  expect(readFileSync(survivor.logPath, "utf8")).toContain("requeued jobs whose lease lapsed");
  // Working files only on a worker's disk: the jobs it finished left nothing there (the bucket has it all).
  for (const id of ids) expect(existsSync(join(survivor.dataDir, "jobs", id))).toBe(false);

  // Every media URL, fetched from either API node with a Range request, gives the same bytes (each
  // node redirects to a presigned URL of the one bucket; the client follows it with its Range).
  for (const job of done) {
    const urls = [...job.output.clips.flatMap((c: any) => Object.values(c.rendered_urls)), job.output.transcript_srt_url].filter(Boolean) as string[];
    expect(urls.length).toBeGreaterThanOrEqual(2);
    for (const url of urls) {
      const path = new URL(url).pathname;
      const parts = await Promise.all(
        apis.map(async (api) => {
          const res = await fetch(api.baseUrl + path, { headers: { range: "bytes=0-99" } });
          expect(res.status).toBe(206);
          return new Uint8Array(await res.arrayBuffer());
        }),
      );
      expect(parts[0]!.byteLength).toBe(100);
      expect(parts[1]).toEqual(parts[0]!);
    }
  }
}, 600_000);

test("SIGTERM hands a worker's live job back at once; another worker takes it over without waiting for the lease", async () => {
  const key = await apis[0]!.cli("keys", "create", "--org", "cluster-term", "--env", "live");
  // The worker still alive after the previous test (a killed process has a signalCode, no exitCode).
  const running = workers.find((w) => w.proc && w.proc.exitCode === null && w.proc.signalCode === null)!;
  const fresh = node();
  const body = { source: { type: "video_url", url: media.url("short.m4a") }, options: { clip_count: 1, min_clip_seconds: 5, max_clip_seconds: 15 } };
  const id = (await post(apis[0]!, key, body)).json.id as string;
  const lease = () => db.$client.query("SELECT status, lease_owner, attempts FROM jobs WHERE id = ?").get(id) as { status: string; lease_owner: string | null; attempts: number };
  await eventually(lease, (r) => r.status === "processing" && r.lease_owner !== null, { timeoutMs: 60_000, what: "the job claimed" });

  running.proc!.kill("SIGTERM");
  expect(await running.proc!.exited).toBe(0);
  // Handed back, not left to lapse: queued again with no owner the moment the worker has exited.
  const handedBack = lease();
  expect(handedBack.lease_owner).toBeNull();
  expect(handedBack.status).toBe("queued");

  await fresh.start("--role", "worker");
  workers.push(fresh);
  const job = await eventually(() => apis[0]!.api("GET", `/v1/jobs/${id}`, key), (j: any) => j.status === "complete" || j.status === "failed", { timeoutMs: 300_000, what: "the job finished" });
  expect(job.status).toBe("complete");
  expect(lease().attempts).toBe(2);

  // A re-render asked of an API node that never ran the job (its words come from the bucket), rendered
  // by a worker that never ran it either (its source comes from the bucket), served by the other API node.
  fresh.proc!.kill("SIGTERM");
  expect(await fresh.proc!.exited).toBe(0);
  const stranger = node();
  await stranger.start("--role", "worker");
  workers.push(stranger);
  const clip = job.output.clips[0];
  const asked = await fetch(`${apis[1]!.baseUrl}/v1/jobs/${id}/clips/${clip.id}/renders`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ caption_style: "minimal", formats: ["x"] }),
  });
  expect(asked.status).toBe(202);
  const rendered = await eventually(
    () => apis[0]!.api("GET", `/v1/jobs/${id}`, key),
    // Polled faster than the read rate limit allows for long: a 429's error envelope has no output.
    (j: any) => ["complete", "failed"].includes(j.output?.clips?.[0]?.render?.status),
    { timeoutMs: 240_000, what: "the re-render" },
  );
  const after = rendered.output.clips[0];
  // The stranger's log says why, if it failed.
  expect({ status: after.render.status, warnings: readFileSync(stranger.logPath, "utf8").split("\n").filter((l) => l.includes('"level":"warn"')) }).toEqual({ status: "complete", warnings: [] });
  expect(after.caption_style).toBe("minimal");
  expect(after.rendered_urls.x).not.toBe(clip.rendered_urls.x);
  const res = await fetch(apis[0]!.baseUrl + new URL(after.rendered_urls.x).pathname, { headers: { range: "bytes=0-7" } });
  expect(res.status).toBe(206);
  expect(new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()).slice(4, 8))).toBe("ftyp");
}, 400_000);
