import { expect, test } from "bun:test";
import { doubtfulStretches, findDoubtfulStretches } from "../../../../src/pipeline/transcribe/confidence.ts";

const at = (ps: Array<number | undefined>, gapAfter = -1) =>
  ps.map((p, i) => ({ word: `w${i}`, start: i + (gapAfter >= 0 && i > gapAfter ? 10 : 0), end: i + 0.8 + (gapAfter >= 0 && i > gapAfter ? 10 : 0), ...(p === undefined ? {} : { p }) }));

test("five words in a row under 0.5 on average make a stretch; sure words around it stay out", () => {
  const ps = [0.99, 0.98, 0.97, 0.99, 0.98, 0.3, 0.2, 0.4, 0.35, 0.3, 0.99, 0.98, 0.97, 0.99, 0.99, 0.98];
  const found = findDoubtfulStretches(at(ps));
  expect(found).toHaveLength(1);
  expect(found[0]).toMatchObject({ start: 5, end: 9.8, text: "w5 w6 w7 w8 w9" });
  expect(found[0]!.meanProbability).toBeCloseTo(0.31, 2);
  expect(doubtfulStretches(at(ps))).toEqual(['the recogniser was least sure of 5.0-9.8 s ("w5 w6 w7 w8 w9", mean word probability 0.31); check these words']);
});

test("one doubtful word among sure ones is not a stretch; nor are words without a probability", () => {
  expect(findDoubtfulStretches(at([0.99, 0.98, 0.05, 0.97, 0.99, 0.98, 0.99]))).toEqual([]);
  expect(findDoubtfulStretches(at([undefined, undefined, undefined, undefined, undefined, undefined]))).toEqual([]);
  expect(findDoubtfulStretches([])).toEqual([]);
});

test("a long pause splits stretches; only the three least sure are named, in time order", () => {
  expect(findDoubtfulStretches(at([0.3, 0.3, 0.3, 0.3, 0.3, 0.3], 2))).toEqual([]);
  const runs = [0.45, 0.2, 0.4, 0.1].flatMap((p) => [...Array(5).fill(p), ...Array(6).fill(0.99)]);
  const found = findDoubtfulStretches(at(runs));
  expect(found.map((s) => s.start)).toEqual([11, 22, 33]);
});

test("a short transcript is judged as a whole", () => {
  expect(findDoubtfulStretches(at([0.2, 0.3]))).toHaveLength(1);
});
