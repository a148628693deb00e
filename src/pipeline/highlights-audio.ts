/**
 * Audio features for clip ranking that need no model: loudness (RMS) per frame. Reads PCM WAV
 * directly (the ASR stage already decodes every source to 16 kHz mono WAV), so ranking can use vocal
 * energy without another ffmpeg pass. Laughter detection is not implemented.
 */
import { readFileSync } from "node:fs";
import type { AudioFeatures } from "./rank.ts";

export interface Pcm {
  sampleRate: number;
  /** Mono samples in -1..1 (channels averaged). */
  samples: Float32Array;
}

/** Parses a RIFF/WAVE file with 16-bit integer or 32-bit float PCM. */
export function readWav(path: string): Pcm {
  const buf = readFileSync(path);
  if (buf.toString("ascii", 0, 4) !== "RIFF" || buf.toString("ascii", 8, 12) !== "WAVE") throw new Error(`${path}: not a WAVE file`);
  let off = 12;
  let format = 0;
  let channels = 0;
  let sampleRate = 0;
  let bits = 0;
  while (off + 8 <= buf.length) {
    const id = buf.toString("ascii", off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === "fmt ") {
      format = buf.readUInt16LE(body);
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
      // WAVE_FORMAT_EXTENSIBLE carries the real format in its sub-format GUID.
      if (format === 0xfffe && size >= 26) format = buf.readUInt16LE(body + 24);
    } else if (id === "data") {
      if (!channels) throw new Error(`${path}: data before fmt chunk`);
      const end = Math.min(buf.length, body + size);
      const frameBytes = (bits / 8) * channels;
      const n = Math.floor((end - body) / frameBytes);
      const samples = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let c = 0; c < channels; c++) {
          const p = body + i * frameBytes + (c * bits) / 8;
          if (format === 1 && bits === 16) s += buf.readInt16LE(p) / 32768;
          else if (format === 3 && bits === 32) s += buf.readFloatLE(p);
          else throw new Error(`${path}: unsupported WAV format ${format}/${bits}-bit`);
        }
        samples[i] = s / channels;
      }
      return { sampleRate, samples };
    }
    off = body + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

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
