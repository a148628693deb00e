import { existsSync, readdirSync, rmSync } from "node:fs";
/**
 * Re-rendering one clip of a finished live job: the job's checkpoint (stage.ts) still holds the
 * probed source and the transcript, so new bounds or a new caption style cost one render, never a
 * second transcription. Files get new names, so a cached URL of the old render never serves new bytes.
 */
import { join } from "node:path";
import { jobOutputDir, jobWorkDir } from "../output.ts";
import type { CaptionStyle } from "./captions.ts";
import { snapToSentenceEdges } from "../highlights/clip-bounds.ts";
import { writeClipCaptions } from "../exports.ts";
import { audiogramCard, cardSeconds, clipThumbnails, type LiveState } from "../live.ts";
import { cardsOf, type CardTiming } from "./cards.ts";
import type { ClipCardSeconds } from "../output.ts";
import { lookOf } from "./brand.ts";
import type { SpeakerCropPlan } from "./crop.ts";
import type { ObjectStore } from "../../storage/index.ts";
import { renderClipFormats, type ClipFormat } from "./render.ts";
import { planTrailer, renderTrailer } from "./trailer.ts";
import { readCheckpoint } from "../stage.ts";
import type { Transcript, Word } from "../types.ts";

export interface RerenderInput {
  dataDir: string;
  jobId: string;
  /** Names the new files: `clip<rank>_<tag>_<format>.mp4`, `clip<rank>_<tag>.srt`. */
  rank: number;
  tag: string;
  hook: string;
  /** The clip's title (posting copy): an audiogram's card and every cover show it. */
  title?: string;
  start: number;
  end: number;
  style: CaptionStyle;
  formats: ClipFormat[];
  /** Shared storage: the brand logo the job's snapshot names is fetched from it when this node lacks it. */
  store?: ObjectStore;
}

export interface RerenderResult {
  /** Stored file references ("job:NAME") per format, and the caption sidecars. */
  files: Record<string, string>;
  /** Cover images per format (absent when they could not be made). */
  thumbnails?: Record<string, string>;
  captions: { srt: string; vtt: string };
  /** The sentences inside the new bounds. */
  transcript_text: string;
  /** Seconds of the brand's intro and outro cards in the new files (absent without cards). */
  cards?: ClipCardSeconds;
  /** What the render made without (a cover that could not be made), for the clip's `render.warnings`. */
  warnings?: string[];
}

export type RerenderFn = (input: RerenderInput) => Promise<RerenderResult>;

function checkpointState(dataDir: string, jobId: string): LiveState | undefined {
  return readCheckpoint<LiveState>(jobWorkDir(dataDir, jobId))?.state;
}

/** A live job's transcript (words, speaker names), or undefined when its checkpoint is gone. */
export function checkpointTranscript(dataDir: string, jobId: string): Transcript | undefined {
  return checkpointState(dataDir, jobId)?.transcript;
}

/** The words a live job's clips were cut from, or undefined when its checkpoint is gone. */
export function checkpointWords(dataDir: string, jobId: string): Word[] | undefined {
  return checkpointState(dataDir, jobId)?.transcript?.words;
}

export const rerenderLiveClip: RerenderFn = async (input) => {
  const state = checkpointState(input.dataDir, input.jobId);
  if (!state?.source || !state.transcript || !state.plan) throw new Error(`job ${input.jobId} has no checkpointed source and transcript to re-render from`);
  const { source, transcript } = state;
  const outDir = jobOutputDir(input.dataDir, input.jobId);
  const base = `clip${input.rank}_${input.tag}`;
  const files: Record<string, string> = {};
  const paths: Partial<Record<ClipFormat, string>> = {};
  let faces: SpeakerCropPlan | undefined;
  let captions: ReturnType<typeof writeClipCaptions>;
  let thumbnails: Record<string, string> | undefined;
  let cards: CardTiming | undefined;
  const warnings: string[] = [];
  try {
    // The brand the job was first rendered with (its checkpoint's snapshot), not today's.
    const look = await lookOf(state.brand, input.dataDir, input.store);
    await renderClipFormats(
      { source, words: transcript.words, start: input.start, end: input.end, style: input.style, look, cards: cardsOf(look), card: source.hasVideo ? undefined : audiogramCard(state.plan.showNotes, transcript, input.title) },
      input.formats.map((format) => ({ format, outPath: join(outDir, `${base}_${format}.mp4`) })),
      {
        onRendered: (format, path) => {
          files[format] = `job:${path.slice(outDir.length + 1)}`;
          paths[format] = path;
        },
        onCropPlan: (p) => (faces = p),
        onCards: (t) => (cards = t),
      },
    );
    thumbnails = await clipThumbnails({ source, words: transcript.words, clip: { start_time: input.start, end_time: input.end, title: input.title, hook: input.hook }, look, faces, paths, base: join(outDir, base), warnings, rank: input.rank, introSeconds: cards?.intro });
    captions = writeClipCaptions(outDir, transcript.words, { start_time: input.start, end_time: input.end, hook: input.hook, ...(cards ? { intro_seconds: cards.intro } : {}) }, base);
  } catch (err) {
    // A failed render (a full disk above all) leaves no half-written file of its own behind; the
    // clip's current files are named by another render's tag and stay.
    for (const name of existsSync(outDir) ? readdirSync(outDir) : []) if (name.startsWith(`${base}_`) || name.startsWith(`${base}.`)) rmSync(join(outDir, name), { force: true });
    throw err;
  }
  const text = snapToSentenceEdges(transcript.words, input.start, input.end)?.text ?? "";
  return {
    files, ...(thumbnails ? { thumbnails } : {}), captions: { srt: `job:${captions.srt}`, vtt: `job:${captions.vtt}` }, transcript_text: text,
    ...(cards ? { cards: cardSeconds(cards) } : {}), ...(warnings.length ? { warnings } : {}),
  };
};

/** The trailer's passages: the clips it was cut from plus the extra ranked passages, as the trailer stage chose them. */
export function trailerPassages(state: LiveState): Array<{ start: number; end: number }> {
  return [...(state.rendered ?? []).map((r) => r.plan), ...(state.trailerExtras ?? [])].map((p) => ({ start: p.start_time, end: p.end_time }));
}

export type TrailerRerenderFn = (input: { dataDir: string; jobId: string; tag: string; style?: CaptionStyle; store?: ObjectStore }) => Promise<{ file: string; duration_seconds: number }>;

/** The trailer again from the checkpoint's (corrected) words, as `trailer_<tag>.mp4`: same passages, new captions. */
export const rerenderLiveTrailer: TrailerRerenderFn = async (input) => {
  const state = checkpointState(input.dataDir, input.jobId);
  if (!state?.source || !state.transcript) throw new Error(`job ${input.jobId} has no checkpointed source and transcript to re-render its trailer from`);
  const segments = planTrailer(trailerPassages(state), state.transcript.words);
  const name = `trailer_${input.tag}.mp4`;
  const look = await lookOf(state.brand, input.dataDir, input.store);
  const t = await renderTrailer({ source: state.source, words: state.transcript.words, segments, style: input.style, look, cards: cardsOf(look), knownFraming: state.trailerFraming, outPath: join(jobOutputDir(input.dataDir, input.jobId), name) });
  return { file: `job:${name}`, duration_seconds: Math.round(t.durationSeconds * 1000) / 1000 };
};
