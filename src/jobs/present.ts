import { isoUtc } from "../clock.ts";
import type { JobRow } from "../db/schema.ts";
import type { Clip, Job } from "./schema.ts";
import { clipCaptionStyle, parseFileRef, type ClipRenderState, type StoredClip, type StoredOutput } from "../pipeline/output.ts";
import { shareToken } from "./share-tokens.ts";

export interface PresentContext {
  publicUrl: string;
  shareSecret: string;
}

export function shareBaseUrl(ctx: PresentContext, jobId: string): string {
  return `${ctx.publicUrl}/share/${shareToken(ctx.shareSecret, jobId)}`;
}

function fileUrl(base: string, ref: string): string {
  const parsed = parseFileRef(ref);
  if (!parsed) throw new Error(`bad stored file reference ${ref}`);
  return `${base}/files/${parsed.name}`;
}

/** One clip as the API shows it (in a job, and alone as a re-render's answer). */
export function presentClip(c: StoredClip, base: string, row: JobRow): Clip {
  return {
    id: c.id,
    rank: c.rank,
    category: c.category,
    hook: c.hook,
    pull_quote: c.pull_quote,
    start_time: c.start_time,
    end_time: c.end_time,
    duration_seconds: c.duration_seconds,
    rendered_urls: Object.fromEntries(Object.entries(c.files).map(([dest, ref]) => [dest, fileUrl(base, ref)])),
    transcript_text: c.transcript_text,
    ...(c.thumbnails ? { thumbnail_urls: Object.fromEntries(Object.entries(c.thumbnails).map(([dest, ref]) => [dest, fileUrl(base, ref)])) } : {}),
    ...(c.score !== undefined ? { score: c.score } : {}),
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
    ...(c.captions ? { captions_srt_url: fileUrl(base, c.captions.srt), captions_vtt_url: fileUrl(base, c.captions.vtt) } : {}),
    ...(c.cards ? { cards: c.cards } : {}),
    ...(c.title !== undefined ? { title: c.title } : {}),
    ...(c.description !== undefined ? { description: c.description } : {}),
    ...(c.hashtags !== undefined ? { hashtags: c.hashtags } : {}),
    caption_style: clipCaptionStyle(row, c),
    ...(c.review ? { review: { decision: c.review.decision, reviewed_at: isoUtc(c.review.reviewed_at) } } : {}),
    ...(c.render ? { render: presentRender(c.render) } : {}),
    origin: c.origin ?? "machine",
  };
}

function presentRender(r: ClipRenderState) {
  return {
    id: r.id,
    status: r.status,
    caption_style: r.caption_style,
    start_time: r.start_time,
    end_time: r.end_time,
    formats: r.formats,
    requested_at: isoUtc(r.requested_at),
    completed_at: r.completed_at === null ? null : isoUtc(r.completed_at),
    error: r.error,
    ...(r.warnings?.length ? { warnings: r.warnings } : {}),
  };
}

/** The API's Job object for a stored row: the single serializer used by GET, lists, webhooks and MCP. */
export function presentJob(row: JobRow, ctx: PresentContext): Job {
  const job: Job = {
    id: row.id,
    object: "job",
    status: row.status,
    // An upload job stores its upload id where URL jobs store the URL.
    source: row.sourceType === "upload" ? { type: row.sourceType, upload_id: row.sourceUrl } : { type: row.sourceType, url: row.sourceUrl },
    options: JSON.parse(row.options),
    created_at: isoUtc(row.createdAt),
    completed_at: row.completedAt === null ? null : isoUtc(row.completedAt),
    output: null,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
    livemode: row.env === "live",
  };
  if (row.status === "processing" && row.progress) job.progress = JSON.parse(row.progress);
  if (row.status === "complete" && row.output) {
    const out = JSON.parse(row.output) as StoredOutput;
    const base = shareBaseUrl(ctx, row.id);
    job.output = {
      clips: out.clips.map((c) => presentClip(c, base, row)),
      trailer: out.trailer ? { url: fileUrl(base, out.trailer.file), duration_seconds: out.trailer.duration_seconds } : null,
      guest_share_url: base,
      show_notes: out.show_notes,
      transcript: out.transcript,
      ...(out.speaker_names?.length ? { speaker_names: out.speaker_names } : {}),
      ...(out.warnings?.length ? { warnings: out.warnings } : {}),
      ...(out.engine ? { engine: out.engine } : {}),
      ...(out.exports
        ? {
            transcript_srt_url: fileUrl(base, out.exports.transcript_srt),
            transcript_vtt_url: fileUrl(base, out.exports.transcript_vtt),
            transcript_txt_url: fileUrl(base, out.exports.transcript_txt),
            chapters_url: fileUrl(base, out.exports.chapters),
            timeline_url: fileUrl(base, out.exports.timeline),
            ...(out.exports.timeline_fcpxml ? { timeline_fcpxml_url: fileUrl(base, out.exports.timeline_fcpxml) } : {}),
            ...(out.exports.timeline_xmeml ? { timeline_xmeml_url: fileUrl(base, out.exports.timeline_xmeml) } : {}),
          }
        : {}),
    };
  }
  return job;
}

/** Jobs whose serialised body is remembered (about 30 KB each when finished: the row, its JSON and its bytes). */
export const PRESENTED_JOBS_MAX = 256;

/**
 * A job's body as GET /v1/jobs/{id} answers it: the JSON text, and the same encoded once as UTF-8
 * in a Blob, which a Response sends as it is (a string body is encoded again for every response).
 */
export interface JobBody {
  json: string;
  blob: Blob;
}

/** `currentAt`: the commit epoch (src/db/commit-epoch.ts) at which the row was last read, or its version seen unchanged. */
const presented = new Map<string, { row: JobRow; ctx: PresentContext; body: JobBody; currentAt: number | undefined }>();

/** A remembered body holds share links and file URLs built for one public URL and share secret. */
function builtFor(hit: { ctx: PresentContext }, ctx: PresentContext): boolean {
  return hit.ctx.publicUrl === ctx.publicUrl && hit.ctx.shareSecret === ctx.shareSecret;
}

/**
 * presentJob serialised, remembered per job while its row stays the same. A finished job's body
 * (~10 KB: clips, transcript, show notes) took ~100 µs to build and serialise on every poll, which
 * made a finished job 7 × slower to read than a queued one. The whole row is compared column by
 * column, so any change (status, progress, a review, a re-render) shows on the next read. `readAt`:
 * the commit epoch taken before `row` was read.
 */
export function presentJobBody(row: JobRow, ctx: PresentContext, readAt?: number): JobBody {
  const hit = presented.get(row.id);
  if (hit && builtFor(hit, ctx) && sameRow(hit.row, row)) {
    hit.currentAt = readAt;
    return hit.body;
  }
  const json = JSON.stringify(presentJob(row, ctx));
  const body = { json, blob: new Blob([json], { type: "application/json;charset=utf-8" }) };
  if (!hit && presented.size >= PRESENTED_JOBS_MAX) presented.delete(presented.keys().next().value!);
  presented.set(row.id, { row, ctx: { publicUrl: ctx.publicUrl, shareSecret: ctx.shareSecret }, body, currentAt: readAt });
  return body;
}

/**
 * The body remembered for job `id` if it was built from the row at `version` (jobs.version, raised
 * by the database on every update of the row), else undefined: GET reads the version, a few bytes,
 * and reads and decodes the whole row only when the job has changed since. `readAt`: the commit
 * epoch taken before `version` was read.
 */
export function rememberedJobBody(id: string, version: number, ctx: PresentContext, readAt?: number): JobBody | undefined {
  const hit = presented.get(id);
  if (!(hit && Number(hit.row.version) === version && builtFor(hit, ctx))) return undefined;
  hit.currentAt = readAt;
  return hit.body;
}

/**
 * The body remembered for job `id` in `scope` if nothing has been committed to the database since
 * its row or version was last read (the commit epoch is still `epoch`), else undefined: then the
 * version must be read. The scope is checked here as the version's read checks it: a job of another
 * organisation or world is never answered.
 */
export function currentJobBody(id: string, scope: { orgId: string; env: string }, epoch: number | undefined, ctx: PresentContext): JobBody | undefined {
  if (epoch === undefined) return undefined;
  const hit = presented.get(id);
  if (!hit || hit.currentAt !== epoch || hit.row.orgId !== scope.orgId || hit.row.env !== scope.env) return undefined;
  return builtFor(hit, ctx) ? hit.body : undefined;
}

function sameRow(a: JobRow, b: JobRow): boolean {
  for (const k in b) if (a[k as keyof JobRow] !== b[k as keyof JobRow]) return false;
  return true;
}
