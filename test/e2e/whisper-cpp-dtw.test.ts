/**
 * DTW token times from whisper.cpp built from source (scripts/setup/whisper-cpp.patch turns them on
 * with the model's alignment heads and returns each token's t_dtw), and the word times made from them
 * (dtw-word-times.ts) on real recordings: in order, inside the audio, and with the pauses the
 * token-timestamp heuristic leaves out, as the CTranslate2 engine measures them.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuCannotRun, findBuiltAddon } from "../../src/inference/whisper-cpp-built.ts";
import { alignmentHeadsFor, loadWhisperCpp, recogniseWithWhisperCpp, type WhisperCppWord } from "../../src/inference/whisper-cpp.ts";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { readWav } from "../../src/media/wav.ts";
import { ensureDerived } from "../../src/models/derived.ts";
import { wordTimesFromDtw } from "../../src/pipeline/transcribe/dtw-word-times.ts";
import { sentenceEndEvidence } from "../../src/pipeline/highlights/sentence-edges.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { describeShared, SHARED_MEDIA } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-wcpp-dtw-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const found = findBuiltAddon();
const unusable = found.ok ? cpuCannotRun(found.info) : found.reason;
if (unusable) console.warn(`test/e2e/whisper-cpp-dtw.test.ts: skipped: ${unusable}`);

async function speech(name: string): Promise<Float32Array> {
  const wav = join(work, `${name}.wav`);
  await decodeToSpeechWav(join(SHARED_MEDIA, `${name}.wav`), wav);
  return readWav(wav).samples;
}

/** Every token aligned, the times never going back, and all inside the audio. */
function expectAlignedInside(words: WhisperCppWord[], seconds: number): void {
  let last = 0;
  for (const w of words) {
    expect(w.aligned?.length).toBeGreaterThan(0);
    for (const t of w.aligned!) {
      expect(t.at).toBeGreaterThanOrEqual(last);
      expect(t.at).toBeLessThanOrEqual(seconds);
      last = t.at;
    }
  }
}

const gapAfter = (words: Array<{ word: string; start: number; end: number }>, word: string, next: string) => {
  const i = words.findIndex((w, k) => w.word === word && words[k + 1]?.word === next);
  expect(i).toBeGreaterThanOrEqual(0);
  return words[i + 1]!.start - words[i]!.end;
};

describeShared("whisper.cpp built from source: DTW token times", () => {
  test.skipIf(Boolean(unusable))("jfk with whisper-base: every token aligned in order inside the audio, and the pause in 'for you, ask what' shows", async () => {
    expect(loadWhisperCpp()).toMatchObject({ ok: true, kind: "built" });
    const samples = await speech("jfk");
    const model = await ensureDerived("whisper-base-ggml-q8_0");
    const words = await recogniseWithWhisperCpp(model, samples, { threads: 2, language: "en", alignmentHeads: alignmentHeadsFor("whisper-base") });
    expect(words.map((w) => w.word).join(" ")).toContain("ask not what your country can do for you");
    expectAlignedInside(words, samples.length / 16_000);
    // The heuristic's words tile the audio: no pause after the comma.
    expect(gapAfter(words, "you,", "ask")).toBeLessThan(0.1);
    // Aligned, the comma takes up the pause, and dropping its time leaves it between the words
    // (measured 0.20 s; CTranslate2 0.34 s).
    const timed = wordTimesFromDtw(words);
    expect(gapAfter(timed, "you,", "ask")).toBeGreaterThanOrEqual(0.1);
    for (let i = 1; i < timed.length; i++) expect(timed[i]!.start).toBeGreaterThanOrEqual(timed[i - 1]!.end);
  }, 600_000);

  test.skipIf(Boolean(unusable))("tiny.en has its own alignment heads: every token aligned in order inside the audio", async () => {
    const samples = await speech("jfk");
    const model = await ensureDerived("whisper-tiny.en-ggml-q8_0");
    const words = await recogniseWithWhisperCpp(model, samples, { threads: 2, language: "en", alignmentHeads: alignmentHeadsFor("whisper-tiny.en") });
    expect(words.length).toBeGreaterThan(15);
    expectAlignedInside(words, samples.length / 16_000);
    // Without alignment heads nothing is aligned, and the words are the same.
    const plain = await recogniseWithWhisperCpp(model, samples, { threads: 2, language: "en" });
    expect(plain.every((w) => w.aligned === undefined)).toBe(true);
    expect(plain.map((w) => w.word)).toEqual(words.map((w) => w.word));
  }, 600_000);

  test.skipIf(Boolean(unusable))("the phone call recognised in-process: full stops followed by a measured pause, as CTranslate2 has them", async () => {
    const saved = { engine: process.env.CLIPYARD_ASR_ENGINE, times: process.env.CLIPYARD_WHISPER_CPP_WORD_TIMES };
    process.env.CLIPYARD_ASR_ENGINE = "whisper-cpp";
    try {
      const ends = async (times: string) => {
        process.env.CLIPYARD_WHISPER_CPP_WORD_TIMES = times;
        const t = await transcribeFile(join(SHARED_MEDIA, "two_speakers_call.wav"), { model: "whisper-base", diarize: false, threads: 2 });
        expect(t.engine).toStartWith("whisper.cpp whisper-base-ggml-q8_0 in-process");
        return t.words.map((_, i) => sentenceEndEvidence(t.words, i)).filter((e) => e === "pause").length;
      };
      // One speaker label (no diarization), so a full stop is a sentence end by its pause (or, in a
      // transcript without pauses, by the capital after it). Measured: 13 of the 14 ends by their
      // pause with DTW word times, as CTranslate2 (13 of 14, nearly the same times); 1 with the
      // heuristic's and the voice trim, the other 12 only by the fallback.
      const [dtw, heuristic] = [await ends("dtw"), await ends("heuristic")];
      expect(dtw).toBeGreaterThanOrEqual(10);
      expect(heuristic).toBeLessThan(dtw);
    } finally {
      for (const [k, v] of [["CLIPYARD_ASR_ENGINE", saved.engine], ["CLIPYARD_WHISPER_CPP_WORD_TIMES", saved.times]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }, 600_000);
});
