/**
 * Reading a WAV a window at a time gives the same features as reading it whole: the long-episode
 * paths (diarization MFCCs and pitch, ranking energy) read from disk in blocks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../../src/media/ffmpeg.ts";
import { openWav, pcmSource, readWav } from "../../../src/media/wav.ts";
import { mfcc } from "../../../src/pipeline/transcribe/diarize-features.ts";
import { medianPitch } from "../../../src/pipeline/transcribe/diarize-pitch.ts";
import { energyFrames } from "../../../src/pipeline/highlights/audio.ts";
import { SHARED_MEDIA } from "../../helpers/paths.ts";
import { beforeAllShared, afterAllShared, describeShared } from "../../helpers/shared.ts";

let dir: string;
let wav: string;

beforeAllShared(async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-wav-stream-"));
  // 75 s: more than one block of MFCC frames (60 s) and of energy frames.
  wav = join(dir, "long.wav");
  await ffmpeg(["-y", "-stream_loop", "2", ...mediaInput(join(SHARED_MEDIA, "two_speakers_call.wav")), "-t", "75", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", wav]);
});
afterAllShared(() => rmSync(dir, { recursive: true, force: true }));

describeShared("WAV read in blocks", () => {
  test("windows read from disk equal the samples read whole, at the edges too", () => {
    const whole = readWav(wav);
    const src = openWav(wav);
    try {
      expect(src.length).toBe(whole.samples.length);
      expect(src.sampleRate).toBe(16000);
      for (const [start, count] of [[0, 10], [123_457, 4000], [src.length - 5, 100], [-3, 5]] as const) {
        expect(src.read(start, count)).toEqual(pcmSource(whole).read(start, count));
      }
    } finally {
      src.close();
    }
  });

  test("MFCCs, pitch and energy from the file in blocks equal those over the whole array", () => {
    const whole = pcmSource(readWav(wav));
    const src = openWav(wav);
    try {
      const a = mfcc(src);
      const b = mfcc(whole);
      expect(a.frames).toBeGreaterThan(6000);
      expect(a.ceps).toEqual(b.ceps);
      expect(a.energy).toEqual(b.energy);
      const times = Array.from({ length: 300 }, (_, i) => i * 0.25);
      expect(medianPitch(src, times)).toBe(medianPitch(whole, times));
      expect(energyFrames(src, 0.25)).toEqual(energyFrames(whole, 0.25));
    } finally {
      src.close();
    }
  });
});
