import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKey } from "../../src/accounts/keys.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { OUT_OF_SPACE_FAILURE } from "../../src/jobs/failure.ts";
import { StagedLiveRunner, type LivePipeline } from "../../src/jobs/live-runner.ts";
import { SandboxRunner } from "../../src/jobs/sandbox-runner.ts";
import { Scheduler } from "../../src/jobs/scheduler.ts";
import { getJobById } from "../../src/jobs/store.ts";
import { submitJob } from "../../src/jobs/submit.ts";
import { JobTransitions } from "../../src/jobs/transitions.ts";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { DownloadError, downloadToFile } from "../../src/media/download.ts";
import { jobOutputDir, jobWorkDir } from "../../src/pipeline/output.ts";
import { PipelineError } from "../../src/pipeline/stage.ts";
import { isOutOfSpace } from "../../src/storage/disk-space.ts";
import { openTestDb, testDbEnv } from "../helpers/db.ts";
import { speechWav } from "../helpers/speech.ts";
import { eventually } from "../helpers/wait.ts";
import { smallDisk } from "../helpers/tmpfs.ts";

/**
 * A job that runs the data disk out (issue 36) fails cleanly: analysis_failed with a sentence that
 * says so, its partial files removed, the appliance still running. The disk is a real 16 MiB tmpfs
 * and the decode is the pipeline's own (real ffmpeg), so ENOSPC comes from the kernel.
 */
const MiB = 1024 * 1024;
const { root, disk, onTmpfs, cleanup: cleanupDisk } = smallDisk(16, "clipyard-jobdisk-");
afterAll(() => {
  cleanupDisk();
});

onTmpfs("a live job whose decode fills the disk fails with analysis_failed, leaves no files, and the next job runs", async () => {
  const dbDir = join(root, "db");
  mkdirSync(dbDir);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const config = loadConfig({ CLIPYARD_DATA_DIR: disk, ...testDbEnv(dbDir) });
  const db = openTestDb(dbDir);
  const transitions = new JobTransitions(db, clock, "secret");
  type S = { decoded?: boolean };
  const pipeline: LivePipeline<S> = {
    initialState: () => ({}),
    stages: () => [
      {
        name: "transcribe",
        weight: 1,
        run: async (ctx) => {
          // What the transcribe stage does first, with what it leaves in the output folder beside it.
          mkdirSync(join(ctx.workDir, "out"), { recursive: true });
          writeFileSync(join(ctx.workDir, "out", "partial.txt"), "x");
          try {
            await decodeToSpeechWav(speechWav(), join(ctx.workDir, "speech.wav"));
          } catch (err) {
            throw new PipelineError("analysis_failed", "transcription failed", { cause: err });
          }
          ctx.state.decoded = true;
        },
      },
    ],
    output: () => ({ clips: [], trailer: null, show_notes: "# n", transcript: [] }),
  };
  const scheduler = new Scheduler(db, clock, transitions, new SandboxRunner(db, clock, transitions, 1), new StagedLiveRunner(config, transitions, pipeline), {
    workers: 1,
    timeScale: 1,
    leaseMs: 60_000,
  });
  const org = ensureOrg(db, "disk-full", clock);
  createKey(db, org.id, "live", clock);
  const submit = () => submitJob(db, clock, { orgId: org.id, env: "live" }, { source: { type: "video_url", url: "https://e.com/a.mp4" } }, { requestId: "req_x", timeScale: 1 }).job.id;

  // 11 s of speech is 704 kB of float samples: leave 256 kB.
  const { bavail, bsize } = statfsSync(disk);
  const filler = join(disk, "filler");
  writeFileSync(filler, Buffer.alloc(bavail * bsize - 256 * 1024));
  try {
    const first = submit();
    scheduler.tick();
    const failed = await eventually(() => getJobById(db, first)!, (j) => j.status === "failed", { what: "the job to fail" });
    expect(failed).toMatchObject({ errorCode: "analysis_failed", errorMessage: OUT_OF_SPACE_FAILURE });
    expect(existsSync(jobWorkDir(disk, first))).toBe(false);
    expect(existsSync(jobOutputDir(disk, first))).toBe(false);
    expect(readdirSync(join(disk, "jobs"))).toEqual([]);

    // Space back: the same work completes.
    rmSync(filler);
    const second = submit();
    scheduler.tick();
    await eventually(() => getJobById(db, second)!.status, (s) => s === "complete", { what: "the second job to complete" });
  } finally {
    rmSync(filler, { force: true });
    await scheduler.stop(100);
    db.$client.close();
  }
}, 60_000);

onTmpfs("ffmpeg's own report of a full disk counts as out of space, through the causes a stage wraps it in", async () => {
  const { bavail, bsize } = statfsSync(disk);
  const filler = join(disk, "filler2");
  writeFileSync(filler, Buffer.alloc(bavail * bsize - 128 * 1024));
  try {
    const err = await decodeToSpeechWav(speechWav(), join(disk, "speech.wav")).then(() => null, (e) => e);
    expect(err).not.toBeNull();
    expect(isOutOfSpace(new PipelineError("media_fetch_failed", "not media", { cause: err }))).toBe(true);
    expect(isOutOfSpace(new PipelineError("media_fetch_failed", "not media", { cause: new Error("moov atom not found") }))).toBe(false);
  } finally {
    rmSync(filler, { force: true });
  }
});

onTmpfs("a download that fills the disk fails with a DownloadError naming it, its .part file gone (no wait for a drain that never comes)", async () => {
  const chunk = new Uint8Array(MiB).fill(3);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(new ReadableStream({ start(c) { for (let i = 0; i < 8; i++) c.enqueue(chunk); c.close(); } })),
  });
  const { bavail, bsize } = statfsSync(disk);
  const filler = join(disk, "filler3");
  writeFileSync(filler, Buffer.alloc(bavail * bsize - 1024 * 1024));
  try {
    const dest = join(disk, "episode.mp4");
    const err = await downloadToFile(`http://127.0.0.1:${server.port}/e.mp4`, dest, { policy: { allowPrivateNetwork: true, allowHttp: true }, maxBytes: 64 * MiB, timeoutMs: 20_000 }).then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(DownloadError);
    expect(isOutOfSpace(err)).toBe(true);
    expect(existsSync(`${dest}.part`)).toBe(false);
    expect(existsSync(dest)).toBe(false);
  } finally {
    rmSync(filler, { force: true });
    server.stop(true);
  }
}, 30_000);
