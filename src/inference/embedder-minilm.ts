/**
 * all-MiniLM-L6-v2 sentence embeddings computed in plain TypeScript from the verified
 * model.safetensors + tokenizer.json + config.json (the manifest ships safetensors, which
 * transformers.js/ONNX Runtime cannot load). A 6-layer, 384-wide BERT: WordPiece tokenisation,
 * encoder, mean pooling over tokens, L2 normalisation — the same steps as sentence-transformers, and
 * checked against its published similarity matrix in test/unit/inference/embedder.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Embedder } from "./embedding.ts";

interface BertConfig {
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  layer_norm_eps: number;
  max_position_embeddings: number;
  hidden_act: string;
}

type Tensors = Map<string, { shape: number[]; data: Float32Array }>;

/** Reads the F32 tensors of a .safetensors file (8-byte header length, JSON header, raw data). */
export function readSafetensors(path: string): Tensors {
  const buf = readFileSync(path);
  const headerLen = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + headerLen).toString("utf8")) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const base = 8 + headerLen;
  const out: Tensors = new Map();
  for (const [name, t] of Object.entries(header)) {
    if (name === "__metadata__" || t.dtype !== "F32") continue;
    const [a, b] = t.data_offsets;
    // Copy: the data region is not guaranteed to be 4-byte aligned inside the file buffer.
    const bytes = new Uint8Array(b - a);
    bytes.set(buf.subarray(base + a, base + b));
    out.set(name.replace(/^bert\./, ""), { shape: t.shape, data: new Float32Array(bytes.buffer) });
  }
  return out;
}

// ---- WordPiece tokeniser (BertNormalizer lowercase + strip accents, BertPreTokenizer) ----

function isPunctuation(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return /\p{P}/u.test(ch);
}

function isChinese(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x20000 && c <= 0x2a6df) || (c >= 0x2a700 && c <= 0x2b73f) ||
    (c >= 0x2b740 && c <= 0x2b81f) || (c >= 0x2b820 && c <= 0x2ceaf) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x2f800 && c <= 0x2fa1f)
  );
}

export class WordPieceTokenizer {
  private readonly vocab: Map<string, number>;
  readonly cls: number;
  readonly sep: number;
  readonly unk: number;

  constructor(tokenizerJson: { model: { vocab: Record<string, number>; max_input_chars_per_word?: number } }) {
    this.vocab = new Map(Object.entries(tokenizerJson.model.vocab));
    this.cls = this.vocab.get("[CLS]")!;
    this.sep = this.vocab.get("[SEP]")!;
    this.unk = this.vocab.get("[UNK]")!;
  }

  private normalize(text: string): string {
    let out = "";
    for (const ch of text) {
      const c = ch.codePointAt(0)!;
      if (c === 0 || c === 0xfffd || (/\p{Cc}/u.test(ch) && !/\s/.test(ch))) continue;
      if (/\s/.test(ch)) out += " ";
      else if (isChinese(c)) out += ` ${ch} `;
      else out += ch;
    }
    return out
      .toLowerCase()
      .normalize("NFD")
      .replace(/\p{Mn}/gu, "");
  }

  private preTokenize(text: string): string[] {
    const words: string[] = [];
    for (const chunk of text.split(" ")) {
      let cur = "";
      for (const ch of chunk) {
        if (isPunctuation(ch)) {
          if (cur) words.push(cur);
          words.push(ch);
          cur = "";
        } else cur += ch;
      }
      if (cur) words.push(cur);
    }
    return words;
  }

  private wordPiece(word: string): number[] {
    const chars = [...word];
    if (chars.length > 100) return [this.unk];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? "##" : "") + chars.slice(start, end).join("");
        found = this.vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unk];
      ids.push(found);
      start = end;
    }
    return ids;
  }

  /** [CLS] pieces... [SEP], truncated to maxLength tokens. */
  encode(text: string, maxLength: number): number[] {
    const ids = this.preTokenize(this.normalize(text)).flatMap((w) => this.wordPiece(w));
    return [this.cls, ...ids.slice(0, maxLength - 2), this.sep];
  }
}

// ---- BERT encoder ----

/**
 * y[T×out] = x[T×in] · Wᵀ + b, with W stored [out×in] as in PyTorch. Blocked 2 tokens × 4 outputs
 * so each loaded value is used several times (about 3× faster than the naive loop under JSC).
 */
function linear(x: Float32Array, T: number, W: Float32Array, b: Float32Array, inDim: number, outDim: number): Float32Array {
  const y = new Float32Array(T * outDim);
  let t = 0;
  for (; t + 1 < T; t += 2) {
    const xa = t * inDim;
    const xb = xa + inDim;
    let o = 0;
    for (; o + 3 < outDim; o += 4) {
      const w0 = o * inDim;
      const w1 = w0 + inDim;
      const w2 = w1 + inDim;
      const w3 = w2 + inDim;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
      for (let i = 0; i < inDim; i++) {
        const u = x[xa + i]!;
        const v = x[xb + i]!;
        const k0 = W[w0 + i]!, k1 = W[w1 + i]!, k2 = W[w2 + i]!, k3 = W[w3 + i]!;
        a0 += u * k0; a1 += u * k1; a2 += u * k2; a3 += u * k3;
        b0 += v * k0; b1 += v * k1; b2 += v * k2; b3 += v * k3;
      }
      const ya = t * outDim + o;
      const yb = ya + outDim;
      y[ya] = a0 + b[o]!; y[ya + 1] = a1 + b[o + 1]!; y[ya + 2] = a2 + b[o + 2]!; y[ya + 3] = a3 + b[o + 3]!;
      y[yb] = b0 + b[o]!; y[yb + 1] = b1 + b[o + 1]!; y[yb + 2] = b2 + b[o + 2]!; y[yb + 3] = b3 + b[o + 3]!;
    }
    for (; o < outDim; o++) {
      const w0 = o * inDim;
      let a0 = b[o]!, b0 = b[o]!;
      for (let i = 0; i < inDim; i++) {
        a0 += x[xa + i]! * W[w0 + i]!;
        b0 += x[xb + i]! * W[w0 + i]!;
      }
      y[t * outDim + o] = a0;
      y[(t + 1) * outDim + o] = b0;
    }
  }
  for (; t < T; t++) {
    const xo = t * inDim;
    for (let o = 0; o < outDim; o++) {
      const wo = o * inDim;
      let s = b[o]!;
      for (let i = 0; i < inDim; i++) s += x[xo + i]! * W[wo + i]!;
      y[t * outDim + o] = s;
    }
  }
  return y;
}

function layerNormInPlace(x: Float32Array, T: number, dim: number, g: Float32Array, b: Float32Array, eps: number): void {
  for (let t = 0; t < T; t++) {
    const o = t * dim;
    let mean = 0;
    for (let i = 0; i < dim; i++) mean += x[o + i]!;
    mean /= dim;
    let v = 0;
    for (let i = 0; i < dim; i++) v += (x[o + i]! - mean) ** 2;
    const inv = 1 / Math.sqrt(v / dim + eps);
    for (let i = 0; i < dim; i++) x[o + i] = (x[o + i]! - mean) * inv * g[i]! + b[i]!;
  }
}

/** erf via the Numerical Recipes erfc approximation (fractional error < 1.2e-7): BERT uses exact GELU. */
function erf(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - r : r - 1;
}

const gelu = (x: number) => 0.5 * x * (1 + erf(x / Math.SQRT2));

export class MiniLmEmbedder implements Embedder {
  readonly dimensions: number;
  private readonly cfg: BertConfig;
  private readonly w: Tensors;
  private readonly tok: WordPieceTokenizer;
  /** sentence-transformers' max_seq_length for this model. */
  private readonly maxLength = 256;

  constructor(
    readonly model: string,
    dir: string,
  ) {
    this.cfg = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as BertConfig;
    if (this.cfg.hidden_act !== "gelu") throw new Error(`${model}: unsupported activation ${this.cfg.hidden_act}`);
    this.tok = new WordPieceTokenizer(JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")));
    this.w = readSafetensors(join(dir, "model.safetensors"));
    this.dimensions = this.cfg.hidden_size;
    for (const name of ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight", `encoder.layer.${this.cfg.num_hidden_layers - 1}.output.dense.weight`]) {
      if (!this.w.has(name)) throw new Error(`${model}: model.safetensors lacks tensor ${name}`);
    }
  }

  private p(name: string): Float32Array {
    const t = this.w.get(name);
    if (!t) throw new Error(`${this.model}: missing tensor ${name}`);
    return t.data;
  }

  /** One sentence → its mean-pooled, L2-normalised embedding. */
  embedOne(text: string): Float32Array {
    const { hidden_size: H, num_attention_heads: NH, intermediate_size: I, layer_norm_eps: eps } = this.cfg;
    const ids = this.tok.encode(text, Math.min(this.maxLength, this.cfg.max_position_embeddings));
    const T = ids.length;
    const D = H / NH;
    const wordE = this.p("embeddings.word_embeddings.weight");
    const posE = this.p("embeddings.position_embeddings.weight");
    const typeE = this.p("embeddings.token_type_embeddings.weight");
    let x: Float32Array = new Float32Array(T * H);
    for (let t = 0; t < T; t++) for (let i = 0; i < H; i++) x[t * H + i] = wordE[ids[t]! * H + i]! + posE[t * H + i]! + typeE[i]!;
    layerNormInPlace(x, T, H, this.p("embeddings.LayerNorm.weight"), this.p("embeddings.LayerNorm.bias"), eps);

    const scale = 1 / Math.sqrt(D);
    const scores = new Float32Array(T);
    for (let l = 0; l < this.cfg.num_hidden_layers; l++) {
      const pre = `encoder.layer.${l}.`;
      const q = linear(x, T, this.p(pre + "attention.self.query.weight"), this.p(pre + "attention.self.query.bias"), H, H);
      const k = linear(x, T, this.p(pre + "attention.self.key.weight"), this.p(pre + "attention.self.key.bias"), H, H);
      const v = linear(x, T, this.p(pre + "attention.self.value.weight"), this.p(pre + "attention.self.value.bias"), H, H);
      const ctx = new Float32Array(T * H);
      for (let h = 0; h < NH; h++) {
        const ho = h * D;
        for (let i = 0; i < T; i++) {
          let max = -Infinity;
          for (let j = 0; j < T; j++) {
            let s = 0;
            for (let d = 0; d < D; d++) s += q[i * H + ho + d]! * k[j * H + ho + d]!;
            s *= scale;
            scores[j] = s;
            if (s > max) max = s;
          }
          let sum = 0;
          for (let j = 0; j < T; j++) {
            const e = Math.exp(scores[j]! - max);
            scores[j] = e;
            sum += e;
          }
          for (let j = 0; j < T; j++) {
            const a = scores[j]! / sum;
            for (let d = 0; d < D; d++) ctx[i * H + ho + d]! += a * v[j * H + ho + d]!;
          }
        }
      }
      const attnOut = linear(ctx, T, this.p(pre + "attention.output.dense.weight"), this.p(pre + "attention.output.dense.bias"), H, H);
      for (let i = 0; i < attnOut.length; i++) attnOut[i]! += x[i]!;
      layerNormInPlace(attnOut, T, H, this.p(pre + "attention.output.LayerNorm.weight"), this.p(pre + "attention.output.LayerNorm.bias"), eps);
      const inter = linear(attnOut, T, this.p(pre + "intermediate.dense.weight"), this.p(pre + "intermediate.dense.bias"), H, I);
      for (let i = 0; i < inter.length; i++) inter[i] = gelu(inter[i]!);
      const out = linear(inter, T, this.p(pre + "output.dense.weight"), this.p(pre + "output.dense.bias"), I, H);
      for (let i = 0; i < out.length; i++) out[i]! += attnOut[i]!;
      layerNormInPlace(out, T, H, this.p(pre + "output.LayerNorm.weight"), this.p(pre + "output.LayerNorm.bias"), eps);
      x = out;
    }

    const pooled = new Float32Array(H);
    for (let t = 0; t < T; t++) for (let i = 0; i < H; i++) pooled[i]! += x[t * H + i]! / T;
    let n = 0;
    for (let i = 0; i < H; i++) n += pooled[i]! * pooled[i]!;
    const inv = 1 / Math.max(1e-12, Math.sqrt(n));
    for (let i = 0; i < H; i++) pooled[i]! *= inv;
    return pooled;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    // Conversation repeats itself ("Yeah.", "Right.", "Okay."): embed each distinct text once.
    const seen = new Map<string, Float32Array>();
    const out: Float32Array[] = [];
    let computed = 0;
    for (const t of texts) {
      let v = seen.get(t);
      if (!v) {
        v = this.embedOne(t);
        seen.set(t, v);
        // Yield now and then so a long episode does not starve the HTTP server's event loop.
        if (++computed % 16 === 0) await new Promise((r) => setImmediate(r));
      }
      out.push(v);
    }
    return out;
  }
}

/**
 * The same model on several worker threads: distinct texts are split into contiguous shares, one per
 * thread. Each thread holds its own ~90 MB copy of the weights.
 */
/** Bun's Worker also has ref()/unref() (the DOM typings do not know them). */
type BunWorker = Worker & { ref(): void; unref(): void };

export class MiniLmPool implements Embedder {
  readonly dimensions = 384;
  private nextId = 0;
  private pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();

  private constructor(
    readonly model: string,
    private readonly workers: BunWorker[],
  ) {
    for (const w of workers) {
      w.onmessage = (e: MessageEvent) => {
        const m = e.data as { type: string; id?: number; vectors?: Float32Array[]; message?: string };
        const p = m.id === undefined ? undefined : this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id!);
        if (m.type === "vectors") p.resolve(m.vectors!);
        else p.reject(new Error(`${model} worker: ${m.message}`));
      };
    }
  }

  static async start(model: string, dir: string, threads: number): Promise<MiniLmPool> {
    const workers = await Promise.all(
      Array.from({ length: threads }, async () => {
        const w = new Worker(new URL("./embedder-minilm-worker.ts", import.meta.url).href) as BunWorker;
        await new Promise<void>((resolve, reject) => {
          w.onmessage = (e: MessageEvent) => (e.data.type === "ready" ? resolve() : reject(new Error(`${model} worker: ${e.data.message}`)));
          w.onerror = (e) => reject(new Error(`${model} worker failed: ${e.message}`));
          w.postMessage({ type: "load", model, dir });
        });
        // An idle pool must not keep a CLI process alive.
        w.unref();
        return w;
      }),
    );
    return new MiniLmPool(model, workers);
  }

  private run(w: BunWorker, texts: string[]): Promise<Float32Array[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage({ type: "embed", id, texts });
    }).finally(() => w.unref()) as Promise<Float32Array[]>;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const distinct = [...new Set(texts)];
    const share = Math.ceil(distinct.length / this.workers.length);
    const parts = await Promise.all(this.workers.map((w, i) => this.run(w, distinct.slice(i * share, (i + 1) * share))));
    const byText = new Map<string, Float32Array>();
    distinct.forEach((t, i) => byText.set(t, parts[Math.floor(i / share)]![i % share]!));
    return texts.map((t) => byText.get(t)!);
  }

  close(): void {
    for (const w of this.workers) w.terminate();
  }
}
