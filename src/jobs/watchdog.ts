import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { log } from "../log.ts";
import { overdueJobs } from "./store.ts";
import type { JobTransitions } from "./transitions.ts";

/** Spec §3: 30 minutes end to end without a terminal state fails the job with pipeline_stalled. */
export const STALL_BUDGET_MS = 30 * 60 * 1000;

export function failStalledJobs(db: Db, clock: Clock, transitions: JobTransitions, budgetMs: number): string[] {
  const failed: string[] = [];
  for (const job of overdueJobs(db, clock.now() - budgetMs)) {
    const row = transitions.fail(job.id, "pipeline_stalled", "No terminal state within the 30-minute pipeline budget.", {
      from: ["queued", "processing"],
    });
    if (row) {
      failed.push(row.id);
      log.warn("job stalled", { job: row.id });
    }
  }
  return failed;
}
