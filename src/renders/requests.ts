import type { Scope } from "../accounts/scope.ts";
import { ApiError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { ClipRenderRow, JobRow } from "../db/schema.ts";
import { newId, sha256Hex } from "../ids.ts";
import type { CaptionStyle } from "../pipeline/render/captions.ts";
import { snapToSentenceEdges } from "../pipeline/highlights/clip-bounds.ts";
import { checkpointWords } from "../pipeline/render/rerender.ts";
import type { ClipFormat } from "../pipeline/render/render.ts";
import { clipCaptionStyle, jobWorkDir, type ClipRenderState, type StoredClip, type StoredOutput } from "../pipeline/output.ts";
import { restoreCheckpoint } from "../pipeline/shared-checkpoint.ts";
import type { ObjectStore } from "../storage/index.ts";
import { insertRender, pendingRenderCount, renderByIdempotencyKey } from "./store.ts";

/** Seconds a caller refused by the queue bound is told to wait: about one render. */
export const QUEUE_RETRY_AFTER_S = 30;
import { getJob, getJobById, replaceOutput } from "../jobs/store.ts";

/** What a caller may change on a clip; anything left out keeps the clip's current value. */
export interface RerenderParams {
  caption_style?: CaptionStyle;
  start_time?: number;
  end_time?: number;
  formats?: ClipFormat[];
}

/** The render a request resolves to: every field decided, bounds snapped. */
type Resolved = Pick<ClipRenderState, "caption_style" | "start_time" | "end_time" | "formats">;

const sameRender = (a: Resolved, b: Resolved) =>
  a.caption_style === b.caption_style && a.start_time === b.start_time && a.end_time === b.end_time && a.formats.join() === b.formats.join();

function currentRender(job: JobRow, clip: StoredClip): Resolved {
  return { caption_style: clipCaptionStyle(job, clip), start_time: clip.start_time, end_time: clip.end_time, formats: Object.keys(clip.files).sort() };
}

/**
 * A job this node did not run (a cluster's API node) has its words in the shared checkpoint: re-renders,
 * own clips and corrections fetch them before their synchronous, transactional part.
 */
export async function restoreWordsOfJob(db: Db, store: ObjectStore | undefined, dataDir: string, scope: Scope, jobId: string): Promise<void> {
  if (!store?.shared) return;
  const job = getJob(db, scope, jobId);
  if (job?.env === "live" && job.status === "complete") await restoreCheckpoint(store, jobId, jobWorkDir(dataDir, jobId), { source: false });
}

/**
 * The earlier request an Idempotency-Key names (re-renders, own clips and corrections share the
 * re-render requests' table, so one key names one request across them), or undefined; the same key
 * with another request is refused.
 */
export function earlierRequest(db: Db, scope: Scope, idempotencyKey: string | undefined, requestHash: string): ClipRenderRow | undefined {
  if (idempotencyKey === undefined) return undefined;
  const earlier = renderByIdempotencyKey(db, scope, idempotencyKey);
  if (earlier && earlier.requestHash !== requestHash) {
    throw new ApiError("idempotency_key_reused_with_different_body", "This Idempotency-Key was used with a different request.", "Idempotency-Key");
  }
  return earlier;
}

/**
 * Re-render requests (POST /v1/jobs/{id}/clips/{clip_id}/renders). A request is recorded durably
 * (clip_renders) and shown on the clip as `render`; the render worker does the work. Idempotent two
 * ways: an Idempotency-Key replays its first answer, and a request that changes nothing (the clip
 * already is, or is about to be, what it asks for) queues nothing. Never billed: the job's price
 * covers its clips however often they are re-rendered.
 */
export class RenderRequests {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly wake: () => void,
    /** Shared storage: a job this node did not run has its checkpoint (the words) in the bucket. */
    private readonly store?: ObjectStore,
    /** Re-renders one organisation may have queued or rendering in a world; more are refused with 429. */
    private readonly maxQueuedPerOrg = Infinity,
  ) {}

  /**
   * Makes this node able to answer a re-render request for a job it did not run (a cluster's API
   * node): its words come down from the shared checkpoint. Call before request(), which is synchronous.
   */
  async prepare(scope: Scope, jobId: string): Promise<void> {
    await restoreWordsOfJob(this.db, this.store, this.dataDir, scope, jobId);
  }

  request(scope: Scope, jobId: string, clipId: string, params: RerenderParams, idempotencyKey?: string): { job: JobRow; clip: StoredClip; replayed: boolean } {
    const requestHash = sha256Hex(JSON.stringify([jobId, clipId, params.caption_style ?? null, params.start_time ?? null, params.end_time ?? null, params.formats ?? null]));
    const result = tx(this.db, () => {
      const job = getJob(this.db, scope, jobId);
      if (!job) throw new ApiError("not_found", `No job ${jobId}.`, "id");
      const earlier = earlierRequest(this.db, scope, idempotencyKey, requestHash);
      if (earlier) return { job, clip: this.clipOf(job, clipId), replayed: true };
      if (job.status !== "complete" || !job.output) throw new ApiError("job_not_complete", `Job ${jobId} is ${job.status}; clips can be re-rendered once it is complete.`, "id");
      const output = JSON.parse(job.output) as StoredOutput;
      const clip = output.clips.find((c) => c.id === clipId);
      if (!clip) throw new ApiError("not_found", `No clip ${clipId} in job ${jobId}.`, "clip_id");
      const wanted = this.resolve(job, clip, params);
      // Nothing to do when the clip already is (or is about to become) what was asked for: its latest
      // render unless that failed (a sandbox render changes no files), else what its files are.
      const basis = clip.render && clip.render.status !== "failed" ? clip.render : currentRender(job, clip);
      const unchanged = sameRender(basis, wanted);
      if (unchanged && idempotencyKey === undefined) return { job, clip, replayed: false };
      const sandbox = job.env === "test";
      // Sandbox renders complete at once and queue nothing; a live burst must not fill the one queue.
      if (!unchanged && !sandbox && pendingRenderCount(this.db, scope) >= this.maxQueuedPerOrg) {
        throw new ApiError(
          "too_many_queued_renders",
          `This organisation already has ${this.maxQueuedPerOrg} re-renders queued or rendering; request more once some finish.`,
          null,
          { "retry-after": String(QUEUE_RETRY_AFTER_S) },
        );
      }
      const now = this.clock.now();
      const id = newId("rnd");
      insertRender(this.db, {
        id, jobId: job.id, orgId: job.orgId, env: job.env, clipId, params: JSON.stringify(wanted), idempotencyKey: idempotencyKey ?? null, requestHash,
        // Sandbox jobs render nothing: the request is recorded and done at once (docs/api.md).
        status: unchanged || sandbox ? "complete" : "queued", createdAt: now, completedAt: unchanged || sandbox ? now : null,
      });
      if (!unchanged) {
        clip.render = { id, status: sandbox ? "complete" : "queued", ...wanted, requested_at: now, completed_at: sandbox ? now : null, error: null };
        if (sandbox) clip.caption_style = wanted.caption_style;
        replaceOutput(this.db, job.id, JSON.stringify(output));
      }
      return { job: getJobById(this.db, job.id)!, clip, replayed: false };
    });
    if (result.clip.render?.status === "queued") this.wake();
    return result;
  }

  private clipOf(job: JobRow, clipId: string): StoredClip {
    const clip = job.output ? (JSON.parse(job.output) as StoredOutput).clips.find((c) => c.id === clipId) : undefined;
    if (!clip) throw new ApiError("not_found", `No clip ${clipId} in job ${job.id}.`, "clip_id");
    return clip;
  }

  /** Fills what the request left out from the clip, and snaps new bounds to sentence edges (live jobs). */
  private resolve(job: JobRow, clip: StoredClip, params: RerenderParams): Resolved {
    const current = currentRender(job, clip);
    const words = job.env === "live" ? checkpointWords(this.dataDir, job.id) : undefined;
    if (job.env === "live" && !words) throw new ApiError("rerender_unavailable", `Job ${job.id} no longer has its source and transcript checkpoint; its clips cannot be re-rendered.`, "id");
    let start = current.start_time;
    let end = current.end_time;
    if (params.start_time !== undefined || params.end_time !== undefined) {
      start = params.start_time ?? start;
      end = params.end_time ?? end;
      if (!(end > start)) throw new ApiError("invalid_body", `end_time (${end}) must be after start_time (${start}).`, params.end_time !== undefined ? "end_time" : "start_time");
      if (words) {
        const snapped = snapToSentenceEdges(words, start, end);
        if (!snapped) throw new ApiError("invalid_body", `No sentence ends after ${start} s: choose an earlier start_time.`, "start_time");
        ({ start, end } = snapped);
      }
    }
    return { caption_style: params.caption_style ?? current.caption_style, start_time: start, end_time: end, formats: params.formats ? [...new Set(params.formats)].sort() : current.formats };
  }
}
