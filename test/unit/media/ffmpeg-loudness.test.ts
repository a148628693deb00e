/** The loudness loop's correction after an encode (pure: no ffmpeg). */
import { describe, expect, test } from "bun:test";
import { CLIP_LOUDNESS, levelFilter, reaim, type LoudnessPlan } from "../../../src/media/ffmpeg-loudness.ts";

const plan = (integrated: number, ceilingDb = -2): LoudnessPlan => ({ gainDb: 12, ceilingDb, filter: levelFilter(12, ceilingDb), integrated, passes: 2 });

describe("reaim", () => {
  test("in spec: nothing more to do", () => {
    expect(reaim(plan(-14.1), { integrated: -14.4, truePeak: -1.2, lra: 1 })).toBeUndefined();
    expect(reaim(plan(-14), { integrated: -13.5, truePeak: -1, lra: 1 })).toBeUndefined();
  });

  test("the encoder's loudness shift moves the PCM aim the other way; the ceiling stays", () => {
    // The PCM measured -14.1, the AAC -14.9: the codec took 0.8 LU, so the PCM aims at -13.2.
    expect(reaim(plan(-14.1), { integrated: -14.9, truePeak: -1.5, lra: 1 })).toEqual({ i: -13.2, ceilingDb: -2 });
    expect(reaim(plan(-14), { integrated: -13.2, truePeak: -2, lra: 1 })).toEqual({ i: -14.8, ceilingDb: -2 });
  });

  test("a true-peak overshoot lowers the ceiling by it and 0.2 dB more, and keeps the loudness aim", () => {
    const aim = reaim(plan(-14.1), { integrated: -14.2, truePeak: -0.6, lra: 1 })!;
    expect(aim.ceilingDb).toBeCloseTo(-2 - (0.4 + 0.2), 9);
    expect(aim.i).toBeCloseTo(CLIP_LOUDNESS.i + 0.1, 9);
  });
});
