/**
 * A finished live job on a real recording, run once per test run and handed to every test file that
 * asks for the same recording with the same options: end-to-end files that only start from a
 * finished job (re-render, the editing loop) then each pay for their own step, not for the whole
 * pipeline again. Files that test the flow itself (upload, watch folder, restart) run their own job.
 *
 * The job is built by the real pipeline through a real appliance (real HTTP server, real SQLite, the
 * recording served over HTTP), which is then stopped; each caller gets a copy of its data folder, so
 * corrections, renders and deletions in one file never reach another, and an appliance started on
 * that copy.
 *
 * Sharing needs CLIPYARD_TEST_JOB_CACHE, a folder that lives as long as the run (scripts/test.sh makes
 * one and removes it at the end). Without it, as when a file runs alone, every call builds its own job
 * in the caller's appliance, as the files did before. The bun workers are separate processes: the
 * first to ask builds under a lock folder (mkdir is atomic) and publishes by renaming the finished
 * folder (atomic too); the others wait for that folder, or take over the lock when its builder died.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { ROOT_DIR } from "../../src/config.ts";
import { jobWorkDir } from "../../src/pipeline/output.ts";
import { startAppliance, type TestAppliance } from "./appliance.ts";
import { TEST_DATABASE_URL } from "./db.ts";
import { startMediaServer } from "./media-server.ts";
import { sharedFile } from "./shared.ts";
import { eventually } from "./wait.ts";

/**
 * Two 5-14 s karaoke clips of the shared phone call: the job test/e2e/rerender.test.ts,
 * test/e2e/editing.test.ts, test/browser/review-rerender.test.ts and test/browser/editor-page.test.ts
 * start from (a recording path is read only inside a shared test).
 */
export const CALL_TWO_CLIPS = {
  recording: () => sharedFile("two_speakers_call.wav"),
  options: { clip_count: 2, min_clip_seconds: 5, max_clip_seconds: 14, caption_style: "karaoke" },
};

/** The organisation the shared job belongs to; `key` is a new live key of it in the caller's appliance. */
const ORG = "finished-job";
const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "1" };

export interface FinishedJob {
  /** An appliance of the caller's own on its own copy of the job's data folder; the caller stops it. */
  app: TestAppliance;
  /** The organisation that owns the job (a dashboard sign-in names it). */
  org: string;
  key: string;
  id: string;
  /** The job as this appliance presents it (its URLs on this appliance's address). */
  job: any;
}

/**
 * A live job on `recording` (a local media file, served to the appliance over HTTP as a video_url
 * source) with `options`, complete or failed, in an appliance of the caller's own. `env` is laid over
 * that appliance's settings (a shared job itself is always built with the same ones).
 */
export async function finishedJob(recording: string, options: Record<string, unknown>, opts: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<FinishedJob> {
  const timeoutMs = opts.timeoutMs ?? 280_000;
  const env = { ...LAN, ...opts.env };
  const root = process.env.CLIPYARD_TEST_JOB_CACHE;
  // PostgreSQL keeps the job's rows outside the data folder, where a copy of the folder cannot follow.
  if (!root || TEST_DATABASE_URL) {
    const app = await startAppliance({ env });
    const id = await runJob(app, recording, options, timeoutMs);
    return presentTo(app, id);
  }
  const built = await cached(root, cacheKey(recording, options), (dataDir) => buildInto(dataDir, recording, options, timeoutMs), timeoutMs + 120_000);
  const id = readFileSync(join(built, "job-id"), "utf8");
  const dataDir = mkdtempSync(join(tmpdir(), "clipyard-test-"));
  cpSync(join(built, "data"), dataDir, { recursive: true });
  rerootCheckpoint(dataDir, readFileSync(join(built, "built-in"), "utf8"), id);
  return presentTo(await startAppliance({ env, dataDir }), id);
}

async function presentTo(app: TestAppliance, id: string): Promise<FinishedJob> {
  const key = app.key(ORG, "live");
  const res = await app.api("GET", `/v1/jobs/${id}`, { key });
  if (res.status !== 200) throw new Error(`the finished job ${id} is not readable in its copy: ${res.status} ${res.text}`);
  return { app, org: ORG, key, id, job: res.json };
}

/** Submits the job through the API and waits until it is complete or failed; returns its id. */
async function runJob(app: TestAppliance, recording: string, options: Record<string, unknown>, timeoutMs: number): Promise<string> {
  const media = startMediaServer(dirname(recording));
  try {
    const key = app.key(ORG, "live");
    const submitted = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "video_url", url: media.url(basename(recording)) }, options } });
    if (submitted.status !== 202) throw new Error(`the finished job's submission answered ${submitted.status}: ${submitted.text}`);
    const id = submitted.json.id as string;
    await eventually(async () => (await app.api("GET", `/v1/jobs/${id}`, { key })).json, (j) => j.status === "complete" || j.status === "failed", { timeoutMs, what: `the job on ${basename(recording)}` });
    return id;
  } finally {
    media.stop();
  }
}

async function buildInto(dataDir: string, recording: string, options: Record<string, unknown>, timeoutMs: number): Promise<string> {
  const app = await startAppliance({ env: LAN, dataDir, keepDataDir: true });
  try {
    return await runJob(app, recording, options, timeoutMs);
  } finally {
    await app.stop();
  }
}

/**
 * The checkpoint names the job's acquired source by its absolute path in the data folder it was
 * made in (a re-render cuts from it); in a copy it must name the copy's own file.
 */
function rerootCheckpoint(dataDir: string, from: string, id: string): void {
  const file = join(jobWorkDir(dataDir, id), "checkpoint.json");
  if (!existsSync(file)) return;
  writeFileSync(file, readFileSync(file, "utf8").replaceAll(JSON.stringify(from).slice(1, -1), JSON.stringify(dataDir).slice(1, -1)));
}

/** What decides the job: the recording's bytes, the options, and the code and models that run it. */
function cacheKey(recording: string, options: Record<string, unknown>): string {
  const h = new Bun.CryptoHasher("sha256");
  h.update(readFileSync(recording));
  h.update(JSON.stringify(options));
  h.update(JSON.stringify(LAN));
  h.update(codeVersion());
  return h.digest("hex").slice(0, 24);
}

let version: string | undefined;
/** A hash of every source file the pipeline runs (src/, python/) and the environment's model choices. */
function codeVersion(): string {
  if (version) return version;
  const h = new Bun.CryptoHasher("sha256");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else h.update(relative(ROOT_DIR, path)).update(readFileSync(path));
    }
  };
  for (const d of ["src", "python"]) if (existsSync(join(ROOT_DIR, d))) walk(join(ROOT_DIR, d));
  h.update(JSON.stringify(Object.entries(process.env).filter(([k]) => k.startsWith("CLIPYARD_") && k !== "CLIPYARD_TEST_JOB_CACHE").sort()));
  return (version = h.digest("hex"));
}

/**
 * The folder `root/key` holding `data/`, `job-id` and `built-in` (the data folder's path while it was built), built by `build` in the first process to ask.
 * The builder holds `key.lock` (a folder with its pid in it) until it has renamed its finished folder
 * into place; a lock whose process is gone is taken over.
 */
async function cached(root: string, key: string, build: (dataDir: string) => Promise<string>, timeoutMs: number): Promise<string> {
  mkdirSync(root, { recursive: true });
  const done = join(root, key);
  const lock = join(root, `${key}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(done)) return done;
    if (takeLock(lock)) {
      try {
        if (existsSync(done)) return done;
        const building = mkdtempSync(join(root, `${key}.building-`));
        const id = await build(join(building, "data"));
        writeFileSync(join(building, "job-id"), id);
        // Where it was made: the paths inside name this folder, not the one it is renamed to.
        writeFileSync(join(building, "built-in"), join(building, "data"));
        renameSync(building, done);
        return done;
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for another test process to build the finished job ${key} (${lock})`);
    // Another process is building it: wait for its folder (the lock going away without one means it failed: try again).
    await eventually(() => existsSync(done) || !existsSync(lock) || !lockAlive(lock), Boolean, { timeoutMs: Math.max(1000, deadline - Date.now()), what: `the finished job ${key}` });
    if (!existsSync(done) && existsSync(lock) && !lockAlive(lock)) rmSync(lock, { recursive: true, force: true });
  }
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
  } catch {
    return false;
  }
  writeFileSync(join(lock, "pid"), String(process.pid));
  return true;
}

function lockAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    // Just made, its pid not yet written: alive.
    return true;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
