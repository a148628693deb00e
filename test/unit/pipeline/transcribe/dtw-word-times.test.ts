import { expect, test } from "bun:test";
import { wordTimesFromDtw, type DtwTimedWord } from "../../../../src/pipeline/transcribe/dtw-word-times.ts";
import { isSentenceEnd } from "../../../../src/pipeline/highlights/sentence-edges.ts";

/** A word as whisper.cpp gives it: heuristic times, and its tokens with their DTW times. */
const w = (word: string, start: number, end: number, tokens: Array<[string, number]>): DtwTimedWord => ({ word, start, end, aligned: tokens.map(([text, at]) => ({ text, at })) });
const times = (words: Array<{ word: string; start: number; end: number }>) => words.map((x) => [x.word, x.start, x.end]);
const spoken = (words: Array<{ word: string; start: number; end: number }>) => words.map((x) => ({ ...x, speaker: "Speaker 1" }));

test("a word runs from the token before it to its last spoken token; the full stop's time becomes the pause after it", () => {
  // Heuristic times tile the audio ("it." runs on to "So"); the DTW times say the full stop was emitted
  // only when the next sentence began.
  const words = [
    w("Look", 0.1, 0.4, [[" Look", 0.4]]),
    w("at", 0.4, 0.6, [[" at", 0.6]]),
    w("it.", 0.6, 1.5, [[" it", 0.8], [".", 1.5]]),
    w("So", 1.5, 1.7, [[" So", 1.7]]),
    w("there", 1.7, 2.0, [[" there", 2.0]]),
  ];
  expect(isSentenceEnd(spoken(words), 2)).toBe(false);
  const timed = wordTimesFromDtw(words);
  expect(times(timed)).toEqual([
    ["Look", 0.1, 0.4],
    ["at", 0.4, 0.6],
    ["it.", 0.6, 0.8],
    ["So", 1.5, 1.7],
    ["there", 1.7, 2.0],
  ]);
  expect(isSentenceEnd(spoken(timed), 2)).toBe(true);
});

test("a word after a sentence end that the alignment stretched back over the pause starts at most twice the median before its end", () => {
  const sentence = (stop: string) => [
    w("Look", 0.1, 0.4, [[" Look", 0.4]]),
    w("at", 0.4, 0.6, [[" at", 0.6]]),
    w(`it${stop}`, 0.6, 1.5, [[" it", 0.8], [stop, 1.5]]),
    w("So", 1.5, 2.4, [[" So", 2.4]]),
    w("there", 2.4, 2.7, [[" there", 2.7]]),
  ];
  // Unit durations 0.3, 0.2, 0.2, 0.7 (the stop), 0.9, 0.3: median 0.3, so 0.6 at most at a sentence edge.
  expect(times(wordTimesFromDtw(sentence("."))).slice(2, 4)).toEqual([
    ["it.", 0.6, 0.8],
    ["So", 1.8, 2.4],
  ]);
  // After a comma the same word keeps its start: the rule is faster-whisper's, for sentence ends only.
  expect(times(wordTimesFromDtw(sentence(","))).slice(2, 4)).toEqual([
    ["it,", 0.6, 0.8],
    ["So", 1.5, 2.4],
  ]);
});

test("the first word has no token before it: the heuristic's start, held to twice the median before its end", () => {
  const words = [w("Well", 0, 1.2, [[" Well", 1.2]]), w("yes", 1.2, 1.4, [[" yes", 1.4]]), w("no", 1.4, 1.6, [[" no", 1.6]]), w("maybe", 1.6, 1.9, [[" maybe", 1.9]])];
  // Durations 1.2, 0.2, 0.2, 0.3: median 0.25, so the first word lasts 0.5 s at most.
  expect(times(wordTimesFromDtw(words))[0]).toEqual(["Well", 0.7, 1.2]);
  // A short first word keeps the heuristic's start.
  expect(times(wordTimesFromDtw([w("Hi", 0.9, 1.0, [[" Hi", 1.2]]), ...words.slice(1)]))[0]).toEqual(["Hi", 0.9, 1.2]);
});

test("words without DTW times keep theirs; the next aligned word starts after them; other fields are kept and `aligned` dropped", () => {
  const words: Array<DtwTimedWord & { p?: number }> = [
    { ...w("one", 0.2, 0.45, [[" one", 0.5]]), p: 0.9 },
    { word: "two", start: 1.0, end: 1.3, p: 0.5 },
    w("three", 1.25, 1.7, [[" three", 1.8]]),
  ];
  const timed = wordTimesFromDtw(words);
  expect(timed).toEqual([
    { word: "one", start: 0.2, end: 0.5, p: 0.9 },
    { word: "two", start: 1.0, end: 1.3, p: 0.5 },
    { word: "three", start: 1.3, end: 1.8 },
  ]);
  expect(wordTimesFromDtw([{ word: "two", start: 1.0, end: 1.3 }])).toEqual([{ word: "two", start: 1.0, end: 1.3 }]);
});

test("leading punctuation is timed apart from the word it opens, as faster-whisper merges it after timing", () => {
  const timed = wordTimesFromDtw([w("said", 0.1, 0.5, [[" said", 0.5]]), w('"Go', 0.5, 1.0, [[' "', 0.7], ["Go", 1.0]]), w("home", 1.0, 1.3, [[" home", 1.3]])]);
  expect(times(timed)).toEqual([
    ["said", 0.1, 0.5],
    ['"Go', 0.7, 1.0],
    ["home", 1.0, 1.3],
  ]);
});

test("times never run backwards: a token aligned before the one ahead of it gives a word of no length, not a negative one", () => {
  const timed = wordTimesFromDtw([w("a", 0, 0.3, [[" a", 0.4]]), w("b", 0.3, 0.6, [[" b", 0.35]]), w("c", 0.6, 0.9, [[" c", 0.9]])]);
  for (let i = 0; i < timed.length; i++) {
    expect(timed[i]!.end).toBeGreaterThanOrEqual(timed[i]!.start);
    if (i) expect(timed[i]!.start).toBeGreaterThanOrEqual(timed[i - 1]!.end);
  }
  expect(times(timed)[1]).toEqual(["b", 0.4, 0.4]);
});
