/**
 * Sentence embeddings behind one small interface, so the highlight stage neither knows nor cares
 * which runtime computes them. The only implementation today is MiniLmEmbedder (all-MiniLM-L6-v2 in
 * TypeScript from verified safetensors). When the model is not installed the highlight stage runs
 * on TF-IDF similarity and says so; it never substitutes made-up vectors.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Embedder } from "./embedding.ts";

export type { Embedder };

export const DEFAULT_EMBEDDING_MODEL = "all-minilm-l6-v2";
const REQUIRED_FILES = ["model.safetensors", "tokenizer.json", "config.json"] as const;

/** The embedding model is not installed (or not verified); callers fall back to TF-IDF and report it. */
export class EmbeddingModelUnavailableError extends Error {
  constructor(
    readonly model: string,
    detail: string,
  ) {
    super(`sentence-embedding model '${model}' is not available (${detail}); run \`clipyard models pull ${model}\``);
    this.name = "EmbeddingModelUnavailableError";
  }
}

/**
 * Checks the model store's verification stamp (written by the model manager after the sha256 matched
 * the manifest): every file present and unchanged since then. Anything else is "unavailable".
 */
export function verifiedModelDir(modelsDir: string, model: string = DEFAULT_EMBEDDING_MODEL): string {
  const dir = join(modelsDir, model);
  let stamp: Record<string, { size: number; mtimeMs: number; sha256?: string }>;
  try {
    stamp = JSON.parse(readFileSync(join(dir, ".verified.json"), "utf8"));
  } catch {
    throw new EmbeddingModelUnavailableError(model, `no verified copy in ${dir}`);
  }
  for (const f of REQUIRED_FILES) {
    const path = join(dir, f);
    if (!existsSync(path)) throw new EmbeddingModelUnavailableError(model, `${f} is missing in ${dir}`);
    const st = statSync(path);
    const s = stamp[f];
    if (!s || !s.sha256 || s.size !== st.size || s.mtimeMs !== st.mtimeMs) {
      throw new EmbeddingModelUnavailableError(model, `${f} in ${dir} is not verified`);
    }
  }
  return dir;
}

/**
 * Loads the sentence-embedding model from `<modelsDir>/<model>`. Throws EmbeddingModelUnavailableError
 * when it is not installed/verified, and a plain Error when the files are there but do not load.
 */
export async function loadEmbedder(modelsDir: string, model: string = DEFAULT_EMBEDDING_MODEL, opts: { threads?: number } = {}): Promise<Embedder> {
  const dir = verifiedModelDir(modelsDir, model);
  const { MiniLmEmbedder, MiniLmPool } = await import("./embedder-minilm.ts");
  const threads = opts.threads ?? 1;
  return threads > 1 ? MiniLmPool.start(model, dir, threads) : new MiniLmEmbedder(model, dir);
}

/**
 * The embedder if installed, else null with the reason (for the plan's warnings). Only "not
 * installed" is tolerated: files that are present and verified but fail to load still throw.
 */
export async function tryLoadEmbedder(
  modelsDir: string,
  model: string = DEFAULT_EMBEDDING_MODEL,
  opts: { threads?: number } = {},
): Promise<{ embedder: Embedder; reason?: undefined } | { embedder: null; reason: string }> {
  try {
    return { embedder: await loadEmbedder(modelsDir, model, opts) };
  } catch (e) {
    if (e instanceof EmbeddingModelUnavailableError) return { embedder: null, reason: e.message };
    throw e;
  }
}
