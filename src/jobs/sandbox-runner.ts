import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import type { JobRow } from "../db/schema.ts";
import { sandboxOutcome, sandboxDurationSeconds } from "../sandbox/outcome.ts";
import { sandboxOutput } from "../sandbox/fixtures.ts";
import { setRunAfter } from "./store.ts";
import type { JobTransitions } from "./transitions.ts";

/**
 * Sandbox jobs run in two timed steps with no in-memory timers, so a restart loses nothing:
 * claimed (processing) -> wait in the database until the deterministic finish time -> terminal.
 */
export class SandboxRunner {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly transitions: JobTransitions,
    private readonly timeScale: number,
  ) {}

  finishAt(job: JobRow): number {
    const seconds = sandboxDurationSeconds({ type: job.sourceType, url: job.sourceUrl }, JSON.parse(job.options));
    return job.createdAt + Math.round(seconds * 1000 * this.timeScale);
  }

  /** Called right after the job was claimed. */
  begin(job: JobRow, owner: string): void {
    setRunAfter(this.db, job.id, owner, this.finishAt(job));
  }

  /** Called once run_after has come for a processing sandbox job, which `owner` has leased to finish it. */
  finish(job: JobRow, owner: string): void {
    const outcome = sandboxOutcome({ type: job.sourceType, url: job.sourceUrl });
    const guard = { from: ["processing" as const], owner };
    if (outcome.kind === "failure") {
      this.transitions.fail(job.id, outcome.code, outcome.message, guard);
      return;
    }
    const options = JSON.parse(job.options) as { include_trailer?: boolean };
    const output = sandboxOutput(job.id, { includeTrailer: options.include_trailer === true, sourceType: job.sourceType });
    this.transitions.complete(job.id, output, guard);
  }
}
