import { rmSync } from "node:fs";
import type { Config } from "../config.ts";
import type { JobRow } from "../db/schema.ts";
import { log } from "../log.ts";
import { runStages, type LivePipeline } from "../pipeline/stage.ts";
import { jobOutputDir, jobWorkDir } from "../pipeline/output.ts";
import { discardSharedCheckpoint, sharedCheckpoint } from "../pipeline/shared-checkpoint.ts";
import type { MediaInfo } from "../pipeline/types.ts";
import type { ObjectStore } from "../storage/index.ts";
import { isOutOfSpace } from "../storage/disk-space.ts";
import { failureDetail, publicFailure } from "./failure.ts";
import type { Lease, LiveRunner } from "./scheduler.ts";
import type { JobTransitions } from "./transitions.ts";

export type { LivePipeline };

/**
 * Runs the live stages for a claimed job, reporting progress through the lease heartbeat, and makes
 * the terminal transition. A lost lease (another worker took over, or shutdown) stops the run
 * without touching the job: whoever holds it now decides.
 */
export class StagedLiveRunner<S extends Record<string, unknown> & { source?: MediaInfo }> implements LiveRunner {
  constructor(
    private readonly config: Config,
    private readonly transitions: JobTransitions,
    private readonly pipeline: LivePipeline<S>,
    /** Shared storage: checkpoints and outputs go to the bucket, so any node can resume or serve the job. */
    private readonly store?: ObjectStore,
  ) {}

  async run(job: JobRow, lease: Lease): Promise<void> {
    const guard = { from: ["processing" as const], owner: lease.owner };
    const workDir = jobWorkDir(this.config.dataDir, job.id);
    const shared = this.store?.shared ? this.store : undefined;
    let state: S;
    try {
      state = await runStages(this.pipeline.stages(job), {
        jobId: job.id,
        workDir,
        mirror: shared && sharedCheckpoint<S>(shared, job.id, workDir, jobOutputDir(this.config.dataDir, job.id)),
        initialState: this.pipeline.initialState(job),
        signal: lease.signal,
        onProgress: (stage, percent) => lease.heartbeat({ stage, percent }),
      });
    } catch (err) {
      if (lease.signal.aborted) {
        log.info("job run stopped", { job: job.id, reason: String(lease.signal.reason) });
        return;
      }
      const { code, message } = publicFailure(err, this.config);
      log.warn("job failed", { job: job.id, code, message, detail: failureDetail(err) });
      const failed = this.transitions.fail(job.id, code, message, guard);
      if (shared && failed) {
        await this.discard(shared, job.id);
        this.dropWorkFolder(job.id);
      }
      // A job that ran the disk out gives back what it wrote: kept, its partial files would keep the
      // disk full for every job after it. Outputs live inside the work folder.
      if (failed && isOutOfSpace(err)) this.dropWorkFolder(job.id);
      return;
    }
    // A complete job keeps its shared checkpoint: re-renders start from its source and words.
    const completed = this.transitions.complete(job.id, this.pipeline.output(state, job), guard);
    if (shared && completed) this.dropWorkFolder(job.id);
  }

  /**
   * With shared storage the bucket holds everything the job left (outputs, checkpoint, source): this
   * node's copy is only working files, and a worker must not fill its disk with every job it ran.
   */
  private dropWorkFolder(jobId: string): void {
    rmSync(jobWorkDir(this.config.dataDir, jobId), { recursive: true, force: true });
  }

  /** Only once the job is over under this worker's lease: a worker that lost it must not delete what the new owner resumes from. */
  private async discard(store: ObjectStore, jobId: string): Promise<void> {
    try {
      await discardSharedCheckpoint(store, jobId);
    } catch (err) {
      log.warn("could not remove the job's checkpoint from shared storage", { job: jobId, error: (err as Error).message });
    }
  }
}
