import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Scope } from "../accounts/scope.ts";
import { ApiError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { JobRow } from "../db/schema.ts";
import { newId, sha256Hex } from "../ids.ts";
import { log } from "../log.ts";
import { DEFAULT_CAPTION_STYLE, type CaptionStyle } from "../pipeline/render/captions.ts";
import { snapToSentenceEdges } from "../pipeline/highlights/clip-bounds.ts";
import { copyForSpan, type SpanCopy } from "../pipeline/highlights/select-clips.ts";
import { checkpointTranscript } from "../pipeline/render/rerender.ts";
import type { ClipFormat } from "../pipeline/render/render.ts";
import { jobOutputDir, outputFiles, parseFileRef, type StoredClip, type StoredOutput } from "../pipeline/output.ts";
import { jobOutputKey, type ObjectStore } from "../storage/index.ts";
import { insertRender, pendingRenderCount } from "../renders/store.ts";
import { earlierRequest, QUEUE_RETRY_AFTER_S, restoreWordsOfJob } from "../renders/requests.ts";
import { MAX_EDITOR_CLIPS_PER_JOB, type JobOptions } from "./schema.ts";
import { getJob, getJobById, replaceOutput } from "./store.ts";

export interface EditorClipParams {
  start_time: number;
  end_time: number;
  caption_style?: CaptionStyle;
  formats?: ClipFormat[];
  title?: string;
}

const ALL_FORMATS: ClipFormat[] = ["linkedin", "x"];

/**
 * Clips the producer places (POST /v1/jobs/{id}/clips) and clips the producer removes
 * (DELETE /v1/jobs/{id}/clips/{clip_id}). A new clip is stored on the job at once, ranked after
 * every other, with copy written by the highlight stage's own rules for its sentences; its render is
 * a clip_renders row the render worker runs like any re-render. Never billed: the job's price covers
 * its clips. Idempotent two ways: an Idempotency-Key replays its first answer (the key shares the
 * re-render requests' table, so one key names one request across both), and a request for the same
 * snapped bounds, style and formats as an existing editor clip answers that clip.
 */
export class EditorClips {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly wake: () => void,
    private readonly store?: ObjectStore,
    /** The re-render queue's per-organisation cap (CLIPYARD_MAX_QUEUED_RENDERS_PER_ORG): a new clip's render counts like any other. */
    private readonly maxQueuedPerOrg = Infinity,
  ) {}

  /** A job this API node did not run has its transcript in the shared checkpoint: fetch it before create(). */
  async prepare(scope: Scope, jobId: string): Promise<void> {
    await restoreWordsOfJob(this.db, this.store, this.dataDir, scope, jobId);
  }

  create(scope: Scope, jobId: string, params: EditorClipParams, idempotencyKey?: string): { job: JobRow; clip: StoredClip; created: boolean; replayed: boolean } {
    const requestHash = sha256Hex(JSON.stringify(["editor-clip", jobId, params.start_time, params.end_time, params.caption_style ?? null, params.formats ?? null, params.title ?? null]));
    const result = tx(this.db, () => {
      const job = getJob(this.db, scope, jobId);
      if (!job) throw new ApiError("not_found", `No job ${jobId}.`, "id");
      const earlier = earlierRequest(this.db, scope, idempotencyKey, requestHash);
      if (earlier) return { job, clip: this.clipOf(job, earlier.clipId), created: false, replayed: true };
      if (job.status !== "complete" || !job.output) throw new ApiError("job_not_complete", `Job ${jobId} is ${job.status}; clips can be added once it is complete.`, "id");
      const output = JSON.parse(job.output) as StoredOutput;
      const placed = this.place(job, output, params);
      const style = params.caption_style ?? (JSON.parse(job.options) as JobOptions).caption_style ?? DEFAULT_CAPTION_STYLE;
      const formats = params.formats ? [...new Set(params.formats)].sort() : ALL_FORMATS;
      const same = output.clips.find(
        (c) => c.origin === "editor" && c.start_time === placed.start && c.end_time === placed.end && c.caption_style === style && [...(c.render?.formats ?? Object.keys(c.files))].sort().join() === formats.join() && (params.title === undefined || c.title === params.title),
      );
      if (same && idempotencyKey === undefined) return { job, clip: same, created: false, replayed: false };
      if (output.clips.filter((c) => c.origin === "editor").length >= MAX_EDITOR_CLIPS_PER_JOB) {
        throw new ApiError("clip_limit_reached", `Job ${jobId} already has ${MAX_EDITOR_CLIPS_PER_JOB} clips added by hand; delete one first.`, "id");
      }
      const sandbox = job.env === "test";
      if (!sandbox && pendingRenderCount(this.db, scope) >= this.maxQueuedPerOrg) {
        throw new ApiError("too_many_queued_renders", `This organisation already has ${this.maxQueuedPerOrg} renders queued or rendering; add clips once some finish.`, null, { "retry-after": String(QUEUE_RETRY_AFTER_S) });
      }
      const now = this.clock.now();
      const clipId = newId("clip");
      const renderId = newId("rnd");
      const rank = Math.max(0, ...output.clips.map((c) => c.rank)) + 1;
      const copy = placed.copy;
      const clip: StoredClip = {
        id: clipId,
        rank,
        category: copy.category,
        hook: copy.hook,
        pull_quote: copy.pull_quote,
        start_time: placed.start,
        end_time: placed.end,
        duration_seconds: Math.round((placed.end - placed.start) * 1000) / 1000,
        transcript_text: copy.transcript_text,
        // Live: filled in by the render worker. Sandbox: the fixture's files stand in, as for every sandbox clip.
        files: sandbox ? Object.fromEntries(formats.map((f) => [f, output.clips[0]?.files[f] ?? ""]).filter(([, ref]) => ref)) : {},
        ...(sandbox && output.clips[0]?.captions ? { captions: output.clips[0].captions } : {}),
        ...(sandbox && output.clips[0]?.thumbnails ? { thumbnails: Object.fromEntries(formats.map((f) => [f, output.clips[0]!.thumbnails![f] ?? ""]).filter(([, ref]) => ref)) } : {}),
        title: params.title ?? copy.title,
        description: copy.description,
        hashtags: copy.hashtags,
        caption_style: style,
        origin: "editor",
        render: { id: renderId, status: sandbox ? "complete" : "queued", caption_style: style, start_time: placed.start, end_time: placed.end, formats, requested_at: now, completed_at: sandbox ? now : null, error: null },
      };
      insertRender(this.db, {
        id: renderId, jobId: job.id, orgId: job.orgId, env: job.env, clipId,
        params: JSON.stringify({ caption_style: style, start_time: placed.start, end_time: placed.end, formats }),
        idempotencyKey: idempotencyKey ?? null, requestHash,
        status: sandbox ? "complete" : "queued", createdAt: now, completedAt: sandbox ? now : null,
      });
      output.clips.push(clip);
      replaceOutput(this.db, job.id, JSON.stringify(output));
      return { job: getJobById(this.db, job.id)!, clip, created: true, replayed: false };
    });
    if (result.created && result.clip.render?.status === "queued") this.wake();
    return result;
  }

  /** Removes a clip from a complete job and deletes the files only it named. Answers the removed clip's id. */
  async remove(scope: Scope, jobId: string, clipId: string): Promise<{ id: string }> {
    const removed = tx(this.db, () => {
      const job = getJob(this.db, scope, jobId);
      if (!job) throw new ApiError("not_found", `No job ${jobId}.`, "id");
      if (job.status !== "complete" || !job.output) throw new ApiError("job_not_complete", `Job ${jobId} is ${job.status}; its clips can be removed once it is complete.`, "id");
      const output = JSON.parse(job.output) as StoredOutput;
      const clip = output.clips.find((c) => c.id === clipId);
      if (!clip) throw new ApiError("not_found", `No clip ${clipId} in job ${jobId}.`, "clip_id");
      const before = outputFiles(output);
      output.clips = output.clips.filter((c) => c.id !== clipId);
      replaceOutput(this.db, job.id, JSON.stringify(output));
      const keep = new Set(outputFiles(output));
      return { job, files: before.filter((f) => !keep.has(f)) };
    });
    // Bundled sandbox fixtures are shared by every sandbox job: only a job's own files are deleted.
    for (const ref of removed.files) {
      const parsed = parseFileRef(ref);
      if (parsed?.kind !== "job") continue;
      rmSync(join(jobOutputDir(this.dataDir, jobId), parsed.name), { force: true });
      if (this.store?.shared) {
        await this.store.delete(jobOutputKey(jobId, parsed.name)).catch((err) => log.warn("could not delete a removed clip's file from shared storage", { job: jobId, file: parsed.name, error: (err as Error).message }));
      }
    }
    return { id: clipId };
  }

  private clipOf(job: JobRow, clipId: string): StoredClip {
    const clip = job.output ? (JSON.parse(job.output) as StoredOutput).clips.find((c) => c.id === clipId) : undefined;
    if (!clip) throw new ApiError("not_found", `No clip ${clipId} in job ${job.id}.`, "clip_id");
    return clip;
  }

  /** Snaps the bounds to sentence edges (live jobs) and writes the clip's copy; sandbox jobs take the fixture episode's turns. */
  private place(job: JobRow, output: StoredOutput, params: EditorClipParams): { start: number; end: number; copy: SpanCopy } {
    const taken = new Set(output.clips.map((c) => (c.title ?? "").toLowerCase()).filter(Boolean));
    if (job.env === "test") return { start: params.start_time, end: params.end_time, copy: sandboxCopy(output, params.start_time, params.end_time) };
    const transcript = checkpointTranscript(this.dataDir, job.id);
    if (!transcript) throw new ApiError("rerender_unavailable", `Job ${job.id} no longer has its source and transcript checkpoint; clips cannot be added to it.`, "id");
    const snapped = snapToSentenceEdges(transcript.words, params.start_time, params.end_time);
    if (!snapped) throw new ApiError("invalid_body", `No sentence ends after ${params.start_time} s: choose an earlier start_time.`, "start_time");
    const copy = copyForSpan(transcript, snapped.start, snapped.end, taken);
    if (!copy) throw new ApiError("invalid_body", `No whole sentence lies between ${params.start_time} s and ${params.end_time} s.`, "end_time");
    return { start: snapped.start, end: snapped.end, copy };
  }
}

/**
 * A sandbox job has the fixture episode's turns, not its words: the clip's text is the turns it
 * overlaps, its copy the first machine clip's hashtags and its first sentence as hook and title.
 */
function sandboxCopy(output: StoredOutput, start: number, end: number): SpanCopy {
  const text = output.transcript.filter((s) => s.end > start && s.start < end).map((s) => s.text).join(" ");
  if (!text) throw new ApiError("invalid_body", `Nothing is said between ${start} s and ${end} s.`, "start_time");
  const first = /^.*?[.!?](\s|$)/.exec(text)?.[0]?.trim() ?? text;
  const machine = output.clips[0];
  return {
    category: "editor",
    hook: first,
    pull_quote: first,
    transcript_text: text,
    title: first.slice(0, 70),
    description: first,
    hashtags: machine?.hashtags ?? ["#Podcast", "#Clip", "#Sandbox"],
  };
}
