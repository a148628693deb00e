import { expect, test } from "bun:test";
import { quietSpeech, withQuietWords } from "../../../../src/pipeline/transcribe/quiet-speech.ts";

test("a stretch only the segmentation model heard is quiet speech; one Silero mostly covered, or a short one, is not", () => {
  // meeting_trn07's shape: Silero hears 20.25-21.13 and 23.13-23.91 and the question at the end.
  const vad: Array<[number, number]> = [[20.25, 21.13], [23.13, 23.91], [26.74, 30]];
  const heard: Array<[number, number]> = [[15.58, 16.23], [19.96, 21.35], [22.56, 25.09], [26.58, 30], [28.5, 28.8]];
  expect(quietSpeech(vad, heard)).toEqual([
    [15.58, 16.23], // none of it Silero's
    [22.56, 25.09], // Silero heard 0.78 s of 2.53 s
  ]);
  // 19.96-21.35 is 63 % Silero's and 26.58-30 95 %: the first pass recognised them. 28.5-28.8 is under 0.5 s.
  expect(quietSpeech(vad, heard, { minSeconds: 0.2, maxVadShare: 0.5 })).toContainEqual([15.58, 16.23]);
  expect(quietSpeech([], [])).toEqual([]);
});

test("words inside the quiet stretches come from the second pass, the rest from the first, in time order", () => {
  const w = (word: string, start: number, end: number) => ({ word, start, end });
  const first = [w("See.", 20.3, 20.8), w("marks.", 23.2, 23.8), w("Did", 27, 27.5)];
  const again = [w("Okay.", 15.6, 16.1), w("On", 22.6, 22.9), w("your", 22.9, 23.2), w("marks.", 23.2, 23.8), w("stray", 26.9, 27.1)];
  const words = withQuietWords(first, [[15.58, 16.23], [22.56, 25.09]], again);
  expect(words.map((x) => x.word)).toEqual(["Okay.", "See.", "On", "your", "marks.", "Did"]);
  // The first pass's "marks." inside a quiet stretch is replaced, not doubled; a second-pass word outside one is dropped.
  expect(words.filter((x) => x.word === "marks.")).toHaveLength(1);
  expect(withQuietWords(first, [], again)).toBe(first);
});
