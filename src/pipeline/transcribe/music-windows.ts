/**
 * Music, not speech: speech stops many times a second (between syllables and words its energy falls
 * well below its average), music and singing hold their sound. The share of low-energy frames
 * (Scheirer & Slaney 1997) tells them apart on windows of a second or more without a model: on the
 * shared speech (the call, the AMI openings, jfk, LibriVox, the bundled sample) no 1.5 s window has
 * under 10 % of its frames below half its mean energy, while 70 % of the windows of Debian's
 * drascula-music tracks do (86 % of wesnoth-music's, held out). docs/benchmarks/speakers.md.
 *
 * The segmentation model hears tones and singing as speech, so without this a theme tune became a
 * speaker of its own and took the words whisper wrote over it.
 */
import type { PcmSource } from "../../media/wav.ts";
import type { Window } from "./diarize-embeddings.ts";

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

/** Per window: true where it sounds like music or singing rather than speech. */
export function musicWindows(audio: PcmSource, windows: Window[]): boolean[] {
  return windows.map((w) => {
    if (w.end - w.start < MIN_MUSIC_WINDOW_SECONDS) return false;
    const start = Math.max(0, Math.round(w.start * audio.sampleRate));
    const samples = audio.read(start, Math.round((w.end - w.start) * audio.sampleRate));
    return lowEnergyShare(samples, audio.sampleRate) < MUSIC_LOW_ENERGY_SHARE;
  });
}
