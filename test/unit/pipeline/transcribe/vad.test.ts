import { expect, test } from "bun:test";
import { meanOverFrames, mergeRegions, speechRegions, totalSeconds } from "../../../../src/pipeline/transcribe/vad.ts";

const frames = (spec: Array<[number, number]>) => spec.flatMap(([p, n]) => new Array<number>(n).fill(p));

test("speech regions with hysteresis, padding and short-pause bridging", () => {
  // 32 ms frames: 1 s silence, 1 s speech, 0.16 s dip, 1 s speech, 2 s silence
  const probs = frames([[0.05, 31], [0.9, 31], [0.1, 5], [0.9, 31], [0.02, 62]]);
  const r = speechRegions(probs, 0.032, 6);
  expect(r.length).toBe(1);
  expect(r[0]![0]).toBeCloseTo(0.992 - 0.2, 2);
  expect(r[0]![1]).toBeCloseTo(0.992 + 0.992 + 0.16 + 0.992 + 0.2, 2);
});

test("long silence splits regions and clicks are dropped", () => {
  const probs = frames([[0.9, 31], [0.05, 40], [0.9, 3], [0.05, 40], [0.9, 20]]);
  const r = speechRegions(probs, 0.032, 5);
  expect(r.length).toBe(2);
  expect(totalSeconds(r)).toBeGreaterThan(1.6);
});

test("merging overlapping regions", () => {
  expect(mergeRegions([[3, 4], [0, 1], [0.5, 2]])).toEqual([[0, 2], [3, 4]]);
});

test("the mean of per-frame values over the frames a span touches", () => {
  const values = [0.1, 0.2, 0.9, 1.0];
  // Frames of 0.5 s: 0.6-1.6 s touches frames 1, 2 and 3.
  expect(meanOverFrames(values, 0.5, { start: 0.6, end: 1.6 })).toBeCloseTo(0.7, 9);
  expect(meanOverFrames(values, 0.5, { start: 0, end: 0.5 })).toBeCloseTo(0.1, 9);
  // Past the last frame, or an empty span: no frame, no mean.
  expect(meanOverFrames(values, 0.5, { start: 2, end: 3 })).toBeUndefined();
  expect(meanOverFrames(values, 0.5, { start: 1, end: 1 })).toBeUndefined();
});
