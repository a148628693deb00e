/**
 * A model whose bytes change in place, keeping its size and modification time, passes the cheap
 * stamp check. Transcription must then name the model, not blame the media. Works on copies in a
 * temporary models folder: the shared models/ are never touched.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT_DIR } from "../../src/config.ts";
import { assertModelIntact, ModelCorruptedError, ModelNotAvailableError, resolveModel } from "../../src/models/store.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { implausiblyFewWords } from "../../src/pipeline/transcribe/recognise-worker.ts";
import { speechWav } from "../helpers/speech.ts";

let models: string;
let speech: string;
const savedModelsDir = process.env.CLIPYARD_MODELS_DIR;

/** Inverts 64-byte runs across the middle half of the file, then restores its times to the nanosecond. */
function corruptInPlace(path: string): void {
  const before = statSync(path);
  const times = `${path}.times`;
  expect(Bun.spawnSync(["touch", "-r", path, times]).exitCode).toBe(0);
  const fd = openSync(path, "r+");
  const run = Buffer.alloc(64);
  for (let off = Math.floor(before.size / 4); off < (3 * before.size) / 4; off += 65_536) {
    readSync(fd, run, 0, run.length, off);
    for (let i = 0; i < run.length; i++) run[i] = run[i]! ^ 0xff;
    writeSync(fd, run, 0, run.length, off);
  }
  closeSync(fd);
  expect(Bun.spawnSync(["touch", "-r", times, path]).exitCode).toBe(0);
  const after = statSync(path);
  expect(after.size).toBe(before.size);
  expect(after.mtimeMs).toBe(before.mtimeMs);
}

beforeAll(() => {
  models = mkdtempSync(join(tmpdir(), "clipyard-models-corrupt-"));
  // Copies keep the times (cp -p, to the nanosecond), so the copied stamps still vouch for the files.
  for (const name of ["whisper-tiny.en", "silero-vad"]) {
    expect(Bun.spawnSync(["cp", "-rpL", join(ROOT_DIR, "models", name), join(models, name)]).exitCode).toBe(0);
  }
  process.env.CLIPYARD_MODELS_DIR = models;
  speech = join(models, "speech-7s.wav");
  const ff = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-t", "7", "-i", speechWav(), speech]);
  expect(ff.exitCode).toBe(0);
});

afterAll(() => {
  if (savedModelsDir === undefined) delete process.env.CLIPYARD_MODELS_DIR;
  else process.env.CLIPYARD_MODELS_DIR = savedModelsDir;
  rmSync(models, { recursive: true, force: true });
});

test("zero words from seconds of voice activity counts as implausible; a few words from a short burst does not", () => {
  expect(implausiblyFewWords(0, 6)).toBe(true);
  expect(implausiblyFewWords(15, 6)).toBe(false);
  expect(implausiblyFewWords(0, 2)).toBe(false);
});

test("a model corrupted in place: transcription says so and names the pull command, and later jobs are refused up front", async () => {
  await assertModelIntact("whisper-tiny.en", models); // the copy is good before it is damaged
  corruptInPlace(join(models, "whisper-tiny.en", "model.bin"));
  expect(() => resolveModel("whisper-tiny.en", models)).not.toThrow(); // the stamp cannot see it

  const err = await transcribeFile(speech, { diarize: false }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ModelCorruptedError);
  expect((err as Error).message).toBe("model file corrupted, run `clipyard models pull whisper-tiny.en`");
  // The stamp is gone, so the next job does not spend minutes on the broken file.
  expect(() => resolveModel("whisper-tiny.en", models)).toThrow(ModelNotAvailableError);
}, 240_000);
