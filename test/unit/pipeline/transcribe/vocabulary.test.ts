import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { JobOptionsSchema } from "../../../../src/jobs/schema.ts";
import { addonOptions, loadWhisperCpp, recogniseWithWhisperCpp } from "../../../../src/inference/whisper-cpp.ts";
import { ensureDerived } from "../../../../src/models/derived.ts";
import { longestUnheardSpeech } from "../../../../src/pipeline/transcribe/transcribe.ts";
import { promptArgs } from "../../../../src/pipeline/transcribe/recognise-worker.ts";
import { mergeVocabulary, normaliseVocabulary, parseVocabularyList, vocabularyPrompt } from "../../../../src/pipeline/transcribe/vocabulary.ts";
import { ROOT_DIR } from "../../../../src/config.ts";
import { join } from "node:path";

test("entries are trimmed, their spaces collapsed, blanks and repeats (any case) dropped; the first spelling wins", () => {
  expect(normaliseVocabulary(["  Kyle   Gass ", "", "kyle gass", "Rooftop Hours", "   "])).toEqual(["Kyle Gass", "Rooftop Hours"]);
  expect(parseVocabularyList("Kyle Gass, Rooftop Hours,,\nJosh Homme")).toEqual(["Kyle Gass", "Rooftop Hours", "Josh Homme"]);
});

test("the job's list and the organisation's merge, the job's entries first and its spelling winning", () => {
  expect(mergeVocabulary(["Theo Marsh", "rooftop hours"], ["Rooftop Hours", "Nora Vance"])).toEqual(["Theo Marsh", "rooftop hours", "Nora Vance"]);
  expect(mergeVocabulary(undefined, ["Nora Vance"])).toEqual(["Nora Vance"]);
  expect(mergeVocabulary(["Nora Vance"], undefined)).toEqual(["Nora Vance"]);
  expect(mergeVocabulary(undefined, undefined)).toEqual([]);
});

test("the option's limits: 100 entries of 1-60 characters, no control characters", () => {
  const ok = (v: unknown) => JobOptionsSchema.safeParse({ vocabulary: v }).success;
  expect(ok(["Rooftop Hours"])).toBe(true);
  expect(ok([])).toBe(true);
  expect(ok(Array.from({ length: 100 }, (_, i) => `Name ${i}`))).toBe(true);
  expect(ok(Array.from({ length: 101 }, (_, i) => `Name ${i}`))).toBe(false);
  expect(ok(["x".repeat(60)])).toBe(true);
  expect(ok(["x".repeat(61)])).toBe(false);
  expect(ok(["  "])).toBe(false);
  expect(ok(["Kyle\nGass"])).toBe(false);
  expect(ok("Kyle Gass")).toBe(false);
  expect(ok([42])).toBe(false);
});

test("both recognisers get the same prompt: the entries as a list, as many as fit", () => {
  expect(vocabularyPrompt([])).toBeUndefined();
  const prompt = vocabularyPrompt(["Rooftop Hours", "Nora Vance", "rooftop hours"]);
  expect(prompt).toBe("Glossary: Rooftop Hours, Nora Vance.");
  // CTranslate2: the worker's initial prompt; nothing at all without a vocabulary.
  expect(promptArgs(prompt)).toEqual(["--initial-prompt", "Glossary: Rooftop Hours, Nora Vance."]);
  expect(promptArgs(vocabularyPrompt([]))).toEqual([]);
  // whisper.cpp: the addon's `prompt`, absent without one.
  expect(addonOptions({ threads: 2, language: "en", prompt })).toMatchObject({ prompt: "Glossary: Rooftop Hours, Nora Vance.", language: "en", tokenTimestamps: true });
  expect("prompt" in addonOptions({ threads: 2, language: "en" })).toBe(false);
  // A full list stays inside Whisper's prompt (223 tokens): the first entries are kept, whole.
  const long = vocabularyPrompt(Array.from({ length: 100 }, (_, i) => `Guest Number ${i} Of The Show Whose Name Is Long`))!;
  expect(long.length).toBeLessThanOrEqual(600);
  expect(long.startsWith("Glossary: Guest Number 0 Of")).toBe(true);
  expect(long.endsWith("Long.")).toBe(true);
});

test("whisper.cpp spells the show's name from its prompt (the bundled sample's first 4 s)", async () => {
  if (!loadWhisperCpp().ok) return console.error("whisper.cpp addon not loadable here: skipped");
  const decoded = spawnSync("ffmpeg", ["-v", "error", "-i", join(ROOT_DIR, "fixtures", "sample", "rooftop-hours.m4a"), "-t", "4", "-ac", "1", "-ar", "16000", "-f", "f32le", "-"], { maxBuffer: 1 << 24 });
  const samples = new Float32Array(new Uint8Array(decoded.stdout).buffer);
  const ggml = await ensureDerived("whisper-tiny.en-ggml-q8_0");
  const prompted = (await recogniseWithWhisperCpp(ggml, samples, { threads: 2, language: "en", prompt: vocabularyPrompt(["Rooftop Hours"]) })).map((w) => w.word).join(" ");
  // Without the prompt tiny.en hears "Roofop Hours" here (the reason the vocabulary exists).
  expect(prompted).toContain("Rooftop Hours");
}, 120_000);

test("--vocabulary on process, watch and transcribe: comma-separated, the API's limits", async () => {
  const { jobOptionsFromArgs } = await import("../../../../src/cli/job-options.ts");
  expect(jobOptionsFromArgs({ vocabulary: "Kyle Gass, Rooftop Hours,, " })).toEqual({ vocabulary: ["Kyle Gass", "Rooftop Hours"] });
  expect(jobOptionsFromArgs({})).toEqual({});
  expect(typeof jobOptionsFromArgs({ vocabulary: "x".repeat(61) })).toBe("string");
  const transcribe = (await import("../../../../src/cli/transcribe.ts")).default;
  // Refused before any audio is read.
  expect(await transcribe(["/nonexistent.wav", "--vocabulary", Array.from({ length: 101 }, (_, i) => `n${i}`).join(",")])).toBe(2);
});

test("speech left without words is measured in the voice activity, a second of slack around each word", () => {
  const w = (start: number, end: number) => ({ start, end });
  // Words all through the one region: nothing unheard.
  expect(longestUnheardSpeech([w(0.5, 1), w(2, 3), w(4, 5.5)], [[0, 6]])).toBe(0);
  // A prompted run that stopped after 10 s of a 30 s call: 19 s of its voice unheard.
  expect(longestUnheardSpeech([w(1, 2), w(8, 10)], [[0, 30]])).toBe(19);
  // Silence between regions is not unheard speech; a region with no words at all is.
  expect(longestUnheardSpeech([w(1, 2), w(20, 21)], [[0, 3], [19, 22]])).toBe(0);
  expect(longestUnheardSpeech([w(1, 2)], [[0, 3], [10, 14.5]])).toBe(4.5);
  expect(longestUnheardSpeech([], [[0, 2]])).toBe(2);
});
