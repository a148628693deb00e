import { describe, expect, test } from "bun:test";
import { pcmSource } from "../../../../src/media/wav.ts";
import { loadWhisperCpp } from "../../../../src/inference/whisper-cpp.ts";
import { joinRegions, wordsToOriginal, wordTimesSetting } from "../../../../src/pipeline/transcribe/recognise-in-process.ts";
import { asrEngine, chooseAsrEngine, ggmlModelFor, inProcessModelFor } from "../../../../src/pipeline/transcribe/asr-engine.ts";

test("regions are joined and words mapped back by their midpoint, never across the cut-out silence", () => {
  const samples = Float32Array.from({ length: 10 * 100 }, (_, i) => i);
  const { samples: joined, spans } = joinRegions(pcmSource({ sampleRate: 100, samples }), [[1, 2], [5, 6.5], [9.5, 20]]);
  expect(Array.from(joined.subarray(0, 2))).toEqual([100, 101]);
  expect(Array.from(joined.subarray(100, 102))).toEqual([500, 501]);
  expect(joined.length).toBe(100 + 150 + 50);
  expect(spans).toEqual([
    { joinedStart: 0, originalStart: 1, length: 1 },
    { joinedStart: 1, originalStart: 5, length: 1.5 },
    { joinedStart: 2.5, originalStart: 9.5, length: 0.5 },
  ]);
  const words = wordsToOriginal(
    [
      { word: "a", start: 0.2, end: 0.6 },
      { word: "spans", start: 0.8, end: 1.1 }, // mostly in the first piece: ends at its edge
      { word: "opens", start: 0.9, end: 1.4 }, // starts early, mostly in the second: opens it, after the silence
      { word: "seam", start: 1, end: 1.3 }, // exactly on a seam: belongs to the piece it starts
      { word: "last", start: 2.6, end: 3.5 },
    ],
    spans,
  );
  expect(words).toEqual([
    { word: "a", start: 1.2, end: 1.6 },
    { word: "spans", start: 1.8, end: 2 },
    { word: "opens", start: 5, end: 5.4 },
    { word: "seam", start: 5, end: 5.3 },
    { word: "last", start: 9.6, end: 10 },
  ]);
});

test("engine setting and the converted model are explicit", () => {
  expect(asrEngine({})).toBe("auto");
  expect(asrEngine({ CLIPYARD_ASR_ENGINE: "ctranslate2" })).toBe("ctranslate2");
  expect(asrEngine({ CLIPYARD_ASR_ENGINE: "whisper-cpp" })).toBe("whisper-cpp");
  expect(() => asrEngine({ CLIPYARD_ASR_ENGINE: "vosk" })).toThrow("CLIPYARD_ASR_ENGINE must be auto, ctranslate2 or whisper-cpp");
  expect(ggmlModelFor("whisper-tiny.en")).toBe("whisper-tiny.en-ggml-q8_0");
  expect(ggmlModelFor("whisper-base")).toBe("whisper-base-ggml-q8_0");
  expect(inProcessModelFor("whisper-small")).toBeUndefined();
  expect(() => ggmlModelFor("whisper-small")).toThrow("whisper.cpp has no converted model for 'whisper-small'");
});

describe("auto: CTranslate2 when the speech runtime is installed, else whisper.cpp in-process", () => {
  const probe = (runtime: boolean, cpp: boolean) => ({ runtimeInstalled: () => runtime, inProcess: () => (cpp ? { ok: true } : { ok: false, reason: "addon missing" }) });
  test("the runtime is there: CTranslate2", () => {
    expect(chooseAsrEngine("whisper-tiny.en", {}, probe(true, true))).toEqual({ engine: "ctranslate2", reason: "the speech runtime is installed" });
  });
  test("no runtime: whisper.cpp, so the single executable needs no Python", () => {
    expect(chooseAsrEngine("whisper-tiny.en", {}, probe(false, true)).engine).toBe("whisper-cpp");
  });
  test("no runtime and nothing in-process for the model or the machine: CTranslate2, whose error says how to install it", () => {
    expect(chooseAsrEngine("whisper-small", {}, probe(false, true))).toEqual({ engine: "ctranslate2", reason: "no speech runtime, and whisper.cpp has no converted whisper-small" });
    expect(chooseAsrEngine("whisper-tiny.en", {}, probe(false, false)).reason).toBe("no speech runtime, and whisper.cpp does not load: addon missing");
  });
  test("an explicit setting wins either way", () => {
    expect(chooseAsrEngine("whisper-tiny.en", { CLIPYARD_ASR_ENGINE: "whisper-cpp" }, probe(true, true)).engine).toBe("whisper-cpp");
    expect(chooseAsrEngine("whisper-tiny.en", { CLIPYARD_ASR_ENGINE: "ctranslate2" }, probe(false, true)).engine).toBe("ctranslate2");
  });
  test("the real probe follows CLIPYARD_SPEECH_PYTHON", () => {
    expect(chooseAsrEngine("whisper-tiny.en", { CLIPYARD_SPEECH_PYTHON: "/nonexistent/python" }).engine).toBe(loadWhisperCpp().ok ? "whisper-cpp" : "ctranslate2");
    expect(chooseAsrEngine("whisper-tiny.en", { CLIPYARD_SPEECH_PYTHON: process.execPath }).engine).toBe("ctranslate2");
  });
});

test("CLIPYARD_WHISPER_CPP_WORD_TIMES is dtw (the default) or heuristic", () => {
  expect(wordTimesSetting({})).toBe("dtw");
  expect(wordTimesSetting({ CLIPYARD_WHISPER_CPP_WORD_TIMES: "heuristic" })).toBe("heuristic");
  expect(() => wordTimesSetting({ CLIPYARD_WHISPER_CPP_WORD_TIMES: "vad" })).toThrow(/dtw or heuristic/);
});
