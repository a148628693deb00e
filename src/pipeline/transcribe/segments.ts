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
 * How far a segment's start moves back into its speaker's voice (seconds). The recogniser times a
 * word from its onset to where it stops hearing it, a few hundred milliseconds inside the voice at
 * either end of a turn (a breath before the first syllable, a fading last one), so a transcript cut at
 * its words leaves a gap in every turn. A start is what a reader sees of a line ("[1:02] Ann: …"), so
 * it stays within this of the first word. Chosen on the tuning split (docs/benchmarks/speakers.md):
 * 0.5-2 s gave the same within half a point, and 1 s is where the gain levels off.
 */
export const VOICE_EDGE_SECONDS = 1;

/**
 * How far a segment's end runs on past its words where no one's words are (seconds): a fading last
 * syllable, a quiet speaker's words the recogniser missed. Under others' words it runs on further.
 * Chosen on the tuning split (docs/benchmarks/speakers.md): 1 and 1.5 s fell short of the rest, and
 * 2 s is where it levels off (the same up to no limit at all).
 */
export const VOICE_RUN_ON_SECONDS = 2;

/**
 * Segments widened to the voice they hold, as the diarizer heard it. A segment's end moves on through
 * its own speaker's voice until that voice stops or the speaker's next segment begins: where someone
 * talks over them (the recogniser writes one stream of words, so their words stop at the other's
 * first), both segments cover the overlap, as both people were talking; where no one's words are, at
 * most VOICE_RUN_ON_SECONDS past its own. Its start moves back through the voice by at most
 * `maxSeconds`, never before the segment before it starts, so segments stay in the order of their
 * starts. Segments of one speaker never overlap. The words and their times stay as they are; only
 * the segments' spans change, so "who spoke when" in the transcript covers the voice and not only the
 * words' timestamps.
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
  // Ends first, each up to where its speaker's next segment starts; then starts, each not before its
  // speaker's previous segment's (widened) end, nor before the start of the segment before it.
  const nextOwnStart = new Map<string, number>();
  const ends = segments.map(() => 0);
  for (let i = segments.length - 1; i >= 0; i--) {
    const s = segments[i]!;
    const after = around(s.speaker, s.end);
    // Past VOICE_RUN_ON_SECONDS the end only goes on under others' words (talked over), not where
    // nobody's words are: a voice the recogniser wrote nothing for there may be the diarizer's mistake.
    let reach = s.end + VOICE_RUN_ON_SECONDS;
    for (let j = i + 1; j < segments.length && segments[j]!.start <= reach && segments[j]!.speaker !== s.speaker; j++) reach = Math.max(reach, segments[j]!.end);
    ends[i] = after && after.end > s.end ? Math.min(after.end, nextOwnStart.get(s.speaker) ?? Infinity, reach) : s.end;
    nextOwnStart.set(s.speaker, s.start);
  }
  const lastOwnEnd = new Map<string, number>();
  return segments.map((s, i) => {
    const before = around(s.speaker, s.start);
    const floor = Math.max(s.start - maxSeconds, lastOwnEnd.get(s.speaker) ?? 0, i > 0 ? segments[i - 1]!.start : 0);
    const start = before && before.start < s.start ? Math.min(s.start, Math.max(before.start, floor)) : s.start;
    lastOwnEnd.set(s.speaker, ends[i]!);
    return { ...s, start, end: Math.max(s.end, ends[i]!) };
  });
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
