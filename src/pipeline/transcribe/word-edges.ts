/**
 * whisper.cpp's word times, trimmed to where the voice activity model hears speech.
 *
 * whisper.cpp's token timestamps tile the audio: each word runs on to the next one's start, so the
 * pauses inside a speech region (anything under the VAD's 0.5 s split) vanish, and a word before a
 * pause is stretched over the silence after it. CTranslate2's alignment (faster-whisper's
 * cross-attention word times) leaves those pauses in. The sentence-end rule (sentence-edges.ts)
 * needs a pause after a full stop, so the same speech gave the two engines different sentence ends,
 * and with them different clips (the parity measurements in docs/pipeline/transcribe.md).
 *
 * Silero's per-frame probabilities already say where the silence is. A word's edge frames that the
 * VAD hears as silence (below the region rule's `negThreshold`) are cut off the word; a word with no
 * frame heard as speech keeps its times (quiet speech the VAD misses is still speech). Words are only
 * ever shortened, never moved or lengthened, so their order and the regions they fall in stay.
 */
import { DEFAULT_VAD } from "./vad.ts";

export interface TimedWord {
  start: number;
  end: number;
}

export interface FrameProbabilities {
  probs: ArrayLike<number>;
  frameSeconds: number;
}

export function trimToVoice<W extends TimedWord>(words: W[], vad: FrameProbabilities, silenceBelow = DEFAULT_VAD.negThreshold): W[] {
  const { probs, frameSeconds: fs } = vad;
  const round = (t: number) => Math.round(t * 1000) / 1000;
  return words.map((w) => {
    // The frames the word overlaps; a frame counts when the word covers any of it.
    const first = Math.max(0, Math.floor(w.start / fs + 1e-9));
    const last = Math.min(probs.length - 1, Math.ceil(w.end / fs - 1e-9) - 1);
    let a = first;
    while (a <= last && probs[a]! < silenceBelow) a++;
    if (a > last) return w;
    let b = last;
    while (b > a && probs[b]! < silenceBelow) b--;
    const start = Math.max(w.start, a * fs);
    const end = Math.min(w.end, (b + 1) * fs);
    if (start === w.start && end === w.end) return w;
    return { ...w, start: round(start), end: round(Math.max(start, end)) };
  });
}
