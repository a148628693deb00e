/**
 * Speech the segmentation model hears and Silero mostly does not: the quiet end of a meeting table. The
 * recogniser reads Silero's regions (they are ready first, so recognition starts beside the speaker
 * models); on far-field recordings Silero's probability stays under its threshold for a quiet voice the
 * segmentation model is sure of, and the recogniser never hears it (meeting_trn07: 9 words where a run
 * over both models' speech gives 21). These stretches are recognised once more when the speaker
 * models are done, and their words take the place of whatever the first pass made of them.
 */
import { secondsHeard } from "./speaker-turns.ts";
import { type Region } from "./vad.ts";

export interface QuietSpeechOptions {
  /** Shortest stretch worth a recognition of its own (seconds): under it Whisper mostly writes "Okay." or nothing. */
  minSeconds: number;
  /** A stretch Silero already covers this much of (share) was recognised in the first pass. */
  maxVadShare: number;
}

export const QUIET_SPEECH: QuietSpeechOptions = { minSeconds: 0.5, maxVadShare: 0.5 };

/**
 * The stretches of `heard` (the speech regions the speaker models used: Silero's joined with the
 * segmentation model's) that Silero's own regions `vad` cover less than `maxVadShare` of, and that last
 * `minSeconds` or more.
 */
export function quietSpeech(vad: Region[], heard: Region[], o: QuietSpeechOptions = QUIET_SPEECH): Region[] {
  const silero = vad.map(([start, end]) => ({ start, end }));
  return heard.filter(([a, b]) => b - a >= o.minSeconds && secondsHeard(silero, a, b) < o.maxVadShare * (b - a));
}

/**
 * The first pass's words outside the quiet stretches, and the second pass's inside them, in time order.
 * A word belongs to the stretch its middle falls in.
 */
export function withQuietWords<W extends { start: number; end: number }>(words: W[], quiet: Region[], again: W[]): W[] {
  if (!quiet.length) return words;
  const inside = (w: W) => {
    const mid = (w.start + w.end) / 2;
    return quiet.some(([a, b]) => mid >= a && mid < b);
  };
  return [...words.filter((w) => !inside(w)), ...again.filter(inside)].sort((x, y) => x.start - y.start);
}
