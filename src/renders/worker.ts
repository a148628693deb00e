import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { ClipRenderRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { log } from "../log.ts";
import type { CaptionStyle } from "../pipeline/render/captions.ts";
import type { RerenderFn, TrailerRerenderFn } from "../pipeline/render/rerender.ts";
import type { ClipFormat } from "../pipeline/render/render.ts";
import { jobOutputDir, jobWorkDir, outputFiles, parseFileRef, type ClipRenderState, type StoredClip, type StoredOutput } from "../pipeline/output.ts";
import { publishOutputs, restoreCheckpoint } from "../pipeline/shared-checkpoint.ts";
import { jobOutputKey, type ObjectStore } from "../storage/index.ts";
import { Pacer } from "../jobs/pacer.ts";
import { claimNextRender, extendRenderLease, finishRender, nextRenderDueAt, releaseRenderLeases } from "./store.ts";
import { getJobById, replaceOutput } from "../jobs/store.ts";

/** The clip id a trailer re-render is queued under (clip ids start with "clip_"). */
export const TRAILER_RENDER = "trailer";

/** A render cut off this many times (its worker died each time) is given up. */
const MAX_ATTEMPTS = 3;
const LEASE_MS = 120_000;

type Params = Pick<ClipRenderState, "caption_style" | "start_time" | "end_time" | "formats">;

/**
 * Runs queued clip re-renders of live jobs, one at a time (a render already keeps the cores busy),
 * each under a lease so a crash hands it to the next start. The clip's new files, bounds and caption
 * style replace the old ones in one write of the job's output; the old files are deleted only after.
 */
export class ClipRenderWorker {
  readonly owner = newId("rworker");
  private readonly pacer: Pacer;
  private current: Promise<void> | undefined;
  private closing = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly render: RerenderFn,
    /** Shared storage: a render's files go to the bucket before the output names them. */
    private readonly store?: ObjectStore,
    /** Renders the trailer again (a transcript correction changed its captions): queued as a render of clip id TRAILER_RENDER. */
    private readonly renderTrailer?: TrailerRerenderFn,
  ) {
    this.pacer = new Pacer("render tick", clock, () => this.tick(), () => nextRenderDueAt(db));
  }

  start(): void {
    this.pacer.start();
  }

  wake(): void {
    this.pacer.wake();
  }

  private beat: ReturnType<typeof setInterval> | undefined;

  async stop(graceMs = 5000): Promise<void> {
    this.closing = true;
    this.pacer.stop();
    if (this.current) await Promise.race([this.current, Bun.sleep(graceMs)]);
    // A render still running past the grace period must not heartbeat into a database the caller is
    // about to close: its lease is handed back here and lapses for whoever starts next.
    clearInterval(this.beat);
    releaseRenderLeases(this.db, this.owner);
  }

  /** Claims one due render and runs it; resolves when it is recorded. */
  async tick(): Promise<void> {
    if (this.current || this.closing) return;
    const row = claimNextRender(this.db, this.owner, this.clock.now(), LEASE_MS);
    if (!row) return;
    this.current = this.run(row).finally(() => {
      this.current = undefined;
      this.wake();
    });
    await this.current;
  }

  private async run(row: ClipRenderRow): Promise<void> {
    if (row.clipId === TRAILER_RENDER) return this.runTrailer(row);
    const params = JSON.parse(row.params) as Params;
    const clip = this.clip(row);
    if (!clip || row.attempts > MAX_ATTEMPTS) {
      this.finish(row, "failed", clip ? `the render was interrupted ${MAX_ATTEMPTS} times` : "the clip no longer exists");
      return;
    }
    this.setClipRender(row, { status: "rendering" });
    await this.underLease(
      row,
      { msg: "clip re-render failed", clip: row.clipId, failure: "the clip could not be rendered; the appliance's log has the details under this render's id" },
      () =>
        this.render({
          dataDir: this.dataDir,
          jobId: row.jobId,
          rank: clip.rank,
          // Part of every new file name: cached URLs of an earlier render never serve these bytes.
          tag: row.id.slice(-8),
          hook: clip.hook,
          title: clip.title,
          store: this.store,
          start: params.start_time,
          end: params.end_time,
          style: params.caption_style as CaptionStyle,
          formats: params.formats as ClipFormat[],
        }),
      (result) => this.apply(row, params, result),
    );
  }

  /** The trailer again with the checkpoint's current words; the new file replaces the old in one write of the output. */
  private async runTrailer(row: ClipRenderRow): Promise<void> {
    const job = getJobById(this.db, row.jobId);
    const output = job?.output ? (JSON.parse(job.output) as StoredOutput) : undefined;
    if (!output?.trailer || !this.renderTrailer || row.attempts > MAX_ATTEMPTS) {
      this.finish(row, "failed", output?.trailer ? "the trailer could not be rendered" : "the job has no trailer");
      return;
    }
    const renderTrailer = this.renderTrailer;
    await this.underLease(
      row,
      { msg: "trailer re-render failed", failure: "the trailer could not be rendered; the appliance's log has the details under this render's id" },
      () => renderTrailer({ dataDir: this.dataDir, jobId: row.jobId, tag: row.id.slice(-8), store: this.store, style: (JSON.parse(row.params) as { caption_style?: CaptionStyle }).caption_style }),
      (trailer) => {
        const now = this.clock.now();
        const files = tx(this.db, () => {
          if (!finishRender(this.db, row.id, this.owner, "complete", now, null)) return undefined;
          const current = getJobById(this.db, row.jobId);
          if (!current?.output) return undefined;
          const out = JSON.parse(current.output) as StoredOutput;
          if (!out.trailer) return undefined;
          const before = outputFiles(out);
          out.trailer = trailer;
          replaceOutput(this.db, row.jobId, JSON.stringify(out));
          return { before, after: outputFiles(out) };
        });
        this.dropFiles(row.jobId, files, [trailer.file]);
      },
    );
  }

  /**
   * One render under its lease, for a clip or the trailer alike: the heartbeat keeps the claim; a job
   * this node did not run has its source and words brought down from the shared checkpoint first and
   * the new files published before `commit` records them; the downloaded source is removed at the end
   * (the bucket keeps the job). A failure is logged with the render's id and ends it as failed.
   */
  private async underLease<R>(row: ClipRenderRow, onFailure: { msg: string; clip?: string; failure: string }, render: () => Promise<R>, commit: (result: R) => void): Promise<void> {
    const beat = setInterval(() => {
      if (!this.closing) extendRenderLease(this.db, row.id, this.owner, this.clock.now() + LEASE_MS);
    }, LEASE_MS / 4);
    this.beat = beat;
    try {
      if (this.store?.shared) {
        await restoreCheckpoint(this.store, row.jobId, jobWorkDir(this.dataDir, row.jobId), { source: true });
        mkdirSync(jobOutputDir(this.dataDir, row.jobId), { recursive: true });
      }
      const result = await render();
      if (this.store?.shared) await publishOutputs(this.store, row.jobId, jobOutputDir(this.dataDir, row.jobId));
      commit(result);
    } catch (err) {
      log.warn(onFailure.msg, { job: row.jobId, ...(onFailure.clip ? { clip: onFailure.clip } : {}), render: row.id, error: (err as Error).message });
      this.finish(row, "failed", onFailure.failure);
    } finally {
      clearInterval(beat);
      if (this.store?.shared) rmSync(jobWorkDir(this.dataDir, row.jobId), { recursive: true, force: true });
    }
  }

  private clip(row: ClipRenderRow): StoredClip | undefined {
    const job = getJobById(this.db, row.jobId);
    return job?.output ? (JSON.parse(job.output) as StoredOutput).clips.find((c) => c.id === row.clipId) : undefined;
  }

  /** Rewrites the job's output with `change` applied to the render's clip (the clip's `render` only when it is still this render). */
  private updateClip(row: ClipRenderRow, change: (clip: StoredClip, latest: boolean) => void): { before: string[]; after: string[] } | undefined {
    const job = getJobById(this.db, row.jobId);
    if (!job?.output || job.status !== "complete") return undefined;
    const output = JSON.parse(job.output) as StoredOutput;
    const clip = output.clips.find((c) => c.id === row.clipId);
    if (!clip) return undefined;
    const before = outputFiles(output);
    change(clip, clip.render?.id === row.id);
    replaceOutput(this.db, job.id, JSON.stringify(output));
    return { before, after: outputFiles(output) };
  }

  private setClipRender(row: ClipRenderRow, state: Partial<ClipRenderState>): void {
    tx(this.db, () => this.updateClip(row, (clip, latest) => latest && Object.assign(clip.render!, state)));
  }

  private finish(row: ClipRenderRow, status: "complete" | "failed", error: string | null): void {
    const now = this.clock.now();
    tx(this.db, () => {
      if (!finishRender(this.db, row.id, this.owner, status, now, error)) return;
      this.updateClip(row, (clip, latest) => latest && Object.assign(clip.render!, { status, completed_at: now, error }));
    });
  }

  private apply(row: ClipRenderRow, params: Params, result: Awaited<ReturnType<RerenderFn>>): void {
    const now = this.clock.now();
    const files = tx(this.db, () => {
      if (!finishRender(this.db, row.id, this.owner, "complete", now, null)) return undefined;
      return this.updateClip(row, (clip, latest) => {
        clip.files = result.files;
        if (result.thumbnails) clip.thumbnails = result.thumbnails;
        else delete clip.thumbnails;
        if (result.cards) clip.cards = result.cards;
        else delete clip.cards;
        clip.captions = result.captions;
        clip.start_time = params.start_time;
        clip.end_time = params.end_time;
        clip.duration_seconds = Math.round((params.end_time - params.start_time) * 1000) / 1000;
        clip.caption_style = params.caption_style;
        if (result.transcript_text) clip.transcript_text = result.transcript_text;
        if (latest) Object.assign(clip.render!, { status: "complete", completed_at: now, error: null, ...(result.warnings ? { warnings: result.warnings } : {}) });
      });
    });
    this.dropFiles(row.jobId, files, [...Object.values(result.files), ...Object.values(result.thumbnails ?? {}), result.captions.srt, result.captions.vtt]);
  }

  /** Deletes the files a render replaced, or (`files` undefined: the lease was lost) the files it made but could not publish. */
  private dropFiles(jobId: string, files: { before: string[]; after: string[] } | undefined, made: string[]): void {
    const outDir = jobOutputDir(this.dataDir, jobId);
    const keep = new Set(files?.after ?? []);
    const drop = files ? files.before.filter((f) => !keep.has(f)) : made;
    for (const ref of drop) {
      const parsed = parseFileRef(ref);
      if (parsed?.kind !== "job") continue;
      rmSync(join(outDir, parsed.name), { force: true });
      if (this.store?.shared) {
        this.store.delete(jobOutputKey(jobId, parsed.name)).catch((err) => log.warn("could not delete a replaced clip file from shared storage", { job: jobId, file: parsed.name, error: (err as Error).message }));
      }
    }
  }
}
