import { expect, test } from "bun:test";
import { alignmentHeadsFor, builtAddonParams, builtAddonThreads, segmentsFromBuilt, whisperCppAddonSetting, wordProbability, wordsFromTokenSegments } from "../../../src/inference/whisper-cpp.ts";

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

test("DTW token times: milliseconds become seconds, a token without one (-1 or absent) has none, and a word carries them only when every token of it has one", () => {
  const segments = segmentsFromBuilt([
    { from: 0, to: 0, text: "", tokens: [{ text: "[_BEG_]", id: 50363, p: 0.99, dtw: -1 }] },
    { from: 0, to: 400, text: " Jer", tokens: [{ text: " Jer", id: 1, p: 0.9, dtw: 520 }] },
    { from: 400, to: 690, text: "sey", tokens: [{ text: "sey", id: 2, p: 0.6, dtw: 820 }] },
    { from: 690, to: 900, text: ".", tokens: [{ text: ".", id: 13, p: 0.5, dtw: 1500 }] },
    { from: 900, to: 1200, text: " Then", tokens: [{ text: " Then", id: 3, p: 0.8, dtw: -1 }] },
    { from: 1200, to: 1400, text: " go", tokens: [{ text: " go", id: 4, p: 0.8 }] },
  ]);
  expect(segments[1]!.tokens).toEqual([{ text: " Jer", p: 0.9, dtw: 0.52 }]);
  expect(segments[4]!.tokens).toEqual([{ text: " Then", p: 0.8 }]);
  const words = wordsFromTokenSegments(segments);
  expect(words[0]).toEqual({ word: "Jersey.", start: 0, end: 0.9, p: 0.75, aligned: [{ text: " Jer", at: 0.52 }, { text: "sey", at: 0.82 }, { text: ".", at: 1.5 }] });
  expect(words[1]!.aligned).toBeUndefined();
  expect(words[2]!.aligned).toBeUndefined();
});

test("alignment heads: whisper.h's preset for each Whisper model the project knows, none for large-v3-turbo", () => {
  expect(alignmentHeadsFor("whisper-tiny.en")).toBe(3); // WHISPER_AHEADS_TINY_EN
  expect(alignmentHeadsFor("whisper-base")).toBe(6); // WHISPER_AHEADS_BASE
  expect(alignmentHeadsFor("whisper-small")).toBe(8);
  expect(alignmentHeadsFor("whisper-medium")).toBe(10);
  expect(alignmentHeadsFor("whisper-large-v3")).toBe(13); // WHISPER_AHEADS_LARGE_V3
  expect(alignmentHeadsFor("whisper-large-v3-turbo")).toBeUndefined();
  expect(alignmentHeadsFor("whisper-base-ggml-q8_0")).toBeUndefined();
});
