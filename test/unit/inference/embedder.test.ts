import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { DEFAULT_EMBEDDING_MODEL, EmbeddingModelUnavailableError, loadEmbedder, tryLoadEmbedder, verifiedModelDir } from "../../../src/inference/embedder.ts";
import { WordPieceTokenizer } from "../../../src/inference/embedder-minilm.ts";
import { planHighlights } from "../../../src/pipeline/highlights/plan.ts";
import { cosine } from "../../../src/pipeline/highlights/topics.ts";
import { SHARED_MEDIA, transcriptFromTurnsFile } from "../../helpers/synthetic-transcript.ts";
import { testShared } from "../../helpers/shared.ts";

const modelsDir = loadConfig().modelsDir;

describe("embedder availability", () => {
  test("an empty models directory is 'unavailable', not a crash and not a fake vector", async () => {
    const empty = mkdtempSync(join(tmpdir(), "clipyard-models-"));
    await expect(loadEmbedder(empty)).rejects.toBeInstanceOf(EmbeddingModelUnavailableError);
    const r = await tryLoadEmbedder(empty);
    expect(r.embedder).toBeNull();
    expect(r.reason).toContain("not available");
  });

  test("files without a verification stamp are refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "clipyard-models-"));
    mkdirSync(join(dir, DEFAULT_EMBEDDING_MODEL));
    for (const f of ["model.safetensors", "tokenizer.json", "config.json"]) writeFileSync(join(dir, DEFAULT_EMBEDDING_MODEL, f), "x");
    expect(() => verifiedModelDir(dir)).toThrow(EmbeddingModelUnavailableError);
    writeFileSync(join(dir, DEFAULT_EMBEDDING_MODEL, ".verified.json"), JSON.stringify({ "config.json": { size: 1, mtimeMs: 0, sha256: "ab" } }));
    expect(() => verifiedModelDir(dir)).toThrow(/not verified/);
  });

  testShared("planHighlights without an embedder says so in its output", async () => {
    const t = transcriptFromTurnsFile(SHARED_MEDIA + "two_speakers_call.turns.txt");
    const plan = await planHighlights(t, { embedder: null, embedderUnavailableReason: "not installed" });
    expect(plan.similarity).toBe("lexical-tfidf");
    expect(plan.warnings.join(" ")).toContain("sentence embeddings unavailable (not installed)");
    expect(plan.clips[0]!.reason).toContain("no embedding model");
    expect(plan.showNotes).toStartWith("# ");
  });
});

// scripts/setup.sh pulls the model, so these run everywhere the suite runs; without it they fail
// with the model manager's "run clipyard models pull" message rather than being skipped.
describe("all-MiniLM-L6-v2 (installed model)", () => {
  test("reproduces sentence-transformers' published similarity matrix", async () => {
    const e = await loadEmbedder(modelsDir);
    expect(e.dimensions).toBe(384);
    const v = await e.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]);
    const expected = [
      [1, 0.666, 0.1046],
      [0.666, 1, 0.1411],
      [0.1046, 0.1411, 1],
    ];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(Math.abs(cosine(v[i]!, v[j]!) - expected[i]![j]!)).toBeLessThan(1e-3);
  });

  test("WordPiece splits unknown words into pieces and wraps [CLS]/[SEP]", async () => {
    const tok = new WordPieceTokenizer(await Bun.file(join(verifiedModelDir(modelsDir), "tokenizer.json")).json());
    const ids = tok.encode("Hello, Café unbelievable!", 256);
    expect(ids[0]).toBe(tok.cls);
    expect(ids[ids.length - 1]).toBe(tok.sep);
    expect(ids.length).toBeGreaterThan(6); // hello , cafe un ##bel... !
    expect(ids).not.toContain(tok.unk);
  });

  test("the 2-thread pool returns the same vectors as one thread, in order, duplicates included", async () => {
    const texts = ["Yeah.", "The oven holds forty loaves.", "Yeah.", "Football fans travelled far.", "Right.", "The oven holds forty loaves."];
    const one = await loadEmbedder(modelsDir);
    const pool = await loadEmbedder(modelsDir, DEFAULT_EMBEDDING_MODEL, { threads: 2 });
    try {
      const a = await one.embed(texts);
      const b = await pool.embed(texts);
      expect(b.length).toBe(texts.length);
      for (let i = 0; i < texts.length; i++) expect(cosine(a[i]!, b[i]!)).toBeCloseTo(1, 6);
      expect(cosine(b[0]!, b[2]!)).toBeCloseTo(1, 6);
      expect(cosine(b[1]!, b[3]!)).toBeLessThan(0.6);
    } finally {
      pool.close?.();
    }
  });

  testShared("planHighlights uses the embeddings and names the model", async () => {
    const e = await loadEmbedder(modelsDir);
    const t = transcriptFromTurnsFile(SHARED_MEDIA + "two_speakers_call.turns.txt");
    const plan = await planHighlights(t, { embedder: e });
    expect(plan.similarity).toBe(`embeddings:${DEFAULT_EMBEDDING_MODEL}`);
    expect(plan.warnings).toEqual([]);
    expect(plan.clips[0]!.reason).toContain(DEFAULT_EMBEDDING_MODEL);
  });
});
