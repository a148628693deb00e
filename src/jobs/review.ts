import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { JobRow } from "../db/schema.ts";
import type { ClipReview, StoredClip, StoredOutput } from "../pipeline/output.ts";
import { getJobById, replaceOutput } from "./store.ts";

export type ReviewDecision = ClipReview["decision"];

/** Work committed with a review (the clip.reviewed webhook outbox); throwing rolls the review back. */
export type ReviewEffect = (job: JobRow, clip: StoredClip, requestId: string) => void;

/**
 * Records a guest's decision on one clip of a complete job. The decision lives in the job's stored
 * output, so every view of the job (API, lists, webhooks, dashboard) shows it through the one
 * serializer. Repeating the current decision changes nothing and sends no event; a changed decision
 * replaces the old one (the latest word counts) and is announced again.
 */
export function reviewClip(
  db: Db,
  clock: Clock,
  effects: ReviewEffect[],
  jobId: string,
  rank: number,
  decision: ReviewDecision,
  requestId: string,
): { clip: StoredClip; changed: boolean } | undefined {
  return tx(db, () => {
    const job = getJobById(db, jobId);
    if (!job || job.status !== "complete" || !job.output) return undefined;
    const output = JSON.parse(job.output) as StoredOutput;
    const clip = output.clips.find((c) => c.rank === rank);
    if (!clip) return undefined;
    if (clip.review?.decision === decision) return { clip, changed: false };
    clip.review = { decision, reviewed_at: clock.now() };
    const row = replaceOutput(db, job.id, JSON.stringify(output))!;
    for (const effect of effects) effect(row, clip, requestId);
    return { clip, changed: true };
  });
}
