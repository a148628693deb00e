import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Scope } from "../accounts/scope.ts";
import { getVocabulary, setVocabulary } from "../accounts/vocabulary.ts";
import { MAX_VOCABULARY_ENTRIES, MAX_VOCABULARY_ENTRY_LENGTH } from "../pipeline/transcribe/vocabulary.ts";
import { isoUtc, type Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { JobRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { newId, sha256Hex } from "../ids.ts";
import { log } from "../log.ts";
import { correctLiveJob, correctSandboxOutput } from "../pipeline/correct-output.ts";
import type { CorrectionRequest } from "../pipeline/corrections.ts";
import { SpeakerEditError } from "../pipeline/speaker-corrections.ts";
import { clipCaptionStyle, jobOutputDir, jobWorkDir, outputFiles, parseFileRef, type StoredOutput } from "../pipeline/output.ts";
import { publishOutputs } from "../pipeline/shared-checkpoint.ts";
import { jobOutputKey, jobResumePrefix, type ObjectStore } from "../storage/index.ts";
import { TRAILER_RENDER } from "../renders/worker.ts";
import { insertRender } from "../renders/store.ts";
import { getJob, getJobById, replaceOutput } from "./store.ts";
import { earlierRequest, restoreWordsOfJob } from "../renders/requests.ts";

/** The clip id a correction's own record carries in clip_renders (it renders nothing itself; the table holds its Idempotency-Key). */
const CORRECTION_RECORD = "transcript";

export interface CorrectionSummary {
  id: string;
  object: "transcript_correction";
  job_id: string;
  /** Places in the transcript that changed; 0 when the correction was already applied. */
  changes: number;
  clips_rerendered: string[];
  trailer_rerendered: boolean;
  vocabulary_added?: string[];
  created_at: string;
}

/**
 * Transcript corrections (POST /v1/jobs/{id}/transcript/corrections). The words, the stored text and
 * the exports change at once, in one write of the job's output; every clip whose burned-in captions
 * change (and the trailer) is queued on the render worker like a re-render. Never billed.
 * Idempotent: a replayed correction finds nothing left to change, and an Idempotency-Key replays the
 * first answer (the key lives in clip_renders with the re-render and new-clip requests, one namespace).
 */
/** The replacements the organisation's vocabulary lacks (case-insensitively), each once. */
function missingTerms(entries: string[], req: CorrectionRequest): string[] {
  const known = new Set(entries.map((e) => e.trim().toLowerCase()));
  const out: string[] = [];
  for (const r of req.replace ?? []) {
    const term = r.with.trim();
    if (known.has(term.toLowerCase())) continue;
    known.add(term.toLowerCase());
    out.push(term);
  }
  return out;
}

export class TranscriptCorrections {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly wake: () => void,
    private readonly store?: ObjectStore,
  ) {}

  async prepare(scope: Scope, jobId: string): Promise<void> {
    await restoreWordsOfJob(this.db, this.store, this.dataDir, scope, jobId);
  }

  async apply(scope: Scope, jobId: string, req: CorrectionRequest & { add_to_vocabulary?: boolean }, idempotencyKey?: string): Promise<{ job: JobRow; summary: CorrectionSummary; replayed: boolean }> {
    const requestHash = sha256Hex(JSON.stringify(["correction", jobId, req.replace ?? null, req.words ?? null, req.add_to_vocabulary ?? false, ...(req.speakers ? [req.speakers] : [])]));
    const result = tx(this.db, () => {
      const job = getJob(this.db, scope, jobId);
      if (!job) throw new ApiError("not_found", `No job ${jobId}.`, "id");
      const earlier = earlierRequest(this.db, scope, idempotencyKey, requestHash);
      if (earlier) return { job, summary: JSON.parse(earlier.params) as CorrectionSummary, replayed: true, dropped: [] as string[] };
      if (job.status !== "complete" || !job.output) throw new ApiError("job_not_complete", `Job ${jobId} is ${job.status}; its transcript can be corrected once it is complete.`, "id");
      // Checked (and stored) before anything is written: a refusal leaves the job as it was.
      let vocabularyAdded: string[] | undefined;
      if (req.add_to_vocabulary) {
        const stored = getVocabulary(this.db, scope).entries;
        vocabularyAdded = missingTerms(stored, req);
        const tooLong = vocabularyAdded.find((t) => t.length > MAX_VOCABULARY_ENTRY_LENGTH);
        if (tooLong) throw new ApiError("invalid_body", `"${tooLong.slice(0, 40)}…" is longer than a vocabulary entry may be (${MAX_VOCABULARY_ENTRY_LENGTH} characters).`, "add_to_vocabulary");
        if (stored.length + vocabularyAdded.length > MAX_VOCABULARY_ENTRIES) {
          throw new ApiError("invalid_body", `The organisation's vocabulary holds ${stored.length} entries; adding ${vocabularyAdded.length} would pass its limit of ${MAX_VOCABULARY_ENTRIES}.`, "add_to_vocabulary");
        }
        if (vocabularyAdded.length) setVocabulary(this.db, this.clock, scope, [...stored, ...vocabularyAdded]);
      }
      const output = JSON.parse(job.output) as StoredOutput;
      const before = outputFiles(output);
      const id = newId("cor");
      const now = this.clock.now();
      const sandbox = job.env === "test";
      let outcome: ReturnType<typeof correctLiveJob>;
      try {
        outcome = sandbox ? correctSandboxOutput(output, req) : correctLiveJob(this.dataDir, job, output, req, id.slice(-8));
      } catch (err) {
        // Found before anything was written: the job stays as it was.
        if (err instanceof SpeakerEditError) throw new ApiError("invalid_body", err.message, err.param);
        throw err;
      }
      if (!outcome) throw new ApiError("rerender_unavailable", `Job ${jobId} no longer has its source and transcript checkpoint; its transcript cannot be corrected.`, "id");
      for (const clipId of outcome.captionsChanged) {
        const clip = output.clips.find((c) => c.id === clipId)!;
        // The clip as it is, or as its pending render will make it, again with the corrected words.
        const basis = clip.render && clip.render.status !== "failed" ? clip.render : { caption_style: clipCaptionStyle(job, clip), start_time: clip.start_time, end_time: clip.end_time, formats: Object.keys(clip.files).sort() };
        const wanted = { caption_style: basis.caption_style, start_time: basis.start_time, end_time: basis.end_time, formats: basis.formats };
        const renderId = newId("rnd");
        insertRender(this.db, { id: renderId, jobId: job.id, orgId: job.orgId, env: job.env, clipId, params: JSON.stringify(wanted), idempotencyKey: null, requestHash: sha256Hex(`${id}:${clipId}`), status: "queued", createdAt: now });
        clip.render = { id: renderId, status: "queued", ...wanted, requested_at: now, completed_at: null, error: null };
      }
      if (outcome.trailerChanged) {
        const style = (JSON.parse(job.options) as { caption_style?: string }).caption_style;
        insertRender(this.db, { id: newId("rnd"), jobId: job.id, orgId: job.orgId, env: job.env, clipId: TRAILER_RENDER, params: JSON.stringify({ caption_style: style }), idempotencyKey: null, requestHash: sha256Hex(`${id}:trailer`), status: "queued", createdAt: now });
      }
      const summary: CorrectionSummary = {
        id,
        object: "transcript_correction",
        job_id: job.id,
        changes: outcome.changes,
        clips_rerendered: outcome.captionsChanged,
        trailer_rerendered: outcome.trailerChanged,
        ...(vocabularyAdded ? { vocabulary_added: vocabularyAdded } : {}),
        created_at: isoUtc(now),
      };
      insertRender(this.db, { id, jobId: job.id, orgId: job.orgId, env: job.env, clipId: CORRECTION_RECORD, params: JSON.stringify(summary), idempotencyKey: idempotencyKey ?? null, requestHash, status: "complete", createdAt: now, completedAt: now });
      if (outcome.changes > 0) replaceOutput(this.db, job.id, JSON.stringify(output));
      const keep = new Set(outputFiles(output));
      return { job: getJobById(this.db, job.id)!, summary, replayed: false, dropped: outcome.changes > 0 ? before.filter((f) => !keep.has(f)) : [] };
    });
    // The replaced export files; the clips' and trailer's go when their renders finish.
    for (const ref of result.dropped) {
      const parsed = parseFileRef(ref);
      if (parsed?.kind !== "job") continue;
      rmSync(join(jobOutputDir(this.dataDir, jobId), parsed.name), { force: true });
      if (this.store?.shared) await this.store.delete(jobOutputKey(jobId, parsed.name)).catch((err) => log.warn("could not delete a replaced export from shared storage", { job: jobId, file: parsed.name, error: (err as Error).message }));
    }
    if (this.store?.shared && !result.replayed && result.summary.changes > 0 && result.job.env === "live") await this.publish(jobId);
    if (result.summary.clips_rerendered.length || result.summary.trailer_rerendered) this.wake();
    const { dropped: _dropped, ...rest } = result;
    return rest;
  }

  /** Shared storage: the corrected checkpoint and the new exports go to the bucket, for the node that renders. */
  private async publish(jobId: string): Promise<void> {
    const workDir = jobWorkDir(this.dataDir, jobId);
    await publishOutputs(this.store!, jobId, jobOutputDir(this.dataDir, jobId));
    await this.store!.putText(`${jobResumePrefix(jobId)}checkpoint.json`, readFileSync(join(workDir, "checkpoint.json"), "utf8"));
  }
}
