import { join } from "node:path";
import type { ExportRefs } from "../pipeline/exports.ts";
import type { ClipContent, Segment } from "../pipeline/types.ts";

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
  /** Extension: the clip's burned-in captions as SRT and WebVTT sidecars (times relative to the clip). */
  captions?: { srt: string; vtt: string };
  score?: number;
  reason?: string;
  /** Posting copy (extension fields; live jobs have them, older stored outputs may not). */
  title?: string;
  description?: string;
  hashtags?: string[];
}

export interface StoredOutput {
  clips: StoredClip[];
  trailer: { file: string; duration_seconds: number } | null;
  show_notes: string;
  transcript: Segment[];
  /** Extension: transcript files, Podcasting 2.0 chapters and the editing timeline (jobs completed before exports existed have none). */
  exports?: ExportRefs;
  /** Degraded-but-complete notes (a clip or the trailer that could not be rendered). */
  warnings?: string[];
  /** Title used by the share page. */
  title?: string;
  /** What ran: engines and models, for the record (not part of the API's output). */
  engine?: Record<string, string>;
}

/** Where a job's rendered files ("job:NAME") live on disk. */
export const jobOutputDir = (dataDir: string, jobId: string): string => join(dataDir, "jobs", jobId, "out");

export type FileRef = { kind: "fixture" | "job"; name: string };

export function parseFileRef(ref: string): FileRef | null {
  const m = /^(fixture|job):([A-Za-z0-9._-]+)$/.exec(ref);
  return m ? { kind: m[1] as FileRef["kind"], name: m[2]! } : null;
}

/** Every file a job's output refers to (the share page may serve these and nothing else). */
export function outputFiles(output: StoredOutput): string[] {
  const refs = output.clips.flatMap((c) => [...Object.values(c.files), ...Object.values(c.captions ?? {})]);
  if (output.trailer) refs.push(output.trailer.file);
  if (output.exports) refs.push(...Object.values(output.exports));
  return refs;
}
