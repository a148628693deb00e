import { joinWords } from "../highlights/sentences.ts";
import type { Segment, Word } from "../types.ts";

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
