import { join } from "node:path";
import type { JobRow } from "../db/schema.ts";
import { DEFAULT_CAPTION_STYLE } from "./render/captions.ts";
import type { ExportRefs } from "./exports.ts";
import type { ClipContent, Segment } from "./types.ts";

/**
 * A completed job's output as stored. Media are file references, not URLs: "fixture:NAME" (a bundled
 * sandbox file) or "job:NAME" (a file under the job's output folder). URLs are built when the job is
 * presented, from the configured public URL and the job's share token, so changing
 * CLIPYARD_PUBLIC_URL never leaves stale links in the database.
 */
export interface StoredClip extends ClipContent {
  id: string;
  rank: number;
  duration_seconds: number;
  files: Record<string, string>;
  /** Extension: a cover image per format (keyed like files); jobs completed before thumbnails existed, and sandbox jobs, have none. */
  thumbnails?: Record<string, string>;
  /** Extension: the clip's burned-in captions as SRT and WebVTT sidecars (times relative to the clip's file, after any intro card). */
  captions?: { srt: string; vtt: string };
  /** Extension: seconds of the brand's intro and outro cards in the clip's files; absent when they have none. */
  cards?: ClipCardSeconds;
  score?: number;
  reason?: string;
  /** Posting copy (extension fields; live jobs have them, older stored outputs may not). */
  title?: string;
  description?: string;
  hashtags?: string[];
  /** Extension: the caption preset burned in (jobs completed before re-renders existed have none). */
  caption_style?: string;
  /** Extension: the guest's decision on the share page; absent until one is made. */
  review?: ClipReview;
  /** Extension: the latest re-render asked for this clip; absent until one is. */
  render?: ClipRenderState;
  /** Extension: "editor" for a clip the producer added (POST /v1/jobs/{id}/clips); machine clips have none stored. */
  origin?: "editor";
}

/** A name in the transcript: the voice's label, the name shown for it, and why it was given. */
export interface SpeakerNameRecord {
  speaker: string;
  name: string;
  evidence: string[];
}

export interface ClipReview {
  decision: "approved" | "rejected";
  reviewed_at: number;
}

export interface ClipCardSeconds {
  intro_seconds: number;
  outro_seconds: number;
}

export interface ClipRenderState {
  id: string;
  status: "queued" | "rendering" | "complete" | "failed";
  caption_style: string;
  start_time: number;
  end_time: number;
  formats: string[];
  requested_at: number;
  completed_at: number | null;
  error: string | null;
  /** What the render made without (a cover that could not be made); absent when nothing. */
  warnings?: string[];
}

export interface StoredOutput {
  clips: StoredClip[];
  trailer: { file: string; duration_seconds: number } | null;
  show_notes: string;
  transcript: Segment[];
  /** Extension: transcript files, Podcasting 2.0 chapters and the editing timeline (jobs completed before exports existed have none). */
  exports?: ExportRefs;
  /** Extension: who each speaker name belongs to and why it was given (jobs completed before names had evidence have none). */
  speaker_names?: SpeakerNameRecord[];
  /** Degraded-but-complete notes (a clip or the trailer that could not be rendered). */
  warnings?: string[];
  /** Title used by the share page. */
  title?: string;
  /** The transcript's language (ISO 639-1): the share page's fixed text is written in it. */
  language?: string;
  /** What ran: engines and models, for the record (not part of the API's output). */
  engine?: Record<string, string>;
}

/** The caption preset a clip carries: its own after a re-render, else the job's option, else the default. */
export function clipCaptionStyle(job: JobRow, clip: StoredClip): string {
  return clip.caption_style ?? (JSON.parse(job.options) as { caption_style?: string }).caption_style ?? DEFAULT_CAPTION_STYLE;
}

/** A live job's work folder: its stage checkpoint and acquired source, kept for re-renders. */
export const jobWorkDir = (dataDir: string, jobId: string): string => join(dataDir, "jobs", jobId);

/** Where a job's rendered files ("job:NAME") live on disk. */
export const jobOutputDir = (dataDir: string, jobId: string): string => join(jobWorkDir(dataDir, jobId), "out");

export type FileRef = { kind: "fixture" | "job"; name: string };

export function parseFileRef(ref: string): FileRef | null {
  const m = /^(fixture|job):([A-Za-z0-9._-]+)$/.exec(ref);
  return m ? { kind: m[1] as FileRef["kind"], name: m[2]! } : null;
}

/** Every file a job's output refers to (the share page may serve these and nothing else). */
export function outputFiles(output: StoredOutput): string[] {
  const refs = output.clips.flatMap((c) => [...Object.values(c.files), ...Object.values(c.thumbnails ?? {}), ...Object.values(c.captions ?? {})]);
  if (output.trailer) refs.push(output.trailer.file);
  if (output.exports) refs.push(...Object.values(output.exports));
  return refs;
}
