/**
 * Re-decoding weak punctuation with no Python runtime (issue #33): the speech runtime is pointed at
 * a Python that does not exist, so the engine choice is the one the single executable makes, and the
 * bigger model runs through whisper.cpp in this process on its ggml file converted from the verified
 * weights. On a real recording (the shared phone call) with the recogniser's punctuation and speaker
 * changes taken off its real whisper-tiny.en transcript, the re-decoded stretch must get evidenced
 * sentence ends and new words, and the job-level entry point must say what ran and warn of nothing.
 */
import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { strengthenPunctuation, weakWindows } from "../../src/pipeline/highlights/redecode.ts";
import { splitSentences } from "../../src/pipeline/highlights/sentences.ts";
import { chooseAsrEngine } from "../../src/pipeline/transcribe/asr-engine.ts";
import type { Transcript } from "../../src/pipeline/types.ts";
import { asrTranscript } from "../helpers/asr-fixture.ts";
import { beforeAllShared, sharedFile, testShared } from "../helpers/shared.ts";

const dir = mkdtempSync(join(tmpdir(), "clipyard-redecode-cpp-"));
const wav = join(dir, "speech.wav");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// No speech runtime: the Python it would run is not there (and the engine setting is left to auto).
// Restored afterwards: other test files may run later in this same process.
const saved = { python: process.env.CLIPYARD_SPEECH_PYTHON, engine: process.env.CLIPYARD_ASR_ENGINE };
beforeAllShared(async () => {
  process.env.CLIPYARD_SPEECH_PYTHON = join(dir, "no-such-python");
  delete process.env.CLIPYARD_ASR_ENGINE;
  await decodeToSpeechWav(sharedFile("two_speakers_call.wav"), wav);
});
afterAll(() => {
  for (const [key, value] of [["CLIPYARD_SPEECH_PYTHON", saved.python], ["CLIPYARD_ASR_ENGINE", saved.engine]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const real = asrTranscript("two_speakers_call");
/** The call as a weak recogniser and no diarizer leave it: one speaker, no punctuation at all. */
const weak: Transcript = { ...real, words: real.words.map((w) => ({ ...w, word: w.word.replace(/[.?!,]+$/, ""), speaker: "Speaker 1" })) };
const text = (t: Transcript) => t.words.map((w) => w.word).join(" ");

testShared("with no speech runtime, whisper-base re-decodes the weak stretch in-process, gives it sentence ends and warns of nothing", async () => {
  expect(chooseAsrEngine("whisper-base").engine).toBe("whisper-cpp");
  const windows = weakWindows(weak);
  expect(windows).toHaveLength(1);
  expect(windows[0]![1] - windows[0]![0]).toBeGreaterThan(20);
  expect(splitSentences(weak.words).filter((s) => s.complete)).toHaveLength(0);

  // The job's entry point (the highlight stage calls it): one re-decode, through whisper.cpp.
  const fixed = await strengthenPunctuation(weak, wav);
  expect(fixed.warning).toBeUndefined();
  expect(fixed.engine).toMatch(/^whisper-base re-decoded 1 weak-punctuation window\(s\), \d+ s; 1 replaced \(whisper\.cpp whisper-base-ggml-q8_0 in-process\)$/);
  const t = fixed.transcript;
  expect(splitSentences(t.words).filter((s) => s.complete).length).toBeGreaterThanOrEqual(3);
  // The words are the bigger model's own, on the recording's timeline, not the old ones repunctuated.
  expect(text(t)).not.toBe(text(weak));
  const heard = text(t).toLowerCase();
  for (const phrase of ["diane", "new jersey", "chicago", "yankee"]) expect(heard).toContain(phrase);
  for (const w of t.words) {
    expect(w.start).toBeGreaterThanOrEqual(6);
    expect(w.end).toBeLessThanOrEqual(30.1);
  }
  expect(t.segments.length).toBeGreaterThan(0);
}, 300_000);
