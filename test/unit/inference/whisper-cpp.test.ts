import { expect, test } from "bun:test";
import { builtAddonParams, builtAddonThreads, segmentsFromBuilt, whisperCppAddonSetting, wordProbability, wordsFromTokenSegments } from "../../../src/inference/whisper-cpp.ts";

test("a word's probability is the mean of its tokens', punctuation left out, rounded to 3 places", () => {
  expect(wordProbability([{ text: " Jer", p: 0.9 }, { text: "sey", p: 0.6 }])).toBe(0.75);
  // faster-whisper joins the full stop to the word after taking the word's probability.
  expect(wordProbability([{ text: " Jer", p: 0.9 }, { text: "sey", p: 0.6 }, { text: ".", p: 0.1 }])).toBe(0.75);
  expect(wordProbability([{ text: " country", p: 0.98765 }])).toBe(0.988);
  // A word that is punctuation alone keeps its own probability rather than none.
  expect(wordProbability([{ text: " -", p: 0.4 }, { text: "-", p: 0.2 }])).toBeCloseTo(0.3, 10);
  expect(wordProbability([])).toBeUndefined();
});

test("token segments with probabilities join into words that carry p; without tokens there is no p", () => {
  const words = wordsFromTokenSegments([
    { text: "", t0: 0, t1: 0, tokens: [] },
    { text: " Hello", t0: 0, t1: 400, tokens: [{ text: " Hello", p: 0.92 }] },
    { text: " Jer", t0: 700, t1: 900, tokens: [{ text: " Jer", p: 0.3 }] },
    { text: "sey", t0: 900, t1: 1100, tokens: [{ text: "sey", p: 0.5 }] },
    { text: ".", t0: 1100, t1: 1200, tokens: [{ text: ".", p: 0.05 }] },
  ]);
  expect(words).toEqual([
    { word: "Hello", start: 0, end: 0.4, p: 0.92 },
    { word: "Jersey.", start: 0.7, end: 1.2, p: 0.4 },
  ]);
  expect(wordsFromTokenSegments([{ text: " Hello", t0: 0, t1: 400 }])).toEqual([{ word: "Hello", start: 0, end: 0.4 }]);
});

test("the built binding's segments: special tokens are dropped, times are milliseconds", () => {
  const segments = segmentsFromBuilt([
    {
      from: 0,
      to: 480,
      text: " And",
      lang: "en",
      tokens: [
        { text: "[_BEG_]", id: 50363, p: 0.99 },
        { text: " And", id: 843, p: 0.61, from: 0, to: 480 },
      ],
    },
    { from: 480, to: 900, text: " so", tokens: [{ text: " so", id: 523, p: 0.87 }, { text: "[_TT_45]", id: 50408, p: 0.2 }] },
  ]);
  expect(segments).toEqual([
    { text: " And", t0: 0, t1: 480, tokens: [{ text: " And", p: 0.61 }] },
    { text: " so", t0: 480, t1: 900, tokens: [{ text: " so", p: 0.87 }] },
  ]);
  expect(wordsFromTokenSegments(segments).map((w) => w.p)).toEqual([0.61, 0.87]);
});

test("the built binding decodes as the prebuilt addon is asked to: greedy, one token per segment, token times, the prompt if any", () => {
  expect(builtAddonParams({ threads: 2, language: "auto", prompt: "Glossary: Kyle Gass." })).toEqual({
    strategy: 0,
    n_threads: 2,
    language: "auto",
    token_timestamps: true,
    max_len: 1,
    temperature: 0,
    print_progress: false,
    format: "detail",
    initial_prompt: "Glossary: Kyle Gass.",
  });
  expect("initial_prompt" in builtAddonParams({ threads: 2, language: "en" })).toBe(false);
});

test("CLIPYARD_WHISPER_CPP_ADDON is auto, built or prebuilt", () => {
  expect(whisperCppAddonSetting({})).toBe("auto");
  expect(whisperCppAddonSetting({ CLIPYARD_WHISPER_CPP_ADDON: "prebuilt" })).toBe("prebuilt");
  expect(() => whisperCppAddonSetting({ CLIPYARD_WHISPER_CPP_ADDON: "native" })).toThrow(/auto, built or prebuilt/);
});

test("the built addon runs on half the cores, at least one, never more than asked for", () => {
  expect(builtAddonThreads(2, 2)).toBe(1);
  expect(builtAddonThreads(16, 16)).toBe(8);
  expect(builtAddonThreads(2, 16)).toBe(2);
  expect(builtAddonThreads(4, 1)).toBe(1);
});
