import { expect, test } from "bun:test";
import { formatTranscript, segmentsFromWords } from "../../../../src/pipeline/transcribe/segments.ts";

test("segments split on speaker change and long pauses", () => {
  const w = (word: string, start: number, speaker: string) => ({ word, start, end: start + 0.3, speaker });
  const segs = segmentsFromWords([w("Hello", 0, "Speaker 1"), w("there.", 0.4, "Speaker 1"), w("Hi!", 1, "Speaker 2"), w("So", 5, "Speaker 2")]);
  expect(segs.map((s) => [s.speaker, s.text, s.start])).toEqual([
    ["Speaker 1", "Hello there.", 0],
    ["Speaker 2", "Hi!", 1],
    ["Speaker 2", "So", 5],
  ]);
  expect(formatTranscript(segs, { "Speaker 2": "Sheila" }).split("\n")[1]).toBe("[0:01.0-0:01.3] Sheila (Speaker 2): Hi!");
});

test("segment text joins whisper's sub-word pieces and clitics as written", () => {
  const w = (word: string, start: number) => ({ word, start, end: start + 0.3, speaker: "Speaker 1" });
  const segs = segmentsFromWords([w("my", 0), w("co", 0.4), w("-host", 0.6), w("has", 1), w("60", 1.3), w(",000", 1.5), w("bees", 1.8), w("and", 2.1), w("does", 2.4), w("n't", 2.6), w("mind.", 2.8)]);
  expect(segs.map((s) => s.text)).toEqual(["my co-host has 60,000 bees and doesn't mind."]);
});
