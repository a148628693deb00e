/**
 * Audio features for clip ranking that need no model: loudness (RMS) per frame. Reads PCM WAV
 * directly (the ASR stage already decodes every source to 16 kHz mono WAV), so ranking can use vocal
 * energy without another ffmpeg pass. Laughter detection is not implemented.
 */
import { readWav, type Pcm } from "../media/wav.ts";
import type { AudioFeatures } from "./rank.ts";

/** RMS loudness per frame of `frameSeconds`, the `energy` input of AudioFeatures. */
export function energyFrames(pcm: Pcm, frameSeconds = 0.5): NonNullable<AudioFeatures["energy"]> {
  const len = Math.max(1, Math.round(pcm.sampleRate * frameSeconds));
  const values: number[] = [];
  for (let start = 0; start < pcm.samples.length; start += len) {
    const end = Math.min(pcm.samples.length, start + len);
    let sum = 0;
    for (let i = start; i < end; i++) sum += pcm.samples[i]! * pcm.samples[i]!;
    values.push(Math.sqrt(sum / (end - start)));
  }
  return { frameSeconds, values };
}

/** Audio features from a WAV file: energy only. */
export function audioFeaturesFromWav(path: string, frameSeconds = 0.5): AudioFeatures {
  return { energy: energyFrames(readWav(path), frameSeconds) };
}
