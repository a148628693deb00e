/**
 * Silero VAD in-process (onnxruntime-node) against the Python worker's `vad` command on the shared
 * recordings: same verified model, same windows and state, so the same probabilities (the compiled
 * executable without Python: test/e2e/no-python.test.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { pcmSource, readWav } from "../../src/media/wav.ts";
import { resolveModel } from "../../src/models/store.ts";
import { speechProbabilities } from "../../src/pipeline/transcribe/vad-engine.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { describeShared } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-vad-engines-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describeShared("Silero VAD: in-process equals the Python worker", () => {
  for (const name of ["jfk", "two_speakers_call"]) {
    test(`${name}.wav: every window's probability within 1e-4`, async () => {
      const wav = join(work, `${name}.wav`);
      await decodeToSpeechWav(join(SHARED_MEDIA, `${name}.wav`), wav);
      const audio = pcmSource(readWav(wav));
      const model = resolveModel("silero-vad");
      const inProcess = await speechProbabilities(wav, audio, model, undefined, "onnxruntime");
      const worker = await speechProbabilities(wav, audio, model, undefined, "python");
      expect(inProcess.engine).toBe("onnxruntime-node");
      expect(worker.engine).toBe("python-worker");
      expect(inProcess.frame_seconds).toBe(worker.frame_seconds);
      expect(inProcess.probs.length).toBe(Math.floor(audio.length / 512));
      expect(inProcess.probs.length).toBe(worker.probs.length);
      let maxDiff = 0;
      for (let i = 0; i < worker.probs.length; i++) maxDiff = Math.max(maxDiff, Math.abs(inProcess.probs[i]! - worker.probs[i]!));
      // Rounded to 4 decimals on both sides: one step of rounding is the most they may differ.
      expect(maxDiff).toBeLessThanOrEqual(1e-4 + 1e-9);
      // The recordings hold both speech and pauses, so equality is not two flat lines agreeing.
      expect(Math.max(...inProcess.probs)).toBeGreaterThan(0.9);
      expect(Math.min(...inProcess.probs)).toBeLessThan(0.1);
    }, 120_000);
  }

  test("a transcript says the VAD ran in-process", async () => {
    const t = await transcribeFile(join(SHARED_MEDIA, "jfk.wav"), { diarize: false });
    expect(t.engine).toEndWith("+ silero-vad v5 in-process");
    expect(t.words.map((w) => w.word).join(" ")).toContain("ask not what your country can do for you");
  }, 120_000);
});
