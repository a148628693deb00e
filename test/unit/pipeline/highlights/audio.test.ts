import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { audioFeaturesFromWav } from "../../../../src/pipeline/highlights/audio.ts";
import { readWav } from "../../../../src/media/wav.ts";
import { SHARED_MEDIA } from "../../../helpers/synthetic-transcript.ts";
import { describeShared } from "../../../helpers/shared.ts";

/** Speech spans from an RTTM file (SPEAKER lines: onset at field 4, duration at field 5). */
function rttm(path: string): { start: number; end: number }[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("SPEAKER"))
    .map((l) => l.split(/\s+/))
    .map((f) => ({ start: Number(f[3]), end: Number(f[3]) + Number(f[4]) }));
}

describeShared("audio energy from real recordings", () => {
  test("reads 16-bit and float WAVs at their real length", () => {
    const call = readWav(SHARED_MEDIA + "two_speakers_call.wav");
    expect(call.sampleRate).toBe(16000);
    expect(call.samples.length / call.sampleRate).toBeCloseTo(30, 0);
    const meeting = readWav(SHARED_MEDIA + "meeting_excerpt.wav"); // pcm_f32le
    expect(meeting.samples.length / meeting.sampleRate).toBeCloseTo(30, 0);
    expect(meeting.samples.every((s) => s >= -1.01 && s <= 1.01)).toBe(true);
  });

  for (const name of ["two_speakers_call", "meeting_excerpt"]) {
    test(`${name}: frames inside annotated speech are louder than frames outside`, () => {
      const { energy } = audioFeaturesFromWav(`${SHARED_MEDIA}${name}.wav`, 0.25);
      const speech = rttm(`${SHARED_MEDIA}${name}.rttm`);
      const inside: number[] = [];
      const outside: number[] = [];
      energy!.values.forEach((v, i) => {
        const mid = (i + 0.5) * energy!.frameSeconds;
        const near = speech.some((s) => mid >= s.start - 0.25 && mid <= s.end + 0.25);
        const within = speech.some((s) => mid >= s.start && mid <= s.end);
        if (within) inside.push(v);
        else if (!near) outside.push(v);
      });
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      expect(inside.length).toBeGreaterThan(10);
      expect(outside.length).toBeGreaterThan(3);
      expect(mean(inside)).toBeGreaterThan(2 * mean(outside));
    });
  }
});
