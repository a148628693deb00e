import { expect, test } from "bun:test";
import { trimToVoice } from "../../../../src/pipeline/transcribe/word-edges.ts";
import { isSentenceEnd } from "../../../../src/pipeline/highlights/sentence-edges.ts";

// 0.1 s frames: speech 0-1.0 s, silence 1.0-1.4 s, speech 1.4-2.0 s, silence after.
const probs = [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.1, 0.05, 0.2, 0.3, 0.9, 0.9, 0.9, 0.9, 0.9, 0.6, 0.1, 0.1];
const vad = { probs, frameSeconds: 0.1 };

test("a word stretched over the pause after it ends where the voice stops, so the pause shows", () => {
  const words = [
    { word: "stop.", start: 0.5, end: 1.4, speaker: "Speaker 1" },
    { word: "Then", start: 1.4, end: 1.8, speaker: "Speaker 1" },
  ];
  // As whisper.cpp times them there is no pause, so the full stop is no sentence end.
  expect(isSentenceEnd(words, 0)).toBe(false);
  const trimmed = trimToVoice(words, vad);
  expect(trimmed).toEqual([
    { word: "stop.", start: 0.5, end: 1, speaker: "Speaker 1" },
    { word: "Then", start: 1.4, end: 1.8, speaker: "Speaker 1" },
  ]);
  expect(isSentenceEnd(trimmed, 0)).toBe(true);
});

test("a word that starts early in the silence before it starts where the voice does", () => {
  expect(trimToVoice([{ word: "Then", start: 1.05, end: 1.7 }], vad)).toEqual([{ word: "Then", start: 1.4, end: 1.7 }]);
});

test("words inside speech keep their times: only edges heard as silence are cut", () => {
  const words = [
    { word: "a", start: 0.1, end: 0.45 },
    { word: "b", start: 0.45, end: 0.9 },
    { word: "c", start: 1.5, end: 1.95 },
  ];
  expect(trimToVoice(words, vad)).toEqual(words);
});

test("a word the VAD hears nothing of keeps its times (quiet speech is still speech)", () => {
  const quiet = [{ word: "hm", start: 1.05, end: 1.3 }];
  expect(trimToVoice(quiet, vad)).toEqual(quiet);
});

test("silence inside a word is kept: it is only trimmed from the edges", () => {
  expect(trimToVoice([{ word: "long", start: 0.8, end: 1.8 }], vad)).toEqual([{ word: "long", start: 0.8, end: 1.8 }]);
});

test("a word past the last frame is trimmed to the last frame heard as speech", () => {
  expect(trimToVoice([{ word: "end.", start: 1.7, end: 2.5 }], vad)).toEqual([{ word: "end.", start: 1.7, end: 2 }]);
});
