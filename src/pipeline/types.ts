/**
 * Data that flows between pipeline stages. Stages read and write these shapes only, so each stage
 * can be tested on its own with synthetic values.
 */

/** One recognised word with its timing in seconds from media start and the diarized speaker label. */
export interface Word {
  word: string;
  start: number;
  end: number;
  speaker: string;
  /** Recogniser confidence 0..1 when the engine gives one. */
  p?: number;
}

/** One speaker turn: contiguous words of one speaker. This is the API's transcript segment. */
export interface Segment {
  speaker: string;
  start: number;
  end: number;
  text: string;
}

export interface Transcript {
  language: string;
  /** The audio's length as decoded (samples counted), not as the file's header claims it. */
  durationSeconds?: number;
  segments: Segment[];
  words: Word[];
  /** Speaker label -> display name when a speaker introduced themself or was introduced. */
  speakerNames?: Record<string, string>;
  /** Why each name in speakerNames was given (the API's `speaker_names`). */
  speakerNameEvidence?: Array<{ speaker: string; name: string; evidence: string[] }>;
  /**
   * Who spoke when over all detected speech (words plus the pauses and unrecognised speech around them),
   * for the speakers of the words only: cards and the crop read it.
   */
  speakerTurns?: Array<{ speaker: string; start: number; end: number }>;
  /**
   * The diarizer's own view, overlap-aware: where two people talk at once both are listed, so entries may
   * overlap in time, and a voice that owns no words is kept (the speech bench scores the diarizer on it).
   */
  speakerActivity?: Array<{ speaker: string; start: number; end: number }>;
  /** Which engine/model produced it, e.g. "whisper.cpp ggml-base.en". */
  engine?: string;
  /** What a lesser engine stood in for (e.g. MFCC speaker clustering when the speaker-embedding model is missing). */
  warnings?: string[];
}

// The probe's result is the media adapter's type; the pipeline passes it along as its source.
export type { MediaInfo } from "../media/media-info.ts";

/** What describes a clip's content and place, wherever a clip is described (plan, stored output, fixtures). */
export type ClipContent = Pick<ClipPlan, "category" | "hook" | "pull_quote" | "start_time" | "end_time" | "transcript_text">;

/** A clip the highlight stage chose, before rendering. Times in seconds from media start. */
export interface ClipPlan {
  rank: number;
  category: string;
  hook: string;
  pull_quote: string;
  start_time: number;
  end_time: number;
  transcript_text: string;
  score: number;
  reason: string;
  /** Posting copy (API extension fields): a title of at most 70 characters. */
  title: string;
  /** One or two sentences said in the clip. */
  description: string;
  /** 3-5 hashtags, "#" included. */
  hashtags: string[];
}
