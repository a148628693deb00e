/**
 * Silero VAD in-process (onnxruntime-node) against the Python worker's `vad` command on the shared
 * recordings: same verified model, same windows and state, so the same probabilities. Then the
 * compiled executable runs the in-process engine from an empty folder with no Python on PATH.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { readWav } from "../../src/media/wav.ts";
import { resolveModel } from "../../src/models/store.ts";
import { speechProbabilities } from "../../src/pipeline/vad-engine.ts";
import { transcribeFile } from "../../src/pipeline/transcribe.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-vad-engines-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("Silero VAD: in-process equals the Python worker", () => {
  for (const name of ["jfk", "two_speakers_call"]) {
    test(`${name}.wav: every window's probability within 1e-4`, async () => {
      const wav = join(work, `${name}.wav`);
      await decodeToSpeechWav(join(SHARED_MEDIA, `${name}.wav`), wav);
      const audio = readWav(wav);
      const model = resolveModel("silero-vad");
      const inProcess = await speechProbabilities(wav, audio, model, undefined, "onnxruntime");
      const worker = await speechProbabilities(wav, audio, model, undefined, "python");
      expect(inProcess.engine).toBe("onnxruntime-node");
      expect(worker.engine).toBe("python-worker");
      expect(inProcess.frame_seconds).toBe(worker.frame_seconds);
      expect(inProcess.probs.length).toBe(Math.floor(audio.samples.length / 512));
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

/** PATH without any folder that holds a python or python3 executable. */
function pathWithoutPython(): string {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((d) => d && !["python", "python3"].some((p) => existsSync(join(d, p))))
    .join(delimiter);
}

test("the compiled executable runs Silero in-process (and loads whisper.cpp) from an empty folder with no Python on PATH", () => {
  const built = join(work, "build", "clipyard");
  const build = Bun.spawnSync(["bash", "scripts/build-binary.sh", "bun-linux-x64", built], { cwd: ROOT });
  expect(build.exitCode).toBe(0);
  const dir = mkdtempSync(join(work, "empty-"));
  copyFileSync(built, join(dir, "clipyard"));
  const PATH = pathWithoutPython();
  expect(Bun.which("python3", { PATH })).toBeNull();
  const p = Bun.spawnSync([join(dir, "clipyard"), "doctor", "--json"], {
    cwd: dir,
    env: { PATH, HOME: dir, CLIPYARD_MODELS_DIR: resolve(ROOT, "models"), CLIPYARD_LOG_LEVEL: "error" },
  });
  const checks = JSON.parse(p.stdout.toString()).checks as Array<{ name: string; status: string; detail: string; data: any }>;
  const vad = checks.find((c) => c.name === "voice activity")!;
  expect(vad).toMatchObject({ status: "ok", data: { engine: "onnxruntime-node", ran: { windows: 31 } } });
  // No Python means no speech runtime: the VAD check must not have leaned on it.
  expect(checks.find((c) => c.name === "speech runtime")!.status).toBe("fail");
  // The whisper.cpp addon travels inside the executable too (reported, not used for recognition).
  expect(checks.find((c) => c.name === "speech recognition")!.data).toEqual({ engine: "ctranslate2-python-worker", inProcess: { available: true } });
}, 120_000);
