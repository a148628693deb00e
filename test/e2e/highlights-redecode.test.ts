/**
 * Weak punctuation re-decoded with the bigger model, for real: the espeak-ng sample episode's audio
 * (test/fixtures/audio; the demo's own sample has moved on, the transcript fixture is of this one), the
 * speech runtime and whisper-base. The recogniser's punctuation is removed from one answer of the
 * real whisper-tiny transcript (as a weak recogniser leaves it); the bigger model must give that
 * stretch evidenced sentence ends again, touching nothing outside it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { selectClips } from "../../src/pipeline/highlights/select-clips.ts";
import { redecodeWindows, strengthenPunctuation, weakWindows } from "../../src/pipeline/highlights/redecode.ts";
import { splitSentences } from "../../src/pipeline/highlights/sentences.ts";
import type { Transcript } from "../../src/pipeline/types.ts";
import { asrTranscript } from "../helpers/asr-fixture.ts";

let dir: string;
let wav: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-redecode-"));
  wav = join(dir, "speech.wav");
  await decodeToSpeechWav(join(import.meta.dir, "../fixtures/audio/rooftop-hours-espeak.m4a"), wav);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const real = asrTranscript("rooftop-hours");
/** Theo's answer at 89-113 s with every full stop, question mark and comma taken off. */
const weak: Transcript = {
  ...real,
  words: real.words.map((w) => (w.start >= 89 && w.end <= 112.5 ? { ...w, word: w.word.replace(/[.?!,]+$/, "") } : w)),
};

test("the real transcript has no weak stretch; the unpunctuated answer is one", () => {
  expect(weakWindows(real)).toEqual([]);
  const windows = weakWindows(weak);
  expect(windows).toHaveLength(1);
  expect(windows[0]![0]).toBeCloseTo(89.1, 1);
  expect(windows[0]![1]).toBeGreaterThan(110);
});

test("whisper-base re-decodes only that window and gives it evidenced sentence ends", async () => {
  const r = await redecodeWindows(weak, wav, weakWindows(weak));
  expect(r.replaced).toHaveLength(1);
  const [a, b] = r.replaced[0]!;
  const inWindow = (s: { start: number; end: number }) => s.start >= a && s.end <= b;
  const ends = splitSentences(r.transcript.words).filter((s) => inWindow(s) && s.complete);
  expect(ends.length).toBeGreaterThanOrEqual(3);
  expect(splitSentences(weak.words).filter((s) => inWindow(s) && s.complete).length).toBe(0);
  // Outside the window every word is the original one, in order; the text inside is the same passage.
  const outside = (ws: Transcript["words"]) => ws.filter((w) => w.end <= a || w.start >= b).map((w) => `${w.word}@${w.start}`);
  expect(outside(r.transcript.words)).toEqual(outside(weak.words));
  const inside = r.transcript.words.filter((w) => w.start >= a && w.end <= b).map((w) => w.word.toLowerCase()).join(" ");
  expect(inside).toContain("colony");
  expect(inside).toContain("entrance");
  expect(r.transcript.segments.length).toBeGreaterThan(0);
  // Clips may end inside the stretch again.
  const clips = selectClips(r.transcript, { count: 5 });
  expect(clips.length).toBeGreaterThan(0);
}, 180_000);

test("strengthenPunctuation leaves a transcript without weak stretches alone, and says what it re-decoded", async () => {
  const same = await strengthenPunctuation(real, wav);
  expect(same.transcript).toBe(real);
  expect(same.engine).toBeUndefined();
  const fixed = await strengthenPunctuation(weak, wav);
  expect(fixed.engine).toMatch(/^whisper-base re-decoded 1 weak-punctuation window\(s\), \d+ s; 1 replaced \((faster-whisper\/CTranslate2 in the speech runtime|whisper.cpp whisper-base-ggml-q8_0 in-process)\)$/);
  expect(fixed.warning).toBeUndefined();
}, 180_000);
