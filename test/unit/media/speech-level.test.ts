import { describe, expect, test } from "bun:test";
import { measureSpeechLevel, SPEECH_LEVEL_DBFS, speechGain, toPcm16 } from "../../../src/media/speech-level.ts";

const RATE = 16000;
const db = (x: number) => 20 * Math.log10(x);

/** Bursts of a 200 Hz tone at `amplitude` for `on` of every second, silence between. */
function bursts(seconds: number, amplitude: number, on = 0.5): Float32Array {
  const out = new Float32Array(seconds * RATE);
  for (let i = 0; i < out.length; i++) if ((i / RATE) % 1 < on) out[i] = amplitude * Math.sin((2 * Math.PI * 200 * i) / RATE);
  return out;
}

describe("speech level", () => {
  test("the level is the loud end of the frames, not the mean over pauses", () => {
    const { level, peak } = measureSpeechLevel(bursts(10, 0.1), RATE);
    expect(db(level)).toBeCloseTo(db(0.1 / Math.SQRT2), 0);
    expect(peak).toBeCloseTo(0.1, 2);
  });

  test("quiet copies of one recording come out at the same level", () => {
    for (const amplitude of [0.005, 0.01, 0.03]) {
      const samples = bursts(10, amplitude);
      const { level, peak } = measureSpeechLevel(samples, RATE);
      const out = toPcm16(samples, speechGain(level, peak));
      const after = measureSpeechLevel(Float32Array.from(out, (v) => v / 32768), RATE);
      expect(db(after.level)).toBeCloseTo(SPEECH_LEVEL_DBFS, 0);
    }
  });

  test("digital silence and loud files are left alone; the boost is capped; peaks limit a boost but never turn it into a cut", () => {
    expect(speechGain(0, 0)).toBe(1);
    expect(speechGain(1e-5, 1e-4)).toBe(1);
    expect(db(speechGain(10 ** (-70 / 20), 10 ** (-60 / 20)))).toBeCloseTo(40, 5);
    // speech at -40 dB with clicks at -10 dB: boosted only as far as the clicks allow (-1 dB)
    expect(db(speechGain(10 ** (-40 / 20), 10 ** (-10 / 20)))).toBeCloseTo(9, 5);
    expect(speechGain(10 ** (-30 / 20), 0.99)).toBe(1);
    // a loud master is left at its level
    expect(speechGain(10 ** (-6 / 20), 0.9)).toBe(1);
  });

  test("16-bit output clips at full scale instead of wrapping", () => {
    expect(Array.from(toPcm16(Float32Array.from([0.5, -0.5, 0.9, -0.9]), 2))).toEqual([32767, -32768, 32767, -32768]);
  });
});
