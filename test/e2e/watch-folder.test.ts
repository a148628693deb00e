import { Database } from "bun:sqlite";
import { afterAll, afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/wait.ts";
import { SHARED_PRESENT, testShared } from "../helpers/shared.ts";

/**
 * `clipyard watch` as users run it: a real process on a data directory, a recording copied into the
 * folder slowly, the live pipeline making its clips, a kill -9 and a restart.
 */
const RECORDING = SHARED_PRESENT ? readFileSync(join(SHARED_MEDIA, "jfk.wav")) : Buffer.alloc(0);
const SETTLE_SECONDS = 1;
const dir = mkdtempSync(join(tmpdir(), "clipyard-watched-"));
const watcher = new ServerProcess(freePort(), { CLIPYARD_WATCH_SETTLE_SECONDS: String(SETTLE_SECONDS), CLIPYARD_TIME_SCALE: "1", CLIPYARD_LEASE_SECONDS: "5" });
const ARGS = ["watch", dir, "--org", "watch-e2e", "--clips", "1", "--min-seconds", "5", "--max-seconds", "15"];
let runs = 0;

afterEach(async () => {
  if (watcher.proc && watcher.proc.exitCode === null) await watcher.kill9();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(watcher.dataDir, { recursive: true, force: true });
});

function query<T>(sql: string): T[] {
  const db = new Database(join(watcher.dataDir, "clipyard.sqlite"), { readonly: true });
  try {
    return db.query(sql).all() as T[];
  } finally {
    db.close();
  }
}
const jobCount = () => query<{ n: number }>("SELECT count(*) AS n FROM jobs")[0]!.n;

/** Starts a watcher and waits for its start-up log line, so copies begin while it is watching. */
async function startWatcher(): Promise<string> {
  const log = join(watcher.dataDir, `watch-${++runs}.log`);
  watcher.run(log, ...ARGS);
  await eventually(() => (existsSync(log) ? readFileSync(log, "utf8") : ""), (text) => text.includes("clipyard watching"), { what: "the watcher to start" });
  return log;
}

/** Copies in chunks, a pause shorter than the settle interval between them; checks no job starts mid-copy. */
async function copySlowly(name: string, chunks: number, pauseMs: number): Promise<void> {
  const fd = openSync(join(dir, name), "w");
  const size = Math.ceil(RECORDING.length / chunks);
  for (let at = 0; at < RECORDING.length; at += size) {
    writeSync(fd, RECORDING, at, Math.min(size, RECORDING.length - at));
    expect(query<{ name: string }>(`SELECT name FROM watch_files WHERE name = '${name}'`)).toEqual([]);
    await Bun.sleep(pauseMs); // the copier's own pace, not a wait for the system under test
  }
  closeSync(fd);
}

function readJobJson(name: string): any {
  const path = join(dir, "clipyard", name, "job.json");
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : null;
}

testShared("a file copied in slowly becomes one live job once its copy finishes; a restart neither repeats nor loses files", async () => {
  await startWatcher();
  writeFileSync(join(dir, "notes.txt"), "not media");
  writeFileSync(join(dir, "later.wav.part"), RECORDING.subarray(0, 1000));
  writeFileSync(join(dir, "broken.mp4"), "named like media, but not media");

  // 12 chunks, 300 ms apart: 3.3 s of copying, each pause shorter than the 1 s settle interval.
  await copySlowly("first.wav", 12, 300);
  const job = await eventually(() => readJobJson("first.wav"), (j) => j !== null, { timeoutMs: 300_000, what: "first.wav's results" });
  expect(job.error).toBeNull();
  expect(job.status).toBe("complete");
  expect(job.livemode).toBe(true);
  expect(job.source.type).toBe("upload");
  // The job read the whole file, not a prefix caught mid-copy.
  const [upload] = query<{ size: number; filename: string }>(`SELECT size, filename FROM uploads WHERE id = '${job.source.upload_id}'`);
  expect(upload).toEqual({ size: RECORDING.length, filename: "first.wav" });
  const out = join(dir, "clipyard", "first.wav");
  const clip = job.output.clips[0];
  expect(job.output.clips).toHaveLength(1);
  for (const file of [clip.rendered_urls.linkedin, clip.rendered_urls.x, clip.captions_srt_url, job.output.transcript_srt_url, job.output.transcript_vtt_url, job.output.transcript_txt_url, job.output.chapters_url, "notes.md", "transcript.json"]) {
    expect(existsSync(join(out, file))).toBe(true);
  }
  expect(readFileSync(join(out, job.output.transcript_txt_url), "utf8").toLowerCase()).toContain("country");
  expect(jobCount()).toBe(1);

  // kill -9, then a new watcher on the same folder and data directory.
  expect(await watcher.kill9()).not.toBe(0);
  await startWatcher();
  await copySlowly("second.wav", 4, 200);
  // The second file settles over several scans, each of which also passed first.wav.
  const second = await eventually(() => readJobJson("second.wav"), (j) => j !== null, { timeoutMs: 300_000, what: "second.wav's results" });
  expect(second.status).toBe("complete");
  expect(jobCount()).toBe(2);
  expect(query<{ name: string }>("SELECT name FROM watch_files WHERE job_id IS NOT NULL ORDER BY name").map((r) => r.name)).toEqual(["first.wav", "second.wav"]);
  // A file that only looks like media is settled as skipped, once, with the reason; no job, no results.
  const skipped = query<{ name: string; skipped_reason: string }>("SELECT name, skipped_reason FROM watch_files WHERE job_id IS NULL");
  expect(skipped).toEqual([{ name: "broken.mp4", skipped_reason: expect.stringContaining("not readable media") }]);
  expect(existsSync(join(dir, "clipyard", "broken.mp4"))).toBe(false);
  expect(readJobJson("first.wav").id).toBe(job.id);
  expect(existsSync(join(dir, "clipyard", "notes.txt"))).toBe(false);
  expect(existsSync(join(dir, "clipyard", "later.wav.part"))).toBe(false);
}, 600_000);

testShared("a watcher killed while a job runs: the next run finishes the job and writes its results", async () => {
  await startWatcher();
  await copySlowly("third.wav", 2, 100);
  const processing = () => query<{ id: string; status: string }>("SELECT j.id, j.status FROM watch_files w JOIN jobs j ON j.id = w.job_id WHERE w.name = 'third.wav'");
  const [running] = await eventually(processing, (rows) => rows[0]?.status === "processing", { timeoutMs: 60_000, what: "third.wav's job to start" });
  expect(await watcher.kill9()).not.toBe(0);
  // The restarted watcher's scheduler takes the job over once the dead process's lease lapses.
  await startWatcher();
  const done = await eventually(() => readJobJson("third.wav"), (j) => j !== null, { timeoutMs: 400_000, what: "third.wav's results" });
  expect(done).toMatchObject({ id: running!.id, status: "complete" });
  expect(jobCount()).toBe(3);
}, 600_000);

test("clipyard watch refuses a missing folder and bad options, and stops cleanly on SIGTERM", async () => {
  const run = async (...args: string[]) => {
    const p = Bun.spawn(["bun", "run", "src/main.ts", "watch", ...args], { env: watcher.env, cwd: join(import.meta.dir, "../.."), stdout: "pipe", stderr: "pipe" });
    return { code: await p.exited, err: await new Response(p.stderr).text() };
  };
  expect((await run()).code).toBe(2);
  expect(await run(join(dir, "nope"))).toMatchObject({ code: 2, err: expect.stringContaining("is not a folder") });
  expect(await run(dir, "--caption-style", "comic")).toMatchObject({ code: 2, err: expect.stringContaining("caption_style") });
  const log = await startWatcher();
  watcher.proc!.kill("SIGTERM");
  expect(await watcher.proc!.exited).toBe(0);
  expect(readFileSync(log, "utf8")).toContain("shutting down");
}, 60_000);
