import { joinWords } from "../highlights/sentences.ts";
import type { Segment, Word } from "../types.ts";
import { firstEndingAfter, turnsBySpeaker } from "./speaker-turns.ts";

export interface SegmentOptions {
  /** A pause this long starts a new segment even when the speaker stays. */
  maxGapSeconds: number;
  /** Past this length a segment is cut at the next sentence end, so captions and quotes stay quotable. */
  maxSegmentSeconds: number;
}

export const DEFAULT_SEGMENTING: SegmentOptions = { maxGapSeconds: 2, maxSegmentSeconds: 30 };

const endsSentence = (w: string) => /[.!?…]["')\]]*$/.test(w);

/** Words to speaker-turn segments: a new segment on every speaker change, long pause, or overlong turn. */
export function segmentsFromWords(words: Word[], opts: SegmentOptions = DEFAULT_SEGMENTING): Segment[] {
  const out: Segment[] = [];
  let cur: Word[] = [];
  const flush = () => {
    if (!cur.length) return;
    out.push({ speaker: cur[0]!.speaker, start: cur[0]!.start, end: cur[cur.length - 1]!.end, text: joinWords(cur.map((w) => w.word)) });
    cur = [];
  };
  for (const w of words) {
    const last = cur[cur.length - 1];
    if (last) {
      const tooLong = w.start - cur[0]!.start >= opts.maxSegmentSeconds && endsSentence(last.word);
      if (w.speaker !== last.speaker || w.start - last.end >= opts.maxGapSeconds || tooLong) flush();
    }
    cur.push(w);
  }
  flush();
  return out;
}

/**
 * How far a segment's edge moves out into its speaker's voice (seconds). The recogniser times a word
 * from its onset to where it stops hearing it, a few hundred milliseconds inside the voice at either
 * end of a turn (a fading last syllable, a breath before the first), so a transcript cut at its words
 * leaves a gap in every turn. Chosen on the tuning split (docs/benchmarks/speakers.md): 0.5-2 s gave
 * the same within half a point, and 1 s is where the gain levels off.
 */
export const VOICE_EDGE_SECONDS = 1;

/**
 * Segments widened to the voice they hold: each segment's end moves on through its own speaker's
 * diarized voice, and its start back, by at most `maxSeconds` and never into the segment beside it.
 * The words and their times stay as they are; only the segment's span changes, so "who spoke when"
 * in the transcript covers the voice and not only the words' timestamps.
 */
export function segmentsOnTheVoice(segments: Segment[], voice: ReadonlyArray<{ speaker: string; start: number; end: number }> | undefined, maxSeconds = VOICE_EDGE_SECONDS): Segment[] {
  if (!voice?.length || !segments.length) return segments;
  const bySpeaker = turnsBySpeaker(voice);
  // The voice stretch of `speaker` that holds instant x (a word's edge may sit a frame outside it).
  const SLACK = 0.02;
  const around = (speaker: string, x: number) => {
    const turns = bySpeaker.get(speaker);
    if (!turns) return undefined;
    let best: { start: number; end: number } | undefined;
    for (let k = firstEndingAfter(turns, x - SLACK); k < turns.length && turns[k]!.start <= x + SLACK; k++) if (!best || turns[k]!.end > best.end) best = turns[k];
    return best;
  };
  const out = segments.map((s) => ({ ...s }));
  // Ends first, each stopping at the next segment's start; then starts, each stopping at the end before it.
  for (let i = 0; i < out.length; i++) {
    const s = out[i]!;
    const next = i + 1 < out.length ? out[i + 1]!.start : Infinity;
    const v = around(s.speaker, s.end);
    if (v && v.end > s.end) s.end = Math.max(s.end, Math.min(v.end, s.end + maxSeconds, next));
  }
  for (let i = 0; i < out.length; i++) {
    const s = out[i]!;
    const prev = i > 0 ? out[i - 1]!.end : 0;
    const v = around(s.speaker, s.start);
    if (v && v.start < s.start) s.start = Math.min(s.start, Math.max(v.start, s.start - maxSeconds, prev));
  }
  return out;
}

/** The transcript's segments: from its words, widened to its speakers' voice where the diarizer heard it. */
export function transcriptSegments(words: Word[], voice?: ReadonlyArray<{ speaker: string; start: number; end: number }>): Segment[] {
  return segmentsOnTheVoice(segmentsFromWords(words), voice);
}

/** Plain transcript text as the CLI prints it: one line per segment with time and speaker. */
export function formatTranscript(segments: Segment[], speakerNames: Record<string, string> = {}): string {
  const ts = (s: number) => {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = (s % 60).toFixed(1).padStart(4, "0");
    return `${h ? `${h}:` : ""}${String(m).padStart(h ? 2 : 1, "0")}:${sec}`;
  };
  return segments.map((s) => `[${ts(s.start)}-${ts(s.end)}] ${speakerNames[s.speaker] ? `${speakerNames[s.speaker]} (${s.speaker})` : s.speaker}: ${s.text}`).join("\n");
}
