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
  /** Degraded-but-complete notes (a clip or the trailer that could not be rendered). */
  warnings?: string[];
  /** Title used by the share page. */
  title?: string;
  /** What ran: engines and models, for the record (not part of the API's output). */
  engine?: Record<string, string>;
}

export type FileRef = { kind: "fixture" | "job"; name: string };

export function parseFileRef(ref: string): FileRef | null {
  const m = /^(fixture|job):([A-Za-z0-9._-]+)$/.exec(ref);
  return m ? { kind: m[1] as FileRef["kind"], name: m[2]! } : null;
}

/** Every file a job's output refers to (the share page may serve these and nothing else). */
export function outputFiles(output: StoredOutput): string[] {
  const refs = output.clips.flatMap((c) => Object.values(c.files));
  if (output.trailer) refs.push(output.trailer.file);
  return refs;
}
