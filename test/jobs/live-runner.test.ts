import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKey } from "../../src/accounts/keys.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import { openTestDb, testDbEnv } from "../helpers/db.ts";
import { StagedLiveRunner, type LivePipeline } from "../../src/jobs/live-runner.ts";
import { SandboxRunner } from "../../src/jobs/sandbox-runner.ts";
import { Scheduler } from "../../src/jobs/scheduler.ts";
import { getJobById } from "../../src/jobs/store.ts";
import { submitJob } from "../../src/jobs/submit.ts";
import { JobTransitions } from "../../src/jobs/transitions.ts";
import { PipelineError } from "../../src/pipeline/stage.ts";
import { eventually } from "../helpers/wait.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type S = { a?: number; b?: number };

function world(pipeline: LivePipeline<S>, clock: ManualClock, db?: Db) {
  const config = loadConfig({ CLIPYARD_DATA_DIR: dir, ...testDbEnv(dir) });
  db ??= openTestDb(dir);
  const transitions = new JobTransitions(db, clock, "secret");
  const scheduler = new Scheduler(
    db,
    clock,
    transitions,
    new SandboxRunner(db, clock, transitions, 1),
    new StagedLiveRunner(config, transitions, pipeline),
    { workers: 1, timeScale: 1, leaseMs: 60_000 },
  );
  return { db, scheduler, transitions };
}

const output = () => ({ clips: [], trailer: null, show_notes: "# n", transcript: [] });

function liveJob(db: Db, clock: ManualClock): string {
  const org = ensureOrg(db, "o", clock);
  createKey(db, org.id, "live", clock);
  return submitJob(db, clock, { orgId: org.id, env: "live" }, { source: { type: "video_url", url: "https://e.com/a.mp4" } }, { requestId: "req_x", timeScale: 1 }).job.id;
}

test("a worker that dies mid-job: its lease lapses, the job is requeued and resumes at the stage it was in", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-live-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const calls: string[] = [];
  let hang = true;
  const pipeline: LivePipeline<S> = {
    initialState: () => ({}),
    stages: () => [
      { name: "one", weight: 1, run: async (ctx) => void (calls.push("one"), (ctx.state.a = 1)) },
      {
        name: "two",
        weight: 1,
        run: async (ctx) => {
          calls.push("two");
          if (hang) await new Promise(() => {}); // the process "dies" here
          ctx.state.b = (ctx.state.a ?? 0) + 1;
        },
      },
    ],
    output: (s) => ({ ...output(), show_notes: `# b=${s.b}` }),
  };
  const first = world(pipeline, clock);
  const id = liveJob(first.db, clock);
  first.scheduler.tick();
  await eventually(() => calls.length, (n) => n === 2, { what: "stage two to start" });
  expect(getJobById(first.db, id)!.status).toBe("processing");
  expect(calls).toEqual(["one", "two"]);

  // A new process (new owner) on the same database; the old one never releases its lease.
  hang = false;
  const second = world(pipeline, clock, first.db);
  second.scheduler.tick();
  expect(getJobById(first.db, id)!.leaseOwner).toBe(first.scheduler.owner); // lease still valid
  clock.advance(60_001);
  second.scheduler.tick(); // requeue, then claim by the new owner
  const done = await eventually(() => getJobById(first.db, id)!, (j) => j.status !== "processing" && j.status !== "queued", { what: "the resumed job to end" });
  expect(done.status).toBe("complete");
  expect(JSON.parse(done.output!).show_notes).toBe("# b=2");
  expect(done.attempts).toBe(2);
  expect(calls).toEqual(["one", "two", "two"]); // stage one was not run again
});

test("a pipeline error fails the job with its code; an unexpected error becomes analysis_failed", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-live-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let error: Error = new PipelineError("no_clips_to_render", "No speech long enough for a clip.");
  const pipeline: LivePipeline<S> = {
    initialState: () => ({}),
    stages: () => [{ name: "x", weight: 1, run: async () => { throw error; } }],
    output,
  };
  const w = world(pipeline, clock);
  const a = liveJob(w.db, clock);
  w.scheduler.tick();
  await eventually(() => getJobById(w.db, a)!.status, (s) => s === "failed" || s === "complete");
  expect(getJobById(w.db, a)).toMatchObject({ status: "failed", errorCode: "no_clips_to_render", errorMessage: "No speech long enough for a clip." });
  error = new TypeError("boom");
  const b = liveJob(w.db, clock);
  w.scheduler.tick();
  await eventually(() => getJobById(w.db, b)!.status, (s) => s === "failed" || s === "complete");
  expect(getJobById(w.db, b)).toMatchObject({ status: "failed", errorCode: "analysis_failed" });
});

test("progress is recorded on the job while it runs", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-live-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const pipeline: LivePipeline<S> = {
    initialState: () => ({}),
    stages: () => [
      { name: "fast", weight: 1, run: async () => {} },
      { name: "slow", weight: 3, run: async (ctx) => { ctx.report(0.5); await gate; } },
    ],
    output,
  };
  const w = world(pipeline, clock);
  const id = liveJob(w.db, clock);
  w.scheduler.tick();
  await eventually(() => getJobById(w.db, id)!.progress, (p) => p === JSON.stringify({ stage: "slow", percent: 63 }), { what: "the slow stage's reported progress" });
  release();
  await eventually(() => getJobById(w.db, id)!.status, (s) => s !== "processing", { what: "the job to end" });
  expect(getJobById(w.db, id)!.status).toBe("complete");
  expect(getJobById(w.db, id)!.progress).toBeNull();
});

test("a failed job shows the code and a plain sentence; the traceback and paths go to the log with the job id", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-live-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const traceback = `Traceback (most recent call last):\n  File "/opt/clipyard/.vendor/speech-venv/lib/python3.11/site-packages/ctranslate2/models.py", line 9\nRuntimeError: corrupted`;
  let error: Error = new Error(traceback);
  const pipeline: LivePipeline<S> = {
    initialState: () => ({}),
    stages: () => [{ name: "x", weight: 1, run: async () => { throw error; } }],
    output,
  };
  const w = world(pipeline, clock);
  const logged: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => (logged.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const a = liveJob(w.db, clock);
    w.scheduler.tick();
    await eventually(() => getJobById(w.db, a)?.status, (s) => s === "failed");
    const failed = getJobById(w.db, a)!;
    expect(failed.errorCode).toBe("analysis_failed");
    expect(failed.errorMessage).not.toContain("Traceback");
    expect(failed.errorMessage).not.toContain("/opt/clipyard");
    expect(failed.errorMessage).toContain("log");
    const line = logged.find((l) => l.includes('"job failed"') && l.includes(a));
    expect(line).toBeDefined();
    expect(line).toContain("site-packages/ctranslate2");

    // A pipeline error's own sentence is kept, but never a path of the appliance's.
    error = new PipelineError("media_fetch_failed", `the file ${join(dir, "jobs", "job_x", "source", "source.media")} is no media`);
    const b = liveJob(w.db, clock);
    w.scheduler.tick();
    await eventually(() => getJobById(w.db, b)?.status, (s) => s === "failed");
    const message = getJobById(w.db, b)!.errorMessage!;
    expect(message).not.toContain(dir);
    expect(message).not.toContain("job_x");
    expect(message).toStartWith("the file ");
    expect(message).toEndWith(" is no media");
  } finally {
    process.stderr.write = write;
  }
});
