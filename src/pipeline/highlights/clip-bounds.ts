/**
 * Where a re-rendered clip may start and end: on the sentence edges the pipeline's own clips use
 * (sentences.ts, evidence rule of sentence-edges.ts), so a customer's rough times still give a clip
 * that opens on a sentence's first word and closes on a finished sentence's last.
 */
import { splitSentences, type Sentence } from "./sentences.ts";
import type { Word } from "../types.ts";

export interface SnappedBounds {
  start: number;
  end: number;
  /** The sentences the snapped clip holds, joined: its transcript_text. */
  text: string;
}

const nearest = (values: number[], target: number): number | undefined =>
  values.reduce<number | undefined>((best, v) => (best === undefined || Math.abs(v - target) < Math.abs(best - target) ? v : best), undefined);

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export interface SentenceEdges {
  sentences: Sentence[];
  /** Where a clip may start: the first sentence and every one after a sentence that may end a clip. */
  starts: number[];
  /** Where a clip may end: evidenced sentence ends (every sentence's end in a transcript with none). */
  ends: number[];
}

/** The sentence edges clips are snapped to (the dashboard editor moves a clip's edges along them). */
export function sentenceEdges(words: Word[]): SentenceEdges {
  const sentences = splitSentences(words);
  const hasEvidence = sentences.some((s) => s.complete);
  const canEnd = (s: Sentence) => s.complete || !hasEvidence;
  return {
    sentences,
    starts: sentences.filter((s, i) => i === 0 || canEnd(sentences[i - 1]!)).map((s) => s.start),
    ends: sentences.filter(canEnd).map((s) => s.end),
  };
}

/**
 * Snaps `start` to the nearest sentence start and `end` to the nearest evidenced sentence end after
 * it. A transcript with no evidenced end (an unpunctuated recording) falls back to every sentence's
 * end. Returns undefined when no sentence end lies after the snapped start.
 */
export function snapToSentenceEdges(words: Word[], start: number, end: number): SnappedBounds | undefined {
  const { sentences, starts, ends } = sentenceEdges(words);
  const snappedStart = nearest(starts, start);
  if (snappedStart === undefined) return undefined;
  const snappedEnd = nearest(ends.filter((e) => e > snappedStart), end);
  if (snappedEnd === undefined) return undefined;
  const inside = sentences.filter((s) => s.start >= snappedStart && s.end <= snappedEnd);
  return { start: round3(snappedStart), end: round3(snappedEnd), text: inside.map((s) => s.text).join(" ") };
}
