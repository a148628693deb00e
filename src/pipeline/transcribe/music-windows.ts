/**
 * Music, not speech: speech stops many times a second (between syllables and words its energy falls
 * well below its average), music and singing hold their sound. The share of low-energy frames
 * (Scheirer & Slaney 1997) tells them apart on windows of a second or so, without a model: on the
 * shared speech (the call, the AMI openings, jfk, LibriVox, the bundled sample) no 1.5 s window has
 * under 10 % of its frames below half its mean energy, while 70 % of the windows of Debian's
 * drascula-music tracks do (86 % of wesnoth-music's, held out). docs/benchmarks/speakers.md.
 *
 * The segmentation model hears tones and singing as speech, so without this a theme tune became a
 * speaker of its own and took the words whisper wrote over it; and Silero hears it too, so whisper
 * read the tune: it wrote its lyrics (or invented some), detected the language from them, and
 * garbled the first sentence after it. Long stretches of music are therefore not recognised at all.
 */
import type { PcmSource } from "../../media/wav.ts";
import type { FrameProbabilities } from "./word-edges.ts";
import { embeddingWindows, type Window } from "./diarize-embeddings.ts";
import { meanOverFrames, mergeRegions, totalSeconds, type Region } from "./vad.ts";

const FRAME_SECONDS = 0.025;
const HOP_SECONDS = 0.01;
/**
 * Shorter windows are too few frames to judge: never music. (The segmentation model hears music in
 * bursts under a second as often as in long stretches; the shared speech's windows under a second, a
 * single word each, have half their frames low.)
 */
export const MIN_MUSIC_WINDOW_SECONDS = 0.5;
/** Below this share of low-energy frames a window sounds like music (chosen on drascula-music; speech's lowest is 0.11). */
export const MUSIC_LOW_ENERGY_SHARE = 0.1;

/** Share of a window's 25 ms frames (10 ms apart) whose energy is under half the window's mean frame energy (RMS). */
export function lowEnergyShare(samples: Float32Array, sampleRate: number): number {
  const frame = Math.round(FRAME_SECONDS * sampleRate);
  const hop = Math.round(HOP_SECONDS * sampleRate);
  if (samples.length < frame) return 1;
  const rms: number[] = [];
  for (let s = 0; s + frame <= samples.length; s += hop) {
    let e = 0;
    for (let i = s; i < s + frame; i++) e += samples[i]! * samples[i]!;
    rms.push(Math.sqrt(e / frame));
  }
  const mean = rms.reduce((a, b) => a + b, 0) / rms.length;
  if (mean === 0) return 1;
  return rms.filter((r) => r < 0.5 * mean).length / rms.length;
}

/**
 * Where Silero is this sure of speech on average over a window, it is talk, however steady the sound:
 * talk over a loud music bed (6 dB under it) fills its own pauses with the music, so whole sentences of it
 * were cut out of recognition (74 s of the 18 held-out loud-bed mixes of `scripts/bench/music.ts`) and a
 * host who talks over the bed could be taken for the music. Silero hears singing as speech too, and low
 * frames cannot tell a held sung note from talk whose pauses a bed fills (both read 0.00-0.09), so this
 * trades: at 0.8 that talk is nearly all recognised (74 → 29 s cut held out, 22 → 0 s tuning), and one
 * sung outro of the 60 intro and bed mixes (drascula track1, Silero over 0.8) goes back to whisper, which
 * writes its lyrics; at 0.95 no tune changes but neither does the held-out talk (docs/benchmarks/speakers.md).
 */
export const MUSIC_MAX_VOICE = 0.8;

/** Silero's mean probability over a window (0 when it holds no frame). */
export const meanVoice = (voice: FrameProbabilities, w: Window): number => meanOverFrames(voice.probs, voice.frameSeconds, w) ?? 0;

/**
 * Per window, its share of low-energy frames; 1 (never music) for windows too short to judge, and for
 * those Silero is sure are speech (MUSIC_MAX_VOICE) when its probabilities are given.
 */
function windowShares(audio: PcmSource, windows: Window[], voice?: FrameProbabilities): number[] {
  return windows.map((w) => {
    if (w.end - w.start < MIN_MUSIC_WINDOW_SECONDS) return 1;
    if (voice && meanVoice(voice, w) >= MUSIC_MAX_VOICE) return 1;
    const start = Math.max(0, Math.round(w.start * audio.sampleRate));
    return lowEnergyShare(audio.read(start, Math.round((w.end - w.start) * audio.sampleRate)), audio.sampleRate);
  });
}

/** Per window: true where it sounds like music or singing rather than speech (and Silero, when given, is not sure it is speech). */
export function musicWindows(audio: PcmSource, windows: Window[], voice?: FrameProbabilities): boolean[] {
  return windowShares(audio, windows, voice).map((share) => share < MUSIC_LOW_ENERGY_SHARE);
}

/** A run of music windows this long or longer is left out of recognition (a theme tune; not a held note between words). */
export const MIN_MUSIC_STRETCH_SECONDS = 3;
/**
 * When more of the speech than this sounds like music, nothing is left out: it is a music recording,
 * or speech under loud steady noise that fills its pauses (the phone call under pink noise at 5 dB), and
 * its words are wanted either way.
 */
export const MAX_MUSIC_SHARE = 0.5;

/** Music windows this far apart or closer are one stretch (Silero cuts a tune into pieces at its quiet beats). */
const MUSIC_GAP_SECONDS = 2;
/**
 * Beside a stretch, a window under this share is still the tune: where a tune fades in or out, the
 * fade's frames sit below half the window's mean, so its first and last windows read 0.1-0.2 and were
 * left to the recogniser as a second of music of their own (which whisper wrote lyrics for: "It's
 * ruined not!" before the bundled sample's hosts, under a drascula intro). Speech that low is rare (9
 * of the 484 windows of the shared speech, the sample and LibriVox; lowest 0.115, crosstalk), and it
 * would also have to sit beside a tune.
 */
export const MUSIC_EDGE_SHARE = 0.2;

/**
 * Stretches that are music for MIN_MUSIC_STRETCH_SECONDS or more: runs of music windows (1.5 s every
 * 0.75 s inside `regions`, as the speaker models read them) with no window of speech between them and
 * no gap over MUSIC_GAP_SECONDS. None when over `maxShare` of the regions' time would go. With Silero's
 * probabilities (`voice`), a window it is sure is speech is never music (MUSIC_MAX_VOICE).
 */
export function musicStretches(audio: PcmSource, regions: Region[], opts: { maxShare?: number; voice?: FrameProbabilities } = {}): Region[] {
  const { maxShare = MAX_MUSIC_SHARE, voice } = opts;
  const windows = embeddingWindows(regions);
  const shares = windowShares(audio, windows, voice);
  // Runs of music windows, as first and last window index.
  const runs: Array<[number, number]> = [];
  windows.forEach((w, i) => {
    if (shares[i]! >= MUSIC_LOW_ENERGY_SHARE) return;
    const last = runs[runs.length - 1];
    if (last && last[1] === i - 1 && w.start - windows[last[1]]!.end <= MUSIC_GAP_SECONDS) last[1] = i;
    else runs.push([i, i]);
  });
  const out: Region[] = [];
  for (const [first, last] of runs) {
    if (windows[last]!.end - windows[first]!.start < MIN_MUSIC_STRETCH_SECONDS) continue;
    // The tune's fading edges (MUSIC_EDGE_SHARE), window by window while they stay near it.
    let a = first;
    let b = last;
    while (a > 0 && shares[a - 1]! < MUSIC_EDGE_SHARE && windows[a]!.start - windows[a - 1]!.end <= MUSIC_GAP_SECONDS) a--;
    while (b < windows.length - 1 && shares[b + 1]! < MUSIC_EDGE_SHARE && windows[b + 1]!.start - windows[b]!.end <= MUSIC_GAP_SECONDS) b++;
    out.push([windows[a]!.start, windows[b]!.end]);
  }
  const merged = mergeRegions(out);
  return totalSeconds(merged) > maxShare * totalSeconds(regions) ? [] : merged;
}

/** The transcript's warning for the stretches left out: someone reading it should know why there are no words there. */
export function musicWarnings(stretches: Region[]): string[] {
  if (!stretches.length) return [];
  return [`music, not transcribed: ${stretches.map(([a, b]) => `${a.toFixed(1)}-${b.toFixed(1)} s`).join(", ")}`];
}
