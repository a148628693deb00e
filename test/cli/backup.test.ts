/**
 * `clipyard backup` and `clipyard restore` as an operator runs them: a real appliance process keeps
 * serving while the backup is taken, the restore goes into a new data directory (and, on PostgreSQL,
 * another database), and a new process on it must hold everything the first one did: jobs, keys
 * (still hashed), the wallet ledger, webhooks whose sealed secrets still sign, share links and the
 * output files byte for byte. A backup taken while a live job runs restores to a job that resumes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Stripe from "stripe";
import { freshSchemaUrl, stopOwnPostgres, testPostgresUrl } from "../helpers/postgres.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { speechWav } from "../helpers/speech.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-backup-test-"));
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) if (s.proc && s.proc.exitCode === null) await s.kill9();
  for (const s of servers) rmSync(s.dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
  stopOwnPostgres();
});

const ENV = { CLIPYARD_TIME_SCALE: "0.25", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_LEASE_SECONDS: "5", CLIPYARD_LOG_LEVEL: "warn" };
const sha = (b: ArrayBuffer | Buffer) => createHash("sha256").update(Buffer.from(b as ArrayBuffer)).digest("hex");

function clipyard(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync("bun", ["run", join(ROOT, "src/main.ts"), ...args], { env, cwd: ROOT, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A PostgreSQL database of its own on the test server: where a restore "on another machine" goes. */
function freshDatabaseUrl(): string {
  const server = new URL(testPostgresUrl());
  const name = `restore_${Math.random().toString(36).slice(2, 10)}`;
  const r = spawnSync("psql", ["--no-psqlrc", "-v", "ON_ERROR_STOP=1", "-d", server.toString(), "-c", `CREATE DATABASE ${name}`], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  server.pathname = `/${name}`;
  server.searchParams.set("schema", "restored");
  return server.toString();
}

const backends = [
  { name: "SQLite", source: () => ({}), target: () => ({}) },
  { name: "PostgreSQL", source: () => ({ CLIPYARD_DATABASE_URL: freshSchemaUrl("bk") }), target: () => ({ CLIPYARD_DATABASE_URL: freshDatabaseUrl() }) },
];

async function upload(s: ServerProcess, key: string): Promise<string> {
  const res = await fetch(`${s.baseUrl}/v1/uploads?filename=speech.wav`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: Bun.file(speechWav()) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Polls a job a few times a second: the read rate limit (600 a minute per key) must not answer instead. */
async function poll(s: ServerProcess, key: string, id: string, until: (j: any) => boolean, timeoutMs = 420_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = await s.api("GET", `/v1/jobs/${id}`, key);
    expect(job.object).toBe("job");
    if (until(job)) return job;
    if (Date.now() > end) throw new Error(`job ${id} not there in time: ${JSON.stringify(job)}`);
    await Bun.sleep(250);
  }
}
const terminal = (j: any) => j.status === "complete" || j.status === "failed";

async function files(s: ServerProcess, key: string, job: any): Promise<Record<string, string>> {
  const urls = [job.output.transcript_srt_url, ...job.output.clips.flatMap((c: any) => Object.values(c.rendered_urls))] as string[];
  const out: Record<string, string> = {};
  for (const url of urls) {
    const res = await fetch(new URL(url, s.baseUrl), { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    out[new URL(url, s.baseUrl).pathname] = sha(await res.arrayBuffer());
  }
  return out;
}

for (const backend of backends) {
  describe(`backup and restore on ${backend.name}`, () => {
    test("while it serves: jobs, hashed keys, ledger, webhooks that still sign, share links and files all come back", async () => {
      const receiver = await startReceiver();
      const a = new ServerProcess(freePort(), { ...ENV, ...backend.source() });
      servers.push(a);
      await a.start();
      const testKey = await a.cli("keys", "create", "--org", "studio", "--env", "test");
      const liveKey = await a.cli("keys", "create", "--org", "studio", "--env", "live");
      await a.cli("credits", "grant", "--org", "studio", "--amount", "20", "--note", "backup test");
      const hook = await a.api("POST", "/v1/webhooks", testKey, { url: receiver.url(), events: ["job.completed"] });
      expect(hook.secret).toStartWith("whsec_");
      const sandbox = await a.api("POST", "/v1/jobs", testKey, { source: { type: "video_url", url: "https://media.example.com/episode.mp4" } });
      // At most 10 s: the recording's 9 s middle sentence, rendered in two formats (a 5-15 s window
      // took its last two sentences, 13 s, at 40 % more render CPU; the checks hold either way).
      const live = await a.api("POST", "/v1/jobs", liveKey, { source: { type: "upload", upload_id: await upload(a, liveKey) }, options: { clip_count: 1, min_clip_seconds: 5, max_clip_seconds: 10 } });
      const [sandboxDone, liveDone] = [await poll(a, testKey, sandbox.id, terminal), await poll(a, liveKey, live.id, terminal)];
      expect(sandboxDone.status).toBe("complete");
      expect({ status: liveDone.status, error: liveDone.error }).toEqual({ status: "complete", error: null });
      await receiver.waitFor(1);
      const balance = await a.cli("credits", "balance", "--org", "studio");
      const keys = await a.cli("keys", "list", "--org", "studio");
      const liveFiles = await files(a, liveKey, liveDone);
      const share = await fetch(new URL(liveDone.output.timeline_url, a.baseUrl));
      expect(share.status).toBe(200);

      // Taken while the server runs (and keeps answering).
      const dir = join(work, `${backend.name}-backup`);
      const made = clipyard(a.env, "backup", dir);
      expect(made.err).toBe("");
      expect(made.code).toBe(0);
      expect(made.out).toContain(`backup in ${dir}`);
      expect((await fetch(`${a.baseUrl}/healthz`)).ok).toBe(true);
      expect(statSync(dir).mode & 0o077).toBe(0);
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      expect(manifest.secret_key.source).toBe("file");
      // Keys are kept as hashes: the backup holds no key anywhere.
      const dump = readFileSync(join(dir, manifest.database.file));
      for (const k of [testKey, liveKey]) expect(dump.includes(Buffer.from(k))).toBe(false);
      await a.kill9();

      // A second backup into the same folder is refused, and so is a restore over a used folder.
      expect(clipyard(a.env, "backup", dir).code).toBe(2);
      expect(clipyard(a.env, "restore", dir)).toMatchObject({ code: 2, err: expect.stringContaining("not empty") });

      const b = new ServerProcess(freePort(), { ...ENV, ...backend.target() }, join(work, `${backend.name}-restored`));
      servers.push(b);
      const restored = clipyard(b.env, "restore", dir);
      expect(restored.err).toBe("");
      expect(restored.code).toBe(0);
      await b.start();
      // The same jobs, their URLs on the new server's address.
      const moved = (job: unknown) => JSON.parse(JSON.stringify(job).replaceAll(a.baseUrl, b.baseUrl));
      expect(await b.api("GET", `/v1/jobs/${sandbox.id}`, testKey)).toEqual(moved(sandboxDone));
      expect(await b.api("GET", `/v1/jobs/${live.id}`, liveKey)).toEqual(moved(liveDone));
      expect(await b.cli("keys", "list", "--org", "studio")).toBe(keys);
      expect(await b.cli("credits", "balance", "--org", "studio")).toBe(balance);
      expect(await files(b, liveKey, moved(liveDone))).toEqual(liveFiles);
      const shared = await fetch(moved(liveDone).output.timeline_url);
      expect(shared.status).toBe(200);
      expect((await b.api("GET", "/v1/webhooks", testKey)).data.map((w: any) => w.id)).toEqual([hook.id]);

      // The restored appliance opens the sealed secret: a new job's event is signed with the old one.
      const after = await b.api("POST", "/v1/jobs", testKey, { source: { type: "video_url", url: "https://media.example.com/after.mp4" } });
      await poll(b, testKey, after.id, terminal);
      const req = await receiver.waitFor(2, 60_000);
      const event = (await new Stripe("sk_test_unused").webhooks.constructEventAsync(req.raw, req.headers.get("x-service-signature")!, hook.secret)) as any;
      expect(event.data.object.id).toBe(after.id);
      receiver.stop();
      await b.kill9();
    }, 600_000);

    test("a backup taken while a live job runs restores to a job that resumes and completes", async () => {
      const a = new ServerProcess(freePort(), { ...ENV, ...backend.source() });
      servers.push(a);
      await a.start();
      const key = await a.cli("keys", "create", "--org", "busy", "--env", "live");
      const job = await a.api("POST", "/v1/jobs", key, { source: { type: "upload", upload_id: await upload(a, key) }, options: { clip_count: 1, min_clip_seconds: 5, max_clip_seconds: 10 } });
      // Mid-pipeline: at least one stage checkpointed, the job not finished.
      const checkpoint = join(a.dataDir, "jobs", job.id, "checkpoint.json");
      await poll(a, key, job.id, (j) => {
        expect(j.status).not.toBe("complete");
        return j.status === "processing" && existsSync(checkpoint);
      });
      const dir = join(work, `${backend.name}-running`);
      expect(clipyard(a.env, "backup", dir).code).toBe(0);
      await a.kill9();
      // Another machine: nothing of the first data folder is left for the resumed job to read.
      rmSync(a.dataDir, { recursive: true, force: true });
      const saved = JSON.parse(readFileSync(join(dir, "files", "jobs", job.id, "checkpoint.json"), "utf8"));
      expect(saved.done.length).toBeGreaterThan(0);

      const b = new ServerProcess(freePort(), { ...ENV, ...backend.target() }, join(work, `${backend.name}-running-restored`));
      servers.push(b);
      expect(clipyard(b.env, "restore", dir).code).toBe(0);
      await b.start();
      const seen = new Set<string>();
      const done = await poll(b, key, job.id, (j) => (seen.add(j.status), terminal(j)));
      expect({ status: done.status, error: done.error }).toEqual({ status: "complete", error: null });
      expect([...seen].every((s) => ["queued", "processing", "complete"].includes(s))).toBe(true);
      for (const hash of Object.values(await files(b, key, done))) expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(existsSync(join(b.dataDir, "jobs", job.id))).toBe(true);
      await b.kill9();
    }, 600_000);
  });
}
