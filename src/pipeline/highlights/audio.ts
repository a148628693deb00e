/**
 * Audio features for clip ranking that need no model: loudness (RMS) per frame. Reads PCM WAV
 * directly (the ASR stage already decodes every source to 16 kHz mono WAV), so ranking can use vocal
 * energy without another ffmpeg pass. Laughter comes from the words, where the recogniser wrote it down
 * (transcribe/laughter-words.ts); nothing here listens for it.
 */
import { forEachBlock, openWav, type PcmSource } from "../../media/wav.ts";
import type { AudioFeatures } from "./rank.ts";

/** Frames per read: a minute of audio at a time, whatever the episode's length. */
const FRAMES_PER_READ = 120;

/** RMS loudness per frame of `frameSeconds`, the `energy` input of AudioFeatures. */
export function energyFrames(pcm: PcmSource, frameSeconds = 0.5): NonNullable<AudioFeatures["energy"]> {
  const len = Math.max(1, Math.round(pcm.sampleRate * frameSeconds));
  const values: number[] = [];
  forEachBlock(pcm, len * FRAMES_PER_READ, (samples) => {
    for (let start = 0; start < samples.length; start += len) {
      const end = Math.min(samples.length, start + len);
      let sum = 0;
      for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
      values.push(Math.sqrt(sum / (end - start)));
    }
  });
  return { frameSeconds, values };
}

/** Audio features from a WAV file (read a block at a time): energy only. */
export function audioFeaturesFromWav(path: string, frameSeconds = 0.5): AudioFeatures {
  const wav = openWav(path);
  try {
    return { energy: energyFrames(wav, frameSeconds) };
  } finally {
    wav.close();
  }
}
