import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureOrg } from "../../../src/accounts/orgs.ts";
import { ManualClock } from "../../../src/clock.ts";
import type { Db } from "../../../src/db/client.ts";
import type { JobRow } from "../../../src/db/schema.ts";
import { newId } from "../../../src/ids.ts";
import { SandboxRunner } from "../../../src/jobs/sandbox-runner.ts";
import { Scheduler, type Lease, type LiveRunner, type SchedulerOptions } from "../../../src/jobs/scheduler.ts";
import { getJobById, insertJob } from "../../../src/jobs/store.ts";
import { JobTransitions } from "../../../src/jobs/transitions.ts";
import { STALL_BUDGET_MS } from "../../../src/jobs/watchdog.ts";
import { openTestDb } from "../../helpers/db.ts";
import { eventually } from "../../helpers/wait.ts";

/**
 * The scheduler on its own: a real database (SQLite, or PostgreSQL under CLIPYARD_TEST_DATABASE_URL),
 * the real sandbox runner and transitions, and a manual clock the test moves; `tick()` is driven by
 * hand. The live runner is the scheduler's own seam: a runner that holds each job until the test lets
 * it end (or its lease is lost), so claims, slots and leases can be watched one step at a time.
 */
class HeldRunner implements LiveRunner {
  readonly runs: Array<{ job: JobRow; lease: Lease; end: () => void }> = [];
  run(job: JobRow, lease: Lease): Promise<void> {
    return new Promise((resolve) => {
      lease.signal.addEventListener("abort", () => resolve());
      this.runs.push({ job, lease, end: resolve });
    });
  }
  leaseOf(id: string): Lease {
    return this.runs.find((r) => r.job.id === id)!.lease;
  }
}

const dirs: string[] = [];
const schedulers: Scheduler[] = [];
afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.stop(0);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const START = Date.UTC(2026, 5, 1);

function rig(opts: Partial<SchedulerOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-scheduler-"));
  dirs.push(dir);
  const db = openTestDb(dir);
  const clock = new ManualClock(START);
  const transitions = new JobTransitions(db, clock, "scheduler-test-secret");
  const sandbox = new SandboxRunner(db, clock, transitions, 1);
  const node = () => {
    const live = new HeldRunner();
    const scheduler = new Scheduler(db, clock, transitions, sandbox, live, { workers: 2, timeScale: 1, leaseMs: 10_000, ...opts });
    schedulers.push(scheduler);
    return { scheduler, live };
  };
  return { db, clock, transitions, node, ...node() };
}

function queue(db: Db, clock: ManualClock, org: string, env: "live" | "test" = "live", options = "{}"): string {
  const id = newId("job");
  insertJob(db, {
    id,
    orgId: ensureOrg(db, org, clock).id,
    env,
    status: "queued",
    sourceType: "video_url",
    sourceUrl: "https://x.example.com/episode.mp4",
    options,
    createdAt: clock.now(),
    runAfter: clock.now(),
    requestId: newId("req"),
  });
  return id;
}

const row = (db: Db, id: string) => getJobById(db, id)!;

describe("live jobs", () => {
  test("one organisation runs at most perOrgLimit jobs at once, even with workers free; a job ending frees its slot", async () => {
    const { db, clock, scheduler, live, transitions } = rig({ workers: 3, perOrgLimit: 1 });
    const a1 = queue(db, clock, "org-a");
    const a2 = queue(db, clock, "org-a");
    const b1 = queue(db, clock, "org-b");
    const b2 = queue(db, clock, "org-b");
    scheduler.tick();
    expect(live.runs.map((r) => r.job.id).sort()).toEqual([a1, b1].sort());
    expect(scheduler.activeLiveJobs).toBe(2);
    expect([row(db, a1).status, row(db, b1).status, row(db, a2).status, row(db, b2).status]).toEqual(["processing", "processing", "queued", "queued"]);
    expect(row(db, a1)).toMatchObject({ leaseOwner: scheduler.owner, leaseExpiresAt: START + 10_000, attempts: 1, startedAt: START });

    scheduler.tick();
    expect(live.runs).toHaveLength(2);

    // The runner makes the terminal transition itself; the slot is free once its run has ended.
    transitions.fail(a1, "analysis_failed", "ended by the test", { from: ["processing"], owner: scheduler.owner });
    live.runs[0]!.end();
    await eventually(() => scheduler.activeLiveJobs, (n) => n === 1, { what: "the ended run to leave its slot" });
    scheduler.tick();
    expect(live.runs.map((r) => r.job.id)).toEqual([a1, b1, a2]);
    expect(row(db, b2).status).toBe("queued");
  });

  test("at most `workers` run at once", () => {
    const { db, clock, scheduler, live } = rig({ workers: 2 });
    const ids = [queue(db, clock, "org-a"), queue(db, clock, "org-b"), queue(db, clock, "org-c")];
    scheduler.tick();
    scheduler.tick();
    expect(live.runs.map((r) => r.job.id)).toEqual(ids.slice(0, 2));
    expect(row(db, ids[2]!).status).toBe("queued");
  });

  test("a heartbeat extends the lease and records progress; a lease that lapses is requeued and claimed by another node, and the first node's run is aborted", () => {
    const { db, clock, scheduler, live, node } = rig({ leaseMs: 10_000 });
    const id = queue(db, clock, "org-a");
    scheduler.tick();
    const lease = live.leaseOf(id);

    clock.advance(6_000);
    expect(lease.heartbeat({ stage: "transcribing", percent: 40 })).toBe(true);
    expect(row(db, id)).toMatchObject({ leaseExpiresAt: START + 16_000, progress: JSON.stringify({ stage: "transcribing", percent: 40 }) });

    const other = node();
    clock.advance(6_000); // 12 s after the claim, 6 s after the heartbeat: still leased
    other.scheduler.tick();
    expect(row(db, id)).toMatchObject({ status: "processing", leaseOwner: scheduler.owner });
    expect(other.live.runs).toHaveLength(0);

    clock.advance(4_001); // the lease has lapsed: the worker is taken for dead
    other.scheduler.tick();
    expect(row(db, id)).toMatchObject({ status: "processing", leaseOwner: other.scheduler.owner, attempts: 2, progress: null });
    expect(other.live.runs.map((r) => r.job.id)).toEqual([id]);

    expect(lease.signal.aborted).toBe(false);
    expect(lease.heartbeat()).toBe(false);
    expect(lease.signal.aborted).toBe(true);
    expect(row(db, id).leaseOwner).toBe(other.scheduler.owner);
  });

  test("stop() aborts running jobs and releases their leases, so the next start resumes them at once; nothing is claimed after", async () => {
    const { db, clock, scheduler, live, node } = rig();
    const id = queue(db, clock, "org-a");
    scheduler.tick();
    clock.advance(2_000);
    await scheduler.stop(5_000);
    expect(live.runs[0]!.lease.signal.aborted).toBe(true);
    expect(row(db, id)).toMatchObject({ status: "queued", leaseOwner: null, leaseExpiresAt: null, runAfter: START + 2_000 });
    scheduler.tick();
    expect(live.runs).toHaveLength(1);
    expect(row(db, id).status).toBe("queued");

    const next = node();
    next.scheduler.tick();
    expect(next.live.runs.map((r) => r.job.id)).toEqual([id]);
  });
});

describe("sandbox jobs and the watchdog", () => {
  test("a sandbox job is claimed, waits in the database until its finish time, then ends once", () => {
    const { db, clock, scheduler, live } = rig();
    const id = queue(db, clock, "org-a", "test");
    scheduler.tick();
    const finishAt = row(db, id).runAfter;
    expect(row(db, id)).toMatchObject({ status: "processing", leaseOwner: null });
    expect(finishAt).toBeGreaterThan(START);
    clock.set(finishAt - 1);
    scheduler.tick();
    expect(row(db, id).status).toBe("processing");
    clock.set(finishAt);
    scheduler.tick();
    const done = row(db, id);
    expect(["complete", "failed"]).toContain(done.status);
    expect(done.completedAt).toBe(finishAt);
    clock.advance(60_000);
    scheduler.tick();
    expect(row(db, id)).toEqual(done);
    expect(live.runs).toHaveLength(0);
  });

  test("a sandbox step that throws fails its job once with analysis_failed instead of retrying it every tick", () => {
    const { db, clock, scheduler } = rig();
    const broken = queue(db, clock, "org-a", "test", "{not json");
    const fine = queue(db, clock, "org-a", "test");
    scheduler.tick();
    expect(row(db, broken)).toMatchObject({ status: "failed", errorCode: "analysis_failed", attempts: 1 });
    expect(row(db, fine).status).toBe("processing");
    scheduler.tick();
    expect(row(db, broken).attempts).toBe(1);
  });

  test("a job with no terminal state within the stall budget fails with pipeline_stalled on the next tick", () => {
    const { db, clock, scheduler, live } = rig({ workers: 0 });
    const id = queue(db, clock, "org-a");
    clock.advance(STALL_BUDGET_MS);
    scheduler.tick();
    expect(row(db, id).status).toBe("queued");
    clock.advance(1);
    scheduler.tick();
    expect(row(db, id)).toMatchObject({ status: "failed", errorCode: "pipeline_stalled" });
    expect(live.runs).toHaveLength(0);
  });
});

test("housekeeping runs on the first tick and then at most once a minute; a task that throws stops neither the others nor the claims", () => {
  let runs = 0;
  const { db, clock, scheduler, live } = rig({
    housekeeping: [
      () => {
        throw new Error("disk gone");
      },
      () => void runs++,
    ],
  });
  const id = queue(db, clock, "org-a");
  scheduler.tick();
  expect(runs).toBe(1);
  expect(live.runs.map((r) => r.job.id)).toEqual([id]);
  clock.advance(59_999);
  scheduler.tick();
  expect(runs).toBe(1);
  clock.advance(1);
  scheduler.tick();
  expect(runs).toBe(2);
});
