import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { startSeaweedFs, type SeaweedFs } from "../helpers/seaweedfs.ts";
import { eventually } from "../helpers/wait.ts";
import { serveFile } from "../../src/web/files.ts";
import { beforeAllShared, afterAllShared, testShared } from "../helpers/shared.ts";

/**
 * Object storage end to end against a real SeaweedFS: a live job's outputs and its checkpoint live in
 * the bucket, media URLs redirect to presigned URLs (or are proxied with Range support), and a job
 * whose worker is killed resumes on another "machine" (its own data directory) from the bucket.
 */
const RECORDING = join(SHARED_MEDIA, "two_speakers_call.wav");
const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "1" };
// One short clip: every check here reads the first clip's files (what storage does with them, not how
// many there are), so a second clip and longer ones were only encoding time.
const OPTIONS = { clip_count: 1, min_clip_seconds: 6, max_clip_seconds: 14 };

let sw: SeaweedFs;
/** A media server that counts the requests for the source: a resume must not fetch it again. */
let media: { url: string; gets: () => number; stop(): void };
beforeAllShared(async () => {
  sw = await startSeaweedFs();
  let gets = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      if (req.method === "GET") gets++;
      return serveFile(RECORDING, req);
    },
  });
  media = { url: `http://127.0.0.1:${server.port}/two_speakers_call.wav`, gets: () => gets, stop: () => server.stop(true) };
}, 150_000);
afterAllShared(async () => {
  media?.stop();
  await sw?.stop();
});

const localFiles = (dir: string): string[] => (existsSync(dir) ? (readdirSync(dir, { recursive: true, withFileTypes: true }) as any[]).filter((d) => d.isFile()).map((d) => d.name) : []);

/** The object a share URL names, as the bucket holds it. */
const objectBytes = async (jobId: string, url: string) => new Uint8Array(await sw.client.file(`jobs/${jobId}/out/${url.split("/").pop()}`).arrayBuffer());

testShared("an upload and a live job with S3 storage: both in the bucket, none of it left on the node, media URLs redirect to presigned URLs", async () => {
  const app: TestAppliance = await startAppliance({ env: { ...LAN, ...sw.env() } });
  try {
    const key = app.key("s3-e2e", "live");
    const uploaded = await fetch(`${app.baseUrl}/v1/uploads?filename=call.wav`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" }, body: readFileSync(RECORDING) });
    expect(uploaded.status).toBe(201);
    const upload = (await uploaded.json()) as { id: string };
    expect(await sw.keys("uploads/")).toEqual([`uploads/${upload.id}`, `uploads/${upload.id}.json`]);
    expect(localFiles(join(app.dataDir, "uploads"))).toEqual([]);

    const submitted = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "upload", upload_id: upload.id }, options: OPTIONS } });
    expect(submitted.status).toBe(202);
    const id = submitted.json.id as string;
    const job = await eventually(() => app.api("GET", `/v1/jobs/${id}`, { key }).then((r) => r.json), (j) => j.status === "complete" || j.status === "failed", { timeoutMs: 240_000, what: "the job" });
    expect(job.error).toBeNull();
    const out = job.output;
    // The timeline names the client's file, read from the upload's metadata in the bucket.
    const timeline = await (await fetch(out.timeline_url, { redirect: "follow" })).json();
    expect(JSON.stringify(timeline)).toContain("call.wav");

    // Outputs are in the bucket, and the checkpoint re-renders start from; the node kept no output.
    const keys = await sw.keys(`jobs/${id}/`);
    expect(keys.filter((k) => k.includes("/resume/"))).toEqual([`jobs/${id}/resume/checkpoint.json`, `jobs/${id}/resume/source.media`]);
    const clipUrl: string = out.clips[0].rendered_urls.x;
    expect(keys).toContain(`jobs/${id}/out/${clipUrl.split("/").pop()}`);
    expect(existsSync(join(app.dataDir, "jobs", id))).toBe(false);

    const redirect = await fetch(clipUrl, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("cache-control")).toBe("no-store");
    const location = new URL(redirect.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(`${sw.endpoint}/${sw.bucket}/jobs/${id}/out/${clipUrl.split("/").pop()}`);
    expect(location.searchParams.get("X-Amz-Expires")).toBe("900");
    const presigned = await fetch(location);
    expect(presigned.status).toBe(200);
    expect(presigned.headers.get("content-type")).toBe("video/mp4");
    const bytes = new Uint8Array(await presigned.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
    expect(bytes).toEqual(await objectBytes(id, clipUrl));
    // A captions file is text in the bucket, served the same way.
    const srt = await fetch(out.clips[0].captions_srt_url);
    expect(srt.status).toBe(200);
    expect(await srt.text()).toContain("-->");

    // The access checks still come first: a wrong token, or a file in the bucket the output does not name.
    expect((await fetch(clipUrl.replace(/share\/[^/]+/, "share/AAAAAAAAAAAAAAAAAAAAAA"), { redirect: "manual" })).status).toBe(404);
    expect(keys).toContain(`jobs/${id}/out/notes.md`);
    expect((await fetch(clipUrl.replace(/[^/]+$/, "notes.md"), { redirect: "manual" })).status).toBe(404);
  } finally {
    await app.stop();
  }
}, 300_000);

testShared("kill -9 mid-job: another node with its own data directory resumes at the checkpointed stage from the bucket, and proxies media with Range", async () => {
  // Two data directories: the nodes share the key that seals webhook secrets through the setting.
  const env = { ...LAN, CLIPYARD_LEASE_SECONDS: "5", CLIPYARD_SECRET_KEY: randomBytes(32).toString("base64") };
  const a = new ServerProcess(freePort(), { ...env, ...sw.env() });
  let b: ServerProcess | undefined;
  try {
    await a.start();
    const key = await a.cli("keys", "create", "--org", "s3-resume", "--env", "live");
    const job = await a.api("POST", "/v1/jobs", key, { source: { type: "video_url", url: media.url }, options: OPTIONS });
    const id = job.id as string;
    // Killed once the bucket holds a checkpoint past transcription: the expensive stage is done.
    const cp = await eventually(
      () => sw.client.file(`jobs/${id}/resume/checkpoint.json`).json().catch(() => ({ done: [] })),
      (c: { done: string[] }) => c.done.includes("transcribe"),
      { timeoutMs: 240_000, what: "a checkpoint after transcription" },
    );
    expect(await a.kill9()).not.toBe(0);
    // The kill landed mid-job (the job has little left after transcription): what follows is a resume,
    // not a second node reading a job the first one finished.
    const db = new Database(join(a.dataDir, "clipyard.sqlite"));
    expect(db.query<{ status: string }, [string]>("SELECT status FROM jobs WHERE id = ?").get(id)?.status).toBe("processing");
    db.close();
    expect(media.gets()).toBe(1);
    expect(await sw.keys(`jobs/${id}/resume/`)).toEqual([`jobs/${id}/resume/checkpoint.json`, `jobs/${id}/resume/source.media`]);

    // "Another machine": its own data directory (no source, no checkpoint on its disk), the same database and bucket.
    const dirB = mkdtempSync(join(tmpdir(), "clipyard-proc-b-"));
    symlinkSync(resolve(a.dataDir, "clipyard.sqlite"), join(dirB, "clipyard.sqlite"));
    b = new ServerProcess(freePort(), { ...env, ...sw.env({ proxy: true }) }, dirB);
    await b.start();
    const seen = new Set<string>();
    const s = b;
    const done = await eventually(
      async () => {
        const j = await s.api("GET", `/v1/jobs/${id}`, key);
        if (j.progress) seen.add(j.progress.stage);
        return j;
      },
      (j) => j.status === "complete" || j.status === "failed",
      { timeoutMs: 240_000, what: "the job on the second node" },
    );
    expect(done.error).toBeNull();
    // Resumed, not restarted: the source was not fetched again, no stage before the checkpoint ran again.
    expect(media.gets()).toBe(1);
    // The last stage done may still show as A's last progress until B reports; none before it may.
    for (const stage of cp.done.slice(0, -1)) expect(seen.has(stage)).toBe(false);
    // B got the source from the bucket; its outputs went there; the checkpoint stays for re-renders.
    // (The source came from the bucket: the media server saw one request, above and below.) Nothing
    // of the job is left on B's disk: the bucket holds it all.
    expect(existsSync(join(dirB, "jobs", id))).toBe(false);
    expect(await sw.keys(`jobs/${id}/resume/`)).toEqual([`jobs/${id}/resume/checkpoint.json`, `jobs/${id}/resume/source.media`]);

    // CLIPYARD_STORAGE_PROXY=1: the same URL streams from the bucket through the appliance.
    const clipUrl: string = done.output.clips[0].rendered_urls.x;
    const expected = await objectBytes(id, clipUrl);
    const whole = await fetch(clipUrl, { redirect: "manual" });
    expect(whole.status).toBe(200);
    // No Content-Length on the streamed GET: Bun drops it for stream bodies (oven-sh/bun#10507); HEAD has it.
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(expected);
    const part = await fetch(clipUrl, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${expected.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(expected.slice(100, 200));
    const tail = await fetch(clipUrl, { headers: { range: "bytes=-50" } });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(expected.slice(-50));
    const beyond = await fetch(clipUrl, { headers: { range: `bytes=${expected.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${expected.length}`);
    const head = await fetch(clipUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(expected.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect((await fetch(clipUrl.replace(/share\/[^/]+/, "share/AAAAAAAAAAAAAAAAAAAAAA"))).status).toBe(404);
  } finally {
    if (a.proc?.exitCode === null) await a.kill9();
    if (b?.proc?.exitCode === null) await b.kill9();
  }
}, 400_000);
