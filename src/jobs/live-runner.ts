import type { Config } from "../config.ts";
import type { JobRow } from "../db/schema.ts";
import { log } from "../log.ts";
import { runStages, type LivePipeline } from "../pipeline/stage.ts";
import { jobWorkDir } from "../pipeline/output.ts";
import { failureDetail, publicFailure } from "./failure.ts";
import type { Lease, LiveRunner } from "./scheduler.ts";
import type { JobTransitions } from "./transitions.ts";

export type { LivePipeline };

/**
 * Runs the live stages for a claimed job, reporting progress through the lease heartbeat, and makes
 * the terminal transition. A lost lease (another worker took over, or shutdown) stops the run
 * without touching the job: whoever holds it now decides.
 */
export class StagedLiveRunner<S extends Record<string, unknown>> implements LiveRunner {
  constructor(
    private readonly config: Config,
    private readonly transitions: JobTransitions,
    private readonly pipeline: LivePipeline<S>,
  ) {}

  async run(job: JobRow, lease: Lease): Promise<void> {
    const guard = { from: ["processing" as const], owner: lease.owner };
    let state: S;
    try {
      state = await runStages(this.pipeline.stages(job), {
        jobId: job.id,
        workDir: jobWorkDir(this.config.dataDir, job.id),
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
      this.transitions.fail(job.id, code, message, guard);
      return;
    }
    this.transitions.complete(job.id, this.pipeline.output(state, job), guard);
  }
}
