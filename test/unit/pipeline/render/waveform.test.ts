/** The audiogram waveform's bars: levels, geometry and colours (pure logic, no ffmpeg). */
import { describe, expect, test } from "bun:test";
import {
  BAR_PITCH, BAR_WIDTH, barCount, barRect, barSpan, invertColour, mixColour, waveformHeights, WAVEFORM_MIN_HEIGHT, WAVEFORM_RANGE_DB,
} from "../../../../src/pipeline/render/waveform.ts";
import type { Pcm } from "../../../../src/media/wav.ts";

const RATE = 8000;

/** A 200 Hz tone whose amplitude (dB re full scale) is given per second. */
function tone(levelsDb: number[]): Pcm {
  const samples = new Float32Array(levelsDb.length * RATE);
  for (let i = 0; i < samples.length; i++) {
    const amp = 10 ** (levelsDb[Math.floor(i / RATE)]! / 20);
    samples[i] = amp * Math.sin((2 * Math.PI * 200 * i) / RATE);
  }
  return { sampleRate: RATE, samples };
}

describe("waveformHeights", () => {
  test("a louder second draws a taller bar; the loudest fill their bars", () => {
    const h = waveformHeights(tone([-40, -30, -20, -10, -10]), 5);
    for (let i = 1; i < 4; i++) expect(h[i]!).toBeGreaterThan(h[i - 1]!);
    expect(h[3]).toBeCloseTo(1, 5);
    expect(h[4]).toBeCloseTo(1, 5);
  });

  test("the same audio 20 dB quieter draws the same bars", () => {
    const levels = [-30, -12, -18, -45, -9, -24, -15];
    const loud = waveformHeights(tone(levels), 7);
    const quiet = waveformHeights(tone(levels.map((l) => l - 20)), 7);
    for (let i = 0; i < 7; i++) expect(quiet[i]).toBeCloseTo(loud[i]!, 6);
  });

  test(`a pause ${WAVEFORM_RANGE_DB} dB or more under the loud level is a minimum bar, as is digital silence`, () => {
    const h = waveformHeights(tone([-10, -10 - WAVEFORM_RANGE_DB - 5, -10, -200]), 4);
    expect(h[1]).toBe(WAVEFORM_MIN_HEIGHT);
    expect(h[3]).toBe(WAVEFORM_MIN_HEIGHT);
    expect(waveformHeights({ sampleRate: RATE, samples: new Float32Array(RATE) }, 10)).toEqual(Array(10).fill(WAVEFORM_MIN_HEIGHT));
  });

  test("one shout does not flatten the rest: the loud level is a high percentile, not the peak", () => {
    const levels = [...Array(99).fill(-20), 0];
    const h = waveformHeights(tone(levels), 100);
    expect(h[0]).toBeCloseTo(1, 5);
  });

  test("bars split the samples evenly, more bars than samples included", () => {
    expect(waveformHeights(tone([-10, -10]), 151)).toHaveLength(151);
    const few = { sampleRate: RATE, samples: Float32Array.from([0.5, 0.5, 0.5]) };
    expect(waveformHeights(few, 7).every((x) => x === 1)).toBe(true);
    expect(waveformHeights({ sampleRate: RATE, samples: new Float32Array(0) }, 3)).toEqual(Array(3).fill(WAVEFORM_MIN_HEIGHT));
  });
});

describe("bar geometry", () => {
  test("as many whole bars as fit, and their span never exceeds the width", () => {
    for (const width of [4, 9, 10, 907.2, 1612.8]) {
      const n = barCount(width);
      expect(barSpan(n)).toBeLessThanOrEqual(Math.max(width, BAR_WIDTH));
      if (width >= BAR_WIDTH) expect(barSpan(n + 1)).toBeGreaterThan(width);
    }
    expect(barCount(907.2)).toBe(151);
  });

  test("rectangles are centred with even positions and sizes (4:2:0 chroma), from 2 px to the full row", () => {
    for (const rowHeight of [134, 108, 4]) {
      for (const share of [0, WAVEFORM_MIN_HEIGHT, 0.33, 0.5, 0.999, 1]) {
        const r = barRect(3, share, rowHeight);
        expect(r.x).toBe(3 * BAR_PITCH);
        expect(r.w).toBe(BAR_WIDTH);
        for (const v of [r.x, r.y, r.w, r.h]) expect(v % 2).toBe(0);
        expect(r.h).toBeGreaterThanOrEqual(2);
        expect(r.y + r.h + r.y).toBe(rowHeight);
        expect(Math.abs(r.h - Math.max(2, share * rowHeight))).toBeLessThanOrEqual(2);
      }
    }
    expect(barRect(0, 1, 134).h).toBe(134);
    expect(barRect(0, 0, 134).h).toBe(2);
  });
});

test("invertColour complements each channel", () => {
  expect(invertColour("0x1b2a41")).toBe("0xe4d5be");
  expect(invertColour("#000000")).toBe("0xffffff");
});

test("mixColour blends channel by channel", () => {
  expect(mixColour("0x000000", "0xffffff", 0.5)).toBe("0x808080");
  expect(mixColour("0x7fdbca", "0x1b2a41", 0)).toBe("0x7fdbca");
  expect(mixColour("0x7fdbca", "0x1b2a41", 1)).toBe("0x1b2a41");
  expect(mixColour("#7fdbca", "0x1b2a41", 0.6)).toBe("0x437178");
});
