/**
 * Word probabilities on the path without Python (issue 30 part 4, issue 33 part 1): whisper.cpp built
 * from source by scripts/setup/whisper-cpp.sh reports each token's probability, the words carry the
 * mean of theirs (wordProbability), and a job recognised in-process gets the least-sure warnings that
 * until now only the CTranslate2 engine could give. On real shared recordings, against the prebuilt
 * addon run in its own process on the same file.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuCannotRun, findBuiltAddon } from "../../src/inference/whisper-cpp-built.ts";
import { loadWhisperCpp, recogniseWithWhisperCpp } from "../../src/inference/whisper-cpp.ts";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { readWav } from "../../src/media/wav.ts";
import { ensureDerived } from "../../src/models/derived.ts";
import { findDoubtfulStretches } from "../../src/pipeline/transcribe/confidence.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { describeShared, SHARED_MEDIA } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-wcpp-probs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const found = findBuiltAddon();
const unusable = found.ok ? cpuCannotRun(found.info) : found.reason;
if (unusable) console.warn(`test/e2e/whisper-cpp-probabilities.test.ts: skipped: ${unusable}`);

const ROOT = join(import.meta.dir, "../..");
type Word = { word: string; start: number; end: number; p?: number };

/** The prebuilt addon's words for the same file, in a process of its own (an addon choice is per process). */
function prebuiltWords(model: string, wav: string): Word[] {
  const child = Bun.spawnSync(["bun", join(ROOT, "scripts/bench/asr-engines-child.ts"), model, wav, "2"], {
    env: { ...process.env, CLIPYARD_WHISPER_CPP_ADDON: "prebuilt" },
    timeout: 600_000,
  });
  expect(child.exitCode).toBe(0);
  return JSON.parse(child.stdout.toString()).words;
}

describeShared("whisper.cpp built from source: word probabilities", () => {
  test.skipIf(Boolean(unusable))("jfk: every word has a probability in [0, 1], and the words and times are the prebuilt addon's", async () => {
    const loaded = loadWhisperCpp();
    expect(loaded).toMatchObject({ ok: true, kind: "built", probabilities: true });
    const wav = join(work, "jfk.wav");
    await decodeToSpeechWav(join(SHARED_MEDIA, "jfk.wav"), wav);
    const model = await ensureDerived("whisper-tiny.en-ggml-q8_0");
    const words: Word[] = await recogniseWithWhisperCpp(model, readWav(wav).samples, { threads: 2, language: "en" });
    expect(words.map((w) => w.word).join(" ")).toContain("ask not what your country can do for you");
    for (const w of words) {
      expect(typeof w.p).toBe("number");
      expect(w.p!).toBeGreaterThanOrEqual(0);
      expect(w.p!).toBeLessThanOrEqual(1);
    }
    // A clear recording: the recogniser is sure of nearly every word, and no stretch is doubtful.
    expect(words.filter((w) => w.p! >= 0.5).length / words.length).toBeGreaterThan(0.8);
    expect(findDoubtfulStretches(words)).toEqual([]);
    // The same words as the prebuilt addon, and nearly the same times: both take them from whisper.cpp's
    // token-timestamp heuristic (measured: mean 0.01 s apart, at most 0.16 s, on one word).
    const before = prebuiltWords(model, wav);
    expect(words.map((w) => w.word)).toEqual(before.map((w) => w.word));
    const moved = words.flatMap((w, i) => [Math.abs(w.start - before[i]!.start), Math.abs(w.end - before[i]!.end)]);
    expect(moved.reduce((s, d) => s + d, 0) / moved.length).toBeLessThanOrEqual(0.1);
    expect(Math.max(...moved)).toBeLessThanOrEqual(0.5);
  }, 600_000);

  test.skipIf(Boolean(unusable))("a cancelled recognition stops mid-run: it rejects with the signal's reason before reaching the end", async () => {
    // jfk six times over (66 s): whisper.cpp reads it in 30 s windows, so a run stopped at its first
    // segment has not reached the last window when it rejects.
    const wav = join(work, "jfk.wav");
    await decodeToSpeechWav(join(SHARED_MEDIA, "jfk.wav"), wav);
    const once = readWav(wav).samples;
    const samples = new Float32Array(once.length * 6);
    for (let i = 0; i < 6; i++) samples.set(once, i * once.length);
    const model = await ensureDerived("whisper-tiny.en-ggml-q8_0");
    const controller = new AbortController();
    let furthest = 0;
    const run = recogniseWithWhisperCpp(model, samples, {
      threads: 2,
      language: "en",
      signal: controller.signal,
      onProgress: (fraction) => {
        furthest = Math.max(furthest, fraction);
        controller.abort(new Error("cancelled by the test"));
      },
    });
    await expect(run).rejects.toThrow("cancelled by the test");
    expect(furthest).toBeGreaterThan(0);
    expect(furthest).toBeLessThan(0.6);
    // The addon is usable again afterwards: the next run completes.
    const words: Word[] = await recogniseWithWhisperCpp(model, once, { threads: 2, language: "en" });
    expect(words.map((w) => w.word).join(" ")).toContain("ask not what your country can do for you");
  }, 600_000);

  test.skipIf(Boolean(unusable))("a job recognised in-process warns where the recogniser was least sure: jfk under loud noise", async () => {
    // White noise (a fixed seed) at 0.5 of full scale over jfk: tiny.en mishears whole stretches
    // ("fellow nerd and not what's", "human and true") and says so in its token probabilities.
    const noisy = join(work, "jfk-noise.wav");
    const mix = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-i", join(SHARED_MEDIA, "jfk.wav"), "-f", "lavfi", "-i", "anoisesrc=color=white:amplitude=0.5:seed=7:duration=11",
      "-filter_complex", "[0:a]aresample=16000,aformat=channel_layouts=mono[a];[1:a]aresample=16000,aformat=channel_layouts=mono[n];[a][n]amix=inputs=2:duration=first:normalize=0",
      "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", noisy]);
    expect(mix.exitCode).toBe(0);
    const saved = process.env.CLIPYARD_ASR_ENGINE;
    process.env.CLIPYARD_ASR_ENGINE = "whisper-cpp";
    try {
      const t = await transcribeFile(noisy, { model: "whisper-tiny.en", diarize: false, threads: 2 });
      expect(t.engine).toStartWith("whisper.cpp whisper-tiny.en-ggml-q8_0 in-process");
      expect(t.words.length).toBeGreaterThan(10);
      for (const w of t.words) expect(w.p).toBeWithin(0, 1.000001);
      const least = (t.warnings ?? []).filter((w) => w.startsWith("the recogniser was least sure of "));
      expect(least.length).toBeGreaterThanOrEqual(1);
      expect(least.length).toBe(findDoubtfulStretches(t.words).length);
    } finally {
      if (saved === undefined) delete process.env.CLIPYARD_ASR_ENGINE;
      else process.env.CLIPYARD_ASR_ENGINE = saved;
    }
  }, 600_000);
});
