import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { digestFile, verifyFile } from "../../src/models/checksum.ts";
import { loadManifest, parseManifest } from "../../src/models/manifest.ts";
import { pull } from "../../src/models/pull.ts";
import { ModelNotAvailableError, resolveModel } from "../../src/models/store.ts";
import { loadConfig } from "../../src/config.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "clipyard-models-test-"));

describe("manifest", () => {
  test("the committed manifest is valid and every file has an official checksum and a source", () => {
    const models = loadManifest();
    expect(models.map((m) => m.name)).toEqual(expect.arrayContaining(["whisper-tiny.en", "whisper-base", "silero-vad"]));
    for (const m of models) {
      expect(m.checksumSource.length).toBeGreaterThan(10);
      for (const f of m.files) {
        expect(f.sha256 ?? f.sha1).toBeTruthy();
        expect(f.pypi.length + f.npm.length).toBeGreaterThan(0);
      }
    }
  });
  test("a file without checksum is rejected", () => {
    const entry = { name: "x", description: "", format: "onnx", licence: "MIT", homepage: "https://example.org", revision: "1", checksumSource: "none", files: [{ file: "a.bin", size: 1, url: "https://example.org/a.bin" }] };
    expect(() => parseManifest({ models: [entry] })).toThrow();
  });
});

describe("checksum verification", () => {
  const dir = tmp();
  const path = join(dir, "blob.bin");
  writeFileSync(path, "hello clipyard\n");
  test("digests", async () => {
    const d = await digestFile(path);
    expect(d.size).toBe(15);
    expect(d.sha256).toBe(new Bun.CryptoHasher("sha256").update("hello clipyard\n").digest("hex"));
    expect(d.sha1).toBe(new Bun.CryptoHasher("sha1").update("hello clipyard\n").digest("hex"));
  });
  test("right bytes pass, wrong bytes and wrong size are refused", async () => {
    const sha256 = new Bun.CryptoHasher("sha256").update("hello clipyard\n").digest("hex");
    const spec = { file: "blob.bin", size: 15, sha256, url: "https://example.org/blob.bin", pypi: [], npm: [] };
    expect(await verifyFile(path, spec)).toEqual({ ok: true });
    writeFileSync(path, "hello clipyarD\n");
    const bad = await verifyFile(path, spec);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.reason).toContain("sha256");
    expect((await verifyFile(path, { ...spec, size: 16 })).ok).toBe(false);
    expect((await verifyFile(join(dir, "nope"), spec)).ok).toBe(false);
  });
});

describe("pull from a mirror", () => {
  test("a mirror file with the wrong bytes is refused and never installed", async () => {
    const mirror = tmp();
    const modelsDir = tmp();
    mkdirSync(join(mirror, "silero-vad"));
    writeFileSync(join(mirror, "silero-vad", "silero_vad.onnx"), Buffer.alloc(2327524, 7)); // right size, wrong bytes
    const err = await pull("silero-vad", { mirror, modelsDir, sources: ["mirror"] }).catch((e) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("REFUSED");
    expect(existsSync(join(modelsDir, "silero-vad", "silero_vad.onnx"))).toBe(false);
    expect(() => resolveModel("silero-vad", modelsDir)).toThrow(ModelNotAvailableError);
    expect(() => resolveModel("silero-vad", modelsDir)).toThrow("clipyard models pull silero-vad");
  });

  test("a mirror file with the official bytes is installed and resolves", async () => {
    // The verified copy from setup (scripts/setup/asr.sh) serves as the mirror.
    const installed = resolveModel("silero-vad", loadConfig().modelsDir);
    const mirror = tmp();
    const modelsDir = tmp();
    copyFileSync(installed, join(mirror, "silero_vad.onnx"));
    await pull("silero-vad", { mirror, modelsDir, sources: ["mirror"] });
    expect(resolveModel("silero-vad", modelsDir)).toBe(join(modelsDir, "silero-vad", "silero_vad.onnx"));
  });

  test("a file changed after verification no longer resolves", async () => {
    const installed = resolveModel("silero-vad", loadConfig().modelsDir);
    const mirror = tmp();
    const modelsDir = tmp();
    copyFileSync(installed, join(mirror, "silero_vad.onnx"));
    await pull("silero-vad", { mirror, modelsDir, sources: ["mirror"] });
    const path = join(modelsDir, "silero-vad", "silero_vad.onnx");
    await Bun.sleep(5);
    writeFileSync(path, Buffer.alloc(2327524, 1));
    expect(() => resolveModel("silero-vad", modelsDir)).toThrow(ModelNotAvailableError);
  });
});
