/**
 * The CTranslate2 → ggml converter on the verified whisper-tiny.en: deterministic bytes matching the
 * manifest's derived record, Whisper's mel filterbank as faster-whisper computes it, the derived file
 * re-made when it no longer matches, and whisper.cpp hearing the same words from it as CTranslate2.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readWav } from "../../src/media/wav.ts";
import { ct2ToGgmlChunks, melFilters } from "../../src/models/ct2-to-ggml.ts";
import { ensureDerived } from "../../src/models/derived.ts";
import { findDerived } from "../../src/models/manifest.ts";
import { speechPython } from "../../src/inference/speech-runtime/runtime.ts";
import { runWorker } from "../../src/inference/speech-runtime/worker.ts";
import { fileState, modelDir, resolveModel } from "../../src/models/store.ts";
import { recogniseWithWhisperCpp, wordsFromTokenSegments } from "../../src/inference/whisper-cpp.ts";
import { wordErrorRate } from "../../scripts/bench/asr-scoring.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { testShared } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-ggml-"));
/** A models folder of its own, with the verified source linked: derived files are made here, not in the checkout. */
const models = join(work, "models");
beforeAll(() => {
  mkdirSync(models);
  symlinkSync(modelDir("whisper-tiny.en"), join(models, "whisper-tiny.en"), "dir");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));
const spec = findDerived("whisper-tiny.en-ggml");

test("two conversions give the same bytes: the manifest's sha256, with whisper.cpp's header and size", () => {
  const dir = resolveModel("whisper-tiny.en");
  const convert = () => ct2ToGgmlChunks(readFileSync(join(dir, "model.bin")), readFileSync(join(dir, "tokenizer.json"), "utf8"));
  const digest = (chunks: Uint8Array[]) => chunks.reduce((h, c) => h.update(c), createHash("sha256")).digest("hex");
  const a = convert();
  expect(digest(a)).toBe(spec.sha256);
  expect(digest(convert())).toBe(spec.sha256);
  // Same length as whisper.cpp's published ggml-tiny.en.bin.
  expect(a.reduce((n, c) => n + c.length, 0)).toBe(77_704_715);
  const header = new Int32Array(a[0]!.slice().buffer);
  // magic, n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, f16
  expect([...header]).toEqual([0x67676d6c, 51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1]);
});

test("q8_0: deterministic, the manifest's sha256 and the length of whisper.cpp's published ggml-tiny.en-q8_0.bin", () => {
  const dir = resolveModel("whisper-tiny.en");
  const q8 = findDerived("whisper-tiny.en-ggml-q8_0");
  const convert = () => ct2ToGgmlChunks(readFileSync(join(dir, "model.bin")), readFileSync(join(dir, "tokenizer.json"), "utf8"), "q8_0");
  const digest = (chunks: Uint8Array[]) => chunks.reduce((h, c) => h.update(c), createHash("sha256")).digest("hex");
  const a = convert();
  expect(digest(a)).toBe(q8.sha256);
  expect(digest(convert())).toBe(q8.sha256);
  expect(a.reduce((n, c) => n + c.length, 0)).toBe(43_550_795);
  expect(new Int32Array(a[0]!.slice().buffer)[11]).toBe(2007); // GGML_QNT_VERSION 2 × 1000 + GGML_FTYPE_MOSTLY_Q8_0
});

test("the mel filterbank equals faster-whisper's in every float32 value", () => {
  const py = Bun.spawnSync([speechPython(), "-c", "import json; from faster_whisper.feature_extractor import FeatureExtractor as F; print(json.dumps(F.get_mel_filters(16000, 400, 80).astype('float32').tolist()))"]);
  expect(py.exitCode).toBe(0);
  const ref = Float32Array.from((JSON.parse(py.stdout.toString()) as number[][]).flat());
  const ours = melFilters(80);
  expect(ours.length).toBe(80 * 201);
  // Compared as numbers: one of faster-whisper's zeros is -0, which no Whisper implementation tells apart.
  const differing = Array.from(ours).filter((v, i) => v !== ref[i]).length;
  expect(differing).toBe(0);
  expect(ours.filter((v) => v > 0).length).toBe(ref.filter((v) => v > 0).length);
});

test("a derived file that no longer matches is converted again, then verified", async () => {
  const path = await ensureDerived(spec.name, models);
  expect(fileState(join(models, spec.name), spec)).toBe("verified");
  appendFileSync(path, "x");
  expect(fileState(join(models, spec.name), spec)).toBe("unverified");
  expect(await ensureDerived(spec.name, models)).toBe(path);
  expect(fileState(join(models, spec.name), spec)).toBe("verified");
}, 60_000);

testShared("whisper.cpp on the converted file hears the same words as CTranslate2 on jfk", async () => {
  const wav = join(SHARED_MEDIA, "jfk.wav");
  const audio = readWav(wav);
  const ref = readFileSync(join(SHARED_MEDIA, "jfk.ref.txt"), "utf8");
  const ggml = await ensureDerived(spec.name, models);
  const words = await recogniseWithWhisperCpp(ggml, audio.samples, { threads: 2, language: "en" });
  let ct2: Array<{ word: string }> = [];
  // The worker takes its speech regions in a file: here the whole recording.
  const regions = join(models, "jfk-regions.json");
  writeFileSync(regions, JSON.stringify([[0, audio.samples.length / audio.sampleRate]]));
  await runWorker(["asr", "--model", resolveModel("whisper-tiny.en"), "--audio", wav, "--regions-file", regions, "--language", "en", "--threads", "2", "--beam", "1", "--device", "cpu"], (m) => {
    if (m.result) ct2 = (m.result as { words: Array<{ word: string }> }).words;
  });
  const werCpp = wordErrorRate(ref, words.map((w) => w.word).join(" ")).wer;
  const werCt2 = wordErrorRate(ref, ct2.map((w) => w.word).join(" ")).wer;
  expect(Math.abs(werCpp - werCt2)).toBeLessThanOrEqual(0.005);
  expect(werCpp).toBeLessThan(0.12);
  const americans = words.find((w) => /americans/i.test(w.word))!;
  expect(americans.start).toBeLessThan(3);
  for (let i = 1; i < words.length; i++) expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.start);
  expect(words[words.length - 1]!.end).toBeLessThanOrEqual(11.1);
  // Bounds a hang, not the speed: whisper.cpp's prebuilt addon has no AVX, and at load 10 on two
  // cores (a niced second CI run beside the first) this took over 180 s.
}, 600_000);

testShared("after a recognition the process exits by itself (whisper.cpp's log callback does not hold it open)", async () => {
  const q8 = await ensureDerived("whisper-tiny.en-ggml-q8_0", models);
  const child = Bun.spawnSync(["bun", join(import.meta.dir, "../../scripts/bench/asr-engines-child.ts"), q8, join(SHARED_MEDIA, "jfk.wav"), "2"], { timeout: 300_000 });
  expect(child.signalCode ?? null).toBeNull();
  expect(child.exitCode).toBe(0);
  expect(JSON.parse(child.stdout.toString()).words.map((w: { word: string }) => w.word).join(" ")).toContain("ask not what your country can do for you");
}, 320_000);

test("token segments join into words: a token without a leading space continues the word", () => {
  expect(
    wordsFromTokenSegments([
      { text: "", t0: 0, t1: 0 },
      { text: " Hello", t0: 0, t1: 400 },
      { text: " New", t0: 500, t1: 700 },
      { text: " Jer", t0: 700, t1: 900 },
      { text: "sey.", t0: 900, t1: 1200 },
    ]),
  ).toEqual([
    { word: "Hello", start: 0, end: 0.4 },
    { word: "New", start: 0.5, end: 0.7 },
    { word: "Jersey.", start: 0.7, end: 1.2 },
  ]);
});
