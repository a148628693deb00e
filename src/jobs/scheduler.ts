import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import type { JobRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { log } from "../log.ts";
import { failureDetail, INTERNAL_FAILURE } from "./failure.ts";
import type { SandboxRunner } from "./sandbox-runner.ts";
import { claimDueFinishes, claimNextJob, extendJobLease, nextWakeAt, releaseJobLeases, requeueExpiredLeases } from "./store.ts";
import type { JobTransitions } from "./transitions.ts";
import { Pacer } from "./pacer.ts";
import { failStalledJobs, STALL_BUDGET_MS } from "./watchdog.ts";

/** Runs one live job to a terminal state; resolves when it is done (it makes the transition itself). */
export interface LiveRunner {
  run(job: JobRow, lease: Lease): Promise<void>;
}

export interface Lease {
  owner: string;
  /** Extends the lease and records progress; returns false when the job is no longer ours. */
  heartbeat(progress?: { stage: string; percent: number }): boolean;
  signal: AbortSignal;
}

export interface SchedulerOptions {
  workers: number;
  /** Live jobs one organisation may hold in processing at once on this node (acquiring or running). */
  perOrgLimit?: number;
  timeScale: number;
  leaseMs?: number;
  /** Upper bound on the sleep between ticks when nothing is due. */
  maxIdleMs?: number;
  /** Periodic clean-up beside the jobs (expired uploads), run at most once per HOUSEKEEPING_MS. */
  housekeeping?: Array<() => void>;
}

const HOUSEKEEPING_MS = 60_000;

/**
 * Claims due jobs with a lease, hands them to the sandbox or live runner, runs the stall watchdog and
 * requeues jobs whose worker died. `tick()` does one round synchronously with the injected clock, so
 * tests drive it step by step; `start()` runs ticks on timers for the server.
 */
export class Scheduler {
  readonly owner = newId("worker");
  private readonly leaseMs: number;
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly pacer: Pacer;
  private closing = false;
  private lastHousekeeping = -Infinity;
  /** The last tick left queued live jobs it could not claim; a job ending (wake) or the idle tick retries. */
  private liveBlocked = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly transitions: JobTransitions,
    private readonly sandbox: SandboxRunner,
    private readonly live: LiveRunner,
    private readonly opts: SchedulerOptions,
  ) {
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.pacer = new Pacer("scheduler tick", clock, () => this.tick(), () => nextWakeAt(this.db, this.liveBlocked), opts.maxIdleMs ?? 1000);
  }

  get activeLiveJobs(): number {
    return this.running.size;
  }

  tick(): void {
    const now = this.clock.now();
    if (now - this.lastHousekeeping >= HOUSEKEEPING_MS) {
      this.lastHousekeeping = now;
      for (const task of this.opts.housekeeping ?? []) {
        try {
          task();
        } catch (err) {
          log.error("housekeeping failed", { error: (err as Error).message });
        }
      }
    }
    failStalledJobs(this.db, this.clock, this.transitions, STALL_BUDGET_MS * this.opts.timeScale);
    const requeued = requeueExpiredLeases(this.db, now);
    if (requeued.length) log.warn("requeued jobs whose lease lapsed", { jobs: requeued });
    for (const job of claimDueFinishes(this.db, this.owner, now, this.leaseMs)) {
      this.guarded(job, () => this.sandbox.finish(job, this.owner));
    }
    for (let job; (job = claimNextJob(this.db, "test", this.owner, now, this.leaseMs)); ) {
      const claimed = job;
      this.guarded(claimed, () => this.sandbox.begin(claimed, this.owner));
    }
    this.liveBlocked = true;
    while (!this.closing && this.running.size < this.opts.workers) {
      const job = claimNextJob(this.db, "live", this.owner, now, this.leaseMs, this.opts.perOrgLimit ?? this.opts.workers);
      if (!job) break;
      this.startLive(job);
    }
  }

  /** A job whose step throws fails cleanly instead of being retried on every tick. */
  private guarded(job: JobRow, step: () => void): void {
    try {
      step();
    } catch (err) {
      log.error("job step failed", { job: job.id, detail: failureDetail(err) });
      this.transitions.fail(job.id, "analysis_failed", INTERNAL_FAILURE, { from: ["queued", "processing"] });
    }
  }

  private startLive(job: JobRow): void {
    const controller = new AbortController();
    const lease: Lease = {
      owner: this.owner,
      signal: controller.signal,
      heartbeat: (progress) => {
        const ok = extendLeaseFor(this.db, job.id, this.owner, this.clock.now() + this.leaseMs, progress);
        if (!ok) controller.abort(new Error("lease lost"));
        return ok;
      },
    };
    const beat = setInterval(() => lease.heartbeat(), Math.max(1000, this.leaseMs / 4));
    const done = this.live
      .run(job, lease)
      .catch((err) => log.error("live runner crashed", { job: job.id, error: String(err) }))
      .finally(() => {
        clearInterval(beat);
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { controller, done });
  }

  /** Starts ticking: immediately, then whenever something is due (at most maxIdleMs apart). */
  start(): void {
    this.pacer.start();
  }

  wake(): void {
    this.pacer.wake();
  }

  /**
   * Graceful stop: no new claims; running live jobs are aborted and their leases released so the
   * next start resumes them from their last checkpoint.
   */
  async stop(graceMs = 5000): Promise<void> {
    this.closing = true;
    this.pacer.stop();
    for (const r of this.running.values()) r.controller.abort(new Error("shutting down"));
    await Promise.race([Promise.all([...this.running.values()].map((r) => r.done)), Bun.sleep(graceMs)]);
    releaseJobLeases(this.db, this.owner, this.clock.now());
  }
}

function extendLeaseFor(db: Db, id: string, owner: string, until: number, progress?: { stage: string; percent: number }): boolean {
  return extendJobLease(db, id, owner, until, progress ? JSON.stringify(progress) : undefined);
}
