/**
 * The vocabulary on a real recording (the phone call): names spelled as listed, and a prompt never
 * costs speech. Whisper sometimes skips most of a window when prompted (tiny.en did with several
 * lists on this call); then the words come from a run without the prompt.
 */
import { expect } from "bun:test";
import { join } from "node:path";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { SHARED_MEDIA, testShared } from "../helpers/shared.ts";

const CALL = join(SHARED_MEDIA, "two_speakers_call.wav");
const SLOW = 180_000;

testShared("listed spellings of the callers' names replace what was heard, all through the call", async () => {
  const t = await transcribeFile(CALL, { diarize: false, vocabulary: ["Dianne", "Sheilah"] });
  const said = t.words.map((w) => w.word).join(" ");
  expect(said).toContain("This is Dianne in New Jersey");
  expect(said).toMatch(/I'm Sheilah\b/);
  expect(said).not.toMatch(/\b(Diane|Sheila)\b/);
  // The rest of the call is still there.
  expect(said).toContain("Yankee");
}, SLOW);

testShared("a vocabulary never costs the transcript speech", async () => {
  for (const vocabulary of [["Yankee"], ["Kyle Gass", "Josh Homme"]]) {
    const t = await transcribeFile(CALL, { diarize: false, vocabulary });
    const said = t.words.map((w) => w.word).join(" ");
    const fellBack = (t.warnings ?? []).some((w) => w.includes("when prompted with the vocabulary"));
    console.error(`${vocabulary.join(", ")}: ${t.words.length} words${fellBack ? ", from the run without the prompt" : ""}`);
    for (const phrase of ["Chicago", "Yankee", "New Jersey now"]) expect(said).toContain(phrase);
  }
}, SLOW);

testShared("whisper.cpp in-process runs with a vocabulary (its prompt: test/unit/pipeline/transcribe/vocabulary.test.ts); its words carry probabilities where the addon built from source runs, none with the prebuilt one", async () => {
  const { loadWhisperCpp } = await import("../../src/inference/whisper-cpp.ts");
  const loaded = loadWhisperCpp();
  if (!loaded.ok) return console.error("whisper.cpp addon not loadable here: skipped");
  const before = process.env.CLIPYARD_ASR_ENGINE;
  process.env.CLIPYARD_ASR_ENGINE = "whisper-cpp";
  try {
    const t = await transcribeFile(join(SHARED_MEDIA, "jfk.wav"), { diarize: false, vocabulary: ["Americans"] });
    expect(t.engine).toStartWith("whisper.cpp");
    const said = t.words.map((w) => w.word).join(" ");
    expect(said).toContain("Americans");
    expect(said).toContain("your country");
    if (loaded.probabilities) for (const w of t.words) expect(w.p).toBeWithin(0, 1.000001);
    else expect(t.words.every((w) => w.p === undefined)).toBe(true);
    expect((t.warnings ?? []).filter((w) => w.includes("least sure"))).toEqual([]);
  } finally {
    if (before === undefined) delete process.env.CLIPYARD_ASR_ENGINE;
    else process.env.CLIPYARD_ASR_ENGINE = before;
  }
}, SLOW);
