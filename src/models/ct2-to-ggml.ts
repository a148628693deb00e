/**
 * Converts a CTranslate2 Whisper model (model.bin + tokenizer.json, as faster-whisper publishes them)
 * to whisper.cpp's ggml file (the layout of whisper.cpp's models/convert-pt-to-ggml.py), because no
 * registry carries ggml weights that match whisper.cpp's published checksums while the CTranslate2
 * files are checksum-verified by the manifest. Pure byte shuffling: float16 weights are copied as they
 * are, 1-D tensors, conv biases and position tables widened to float32 exactly as the reference script
 * does; nothing depends on time, locale or map order, so the same input gives the same bytes.
 */
import { closeSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";

/** Bumped whenever the output bytes for the same input could change; recorded in the manifest. */
export const CT2_TO_GGML_VERSION = "1";

const GGML_MAGIC = 0x67676d6c; // "ggml"
/** ggml tensor types (ggml.h) and the file types whisper.cpp's header names (f16, or q8_0 as its quantize tool writes it). */
const GGML_F32 = 0;
const GGML_F16 = 1;
const GGML_Q8_0 = 8;
type GgmlType = typeof GGML_F32 | typeof GGML_F16 | typeof GGML_Q8_0;
const FTYPE: Record<GgmlWeights, number> = { f16: 1, q8_0: 2 * 1000 + 7 }; // GGML_QNT_VERSION * GGML_QNT_VERSION_FACTOR + GGML_FTYPE_MOSTLY_Q8_0
const Q8_0_BLOCK = 32;

/** How the 2-D weights are stored: float16 as published, or ggml's 8-bit blocks (like `whisper.cpp/quantize … q8_0`). */
export type GgmlWeights = "f16" | "q8_0";
const CT2_BINARY_VERSION = 6;
const SAMPLE_RATE = 16000;
const N_FFT = 400;

/** CTranslate2's DataType enum (include/ctranslate2/types.h). */
const CT2_FLOAT32 = 0;
const CT2_INT8 = 1;
const CT2_INT16 = 2;
const CT2_INT32 = 3;
const CT2_FLOAT16 = 4;

interface Ct2Variable {
  dims: number[];
  type: number;
  data: Uint8Array;
}

/** Reads CTranslate2's model.bin (src/models/model.cc: version, spec name, revision, variables, aliases). */
export function readCt2Model(bytes: Uint8Array): { spec: string; variables: Map<string, Ct2Variable> } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let off = 0;
  const u8 = () => view.getUint8(off++);
  const u16 = () => ((off += 2), view.getUint16(off - 2, true));
  const u32 = () => ((off += 4), view.getUint32(off - 4, true));
  const str = () => {
    const n = u16(); // length including the terminating NUL
    const s = new TextDecoder().decode(bytes.subarray(off, off + n - 1));
    off += n;
    return s;
  };
  const version = u32();
  if (version !== CT2_BINARY_VERSION) throw new Error(`CTranslate2 model.bin version ${version} (this converter reads version ${CT2_BINARY_VERSION})`);
  const spec = str();
  u32(); // spec revision: the tensor names below are what matters
  const count = u32();
  const variables = new Map<string, Ct2Variable>();
  for (let i = 0; i < count; i++) {
    const name = str();
    const rank = u8();
    const dims = Array.from({ length: rank }, u32);
    const type = u8();
    const size = u32();
    variables.set(name, { dims, type, data: bytes.subarray(off, off + size) });
    off += size;
  }
  const aliases = u32();
  for (let i = 0; i < aliases; i++) {
    const alias = str();
    const target = variables.get(str());
    if (target) variables.set(alias, target);
  }
  if (off !== bytes.length) throw new Error(`CTranslate2 model.bin: ${bytes.length - off} unread bytes after the aliases`);
  return { spec, variables };
}

function scalar(v: Ct2Variable): number {
  const view = new DataView(v.data.buffer, v.data.byteOffset, v.data.byteLength);
  if (v.type === CT2_INT8) return view.getInt8(0);
  if (v.type === CT2_INT16) return view.getInt16(0, true);
  if (v.type === CT2_INT32) return view.getInt32(0, true);
  throw new Error(`expected an integer scalar, got CTranslate2 type ${v.type}`);
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function toFloat32Bytes(v: Ct2Variable): Uint8Array {
  if (v.type === CT2_FLOAT32) return v.data;
  if (v.type !== CT2_FLOAT16) throw new Error(`expected float16 or float32 weights, got CTranslate2 type ${v.type}`);
  const n = v.data.byteLength / 2;
  const src = new DataView(v.data.buffer, v.data.byteOffset, v.data.byteLength);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = halfToFloat(src.getUint16(2 * i, true));
  return new Uint8Array(out.buffer);
}

/**
 * Whisper's 80×201 Slaney mel filterbank (librosa.filters.mel(sr=16000, n_fft=400, n_mels=80), the
 * matrix OpenAI ships as mel_filters.npz), computed with the same float64 steps as
 * faster_whisper.feature_extractor.get_mel_filters so it can be checked against it.
 */
export function melFilters(nMels: number): Float32Array {
  const nFreqs = N_FFT / 2 + 1;
  const val = 1.0 / (N_FFT * (1.0 / SAMPLE_RATE));
  const fftFreqs = Array.from({ length: nFreqs }, (_, i) => i * val);
  const maxMel = 45.245640471924965;
  const step = maxMel / (nMels + 1);
  const mels = Array.from({ length: nMels + 2 }, (_, i) => (i === nMels + 1 ? maxMel : i * step));
  const fSp = 200.0 / 3;
  const minLogHz = 1000.0;
  const minLogMel = minLogHz / fSp;
  const logStep = Math.log(6.4) / 27.0;
  const freqs = mels.map((m) => (m >= minLogMel ? minLogHz * Math.exp(logStep * (m - minLogMel)) : fSp * m));
  const out = new Float32Array(nMels * nFreqs);
  for (let m = 0; m < nMels; m++) {
    const enorm = 2.0 / (freqs[m + 2]! - freqs[m]!);
    for (let k = 0; k < nFreqs; k++) {
      const lower = -(freqs[m]! - fftFreqs[k]!) / (freqs[m + 1]! - freqs[m]!);
      const upper = (freqs[m + 2]! - fftFreqs[k]!) / (freqs[m + 2]! - freqs[m + 1]!);
      out[m * nFreqs + k] = Math.max(0, Math.min(lower, upper)) * enorm;
    }
  }
  return out;
}

/** GPT-2's byte ↔ printable-character table: tokenizer.json spells byte-level BPE tokens with it. */
function unicodeToByte(): Map<string, number> {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map = new Map<string, number>();
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (printable.includes(b)) map.set(String.fromCodePoint(b), b);
    else map.set(String.fromCodePoint(256 + extra++), b);
  }
  return map;
}

/**
 * The BPE vocabulary (GPT-2's vocab.json: the regular tokens and <|endoftext|>) as raw bytes in id
 * order, as whisper.cpp reads it; the other special tokens it names itself from their ids.
 */
function vocabularyBytes(tokenizerJson: string): Uint8Array[] {
  const tok = JSON.parse(tokenizerJson) as { model: { type: string; vocab: Record<string, number> } };
  if (tok.model.type !== "BPE") throw new Error(`tokenizer.json: expected a BPE model, got ${tok.model.type}`);
  const byId: string[] = [];
  for (const [text, id] of Object.entries(tok.model.vocab)) byId[id] = text;
  const table = unicodeToByte();
  return Array.from({ length: byId.length }, (_, id) => {
    const text = byId[id];
    if (text === undefined) throw new Error(`tokenizer.json: no token with id ${id}`);
    return Uint8Array.from([...text].map((ch) => {
      const b = table.get(ch);
      if (b === undefined) throw new Error(`tokenizer.json: token ${id} has a character outside the byte table`);
      return b;
    }));
  });
}

interface GgmlTensor {
  name: string;
  /** PyTorch order (outermost first); written reversed, as ggml counts dimensions. */
  dims: number[];
  type: GgmlType;
  data: Uint8Array;
}

/** Rows [from, to) of a row-major float16 matrix whose rows hold `cols` values. */
function rows(v: Ct2Variable, from: number, to: number): Uint8Array {
  if (v.type !== CT2_FLOAT16) throw new Error(`expected float16 weights to split, got CTranslate2 type ${v.type}`);
  const cols = v.dims.slice(1).reduce((a, b) => a * b, 1);
  return v.data.subarray(from * cols * 2, to * cols * 2);
}

function isZero(bytes: Uint8Array): boolean {
  // float16 +0 and -0 only: CTranslate2 stores Whisper's absent key bias as zeros.
  for (let i = 0; i < bytes.length; i += 2) if ((bytes[i]! | (bytes[i + 1]! & 0x7f)) !== 0) return false;
  return true;
}

/** The whisper.cpp tensors, named as OpenAI's PyTorch checkpoint names them, in the reference order. */
function ggmlTensors(vars: Map<string, Ct2Variable>): { tensors: GgmlTensor[]; hparams: number[] } {
  const get = (name: string) => {
    const v = vars.get(name);
    if (!v) throw new Error(`CTranslate2 model has no variable '${name}'`);
    return v;
  };
  const tensors: GgmlTensor[] = [];
  const f16 = (name: string, v: Ct2Variable, data = v.data, dims = v.dims) => {
    if (v.type !== CT2_FLOAT16) throw new Error(`'${name}': expected float16 (a float16 CTranslate2 model), got type ${v.type}`);
    tensors.push({ name, dims, type: GGML_F16, data });
  };
  const f32 = (name: string, v: Ct2Variable, dims = v.dims) => tensors.push({ name, dims, type: GGML_F32, data: toFloat32Bytes(v) });
  const f32Slice = (name: string, v: Ct2Variable, from: number, to: number) =>
    f32(name, { dims: [to - from], type: v.type, data: rows(v, from, to) }, [to - from]);
  const layerNorm = (to: string, from: string) => {
    f32(`${to}.weight`, get(`${from}/gamma`));
    f32(`${to}.bias`, get(`${from}/beta`));
  };
  const linear = (to: string, from: string) => {
    f16(`${to}.weight`, get(`${from}/weight`));
    f32(`${to}.bias`, get(`${from}/bias`));
  };
  const state = get("encoder/conv1/weight").dims[0]!;
  /** Fused projections are split into Whisper's separate ones; Whisper's key has no bias. */
  const split = (names: string[], from: string) => {
    const w = get(`${from}/weight`);
    const b = get(`${from}/bias`);
    names.forEach((to, i) => {
      f16(`${to}.weight`, w, rows(w, i * state, (i + 1) * state), [state, w.dims[1]!]);
      if (to.endsWith(".key")) {
        if (!isZero(rows(b, i * state, (i + 1) * state))) throw new Error(`'${from}/bias': the key part is not zero, which whisper.cpp cannot represent`);
      } else f32Slice(`${to}.bias`, b, i * state, (i + 1) * state);
    });
  };
  const layers = (side: "encoder" | "decoder") => {
    let n = 0;
    while (vars.has(`${side}/layer_${n}/ffn/linear_0/weight`)) n++;
    return n;
  };

  const nEnc = layers("encoder");
  const nDec = layers("decoder");
  f32("encoder.positional_embedding", get("encoder/position_encodings/encodings"));
  const conv = (i: number) => {
    f16(`encoder.conv${i}.weight`, get(`encoder/conv${i}/weight`));
    const b = get(`encoder/conv${i}/bias`);
    f32(`encoder.conv${i}.bias`, b, [b.dims[0]!, 1]);
  };
  conv(1);
  conv(2);
  /** One residual block in OpenAI's order: self-attention, cross-attention (decoder only), MLP. */
  const block = (to: string, from: string, cross: boolean) => {
    split([`${to}.attn.query`, `${to}.attn.key`, `${to}.attn.value`], `${from}/self_attention/linear_0`);
    linear(`${to}.attn.out`, `${from}/self_attention/linear_1`);
    layerNorm(`${to}.attn_ln`, `${from}/self_attention/layer_norm`);
    if (cross) {
      linear(`${to}.cross_attn.query`, `${from}/attention/linear_0`);
      split([`${to}.cross_attn.key`, `${to}.cross_attn.value`], `${from}/attention/linear_1`);
      linear(`${to}.cross_attn.out`, `${from}/attention/linear_2`);
      layerNorm(`${to}.cross_attn_ln`, `${from}/attention/layer_norm`);
    }
    linear(`${to}.mlp.0`, `${from}/ffn/linear_0`);
    linear(`${to}.mlp.2`, `${from}/ffn/linear_1`);
    layerNorm(`${to}.mlp_ln`, `${from}/ffn/layer_norm`);
  };
  for (let i = 0; i < nEnc; i++) block(`encoder.blocks.${i}`, `encoder/layer_${i}`, false);
  layerNorm("encoder.ln_post", "encoder/layer_norm");
  f32("decoder.positional_embedding", get("decoder/position_encodings/encodings"));
  f16("decoder.token_embedding.weight", get("decoder/embeddings/weight"));
  for (let i = 0; i < nDec; i++) block(`decoder.blocks.${i}`, `decoder/layer_${i}`, true);
  layerNorm("decoder.ln", "decoder/layer_norm");

  const emb = get("decoder/embeddings/weight");
  const hparams = [
    emb.dims[0]!, // n_vocab
    get("encoder/position_encodings/encodings").dims[0]!, // n_audio_ctx
    state, // n_audio_state
    scalar(get("encoder/num_heads")),
    nEnc,
    get("decoder/position_encodings/encodings").dims[0]!, // n_text_ctx
    emb.dims[1]!, // n_text_state
    scalar(get("decoder/num_heads")),
    nDec,
    get("encoder/conv1/weight").dims[1]!, // n_mels
    1, // ftype: float16 (set per output below)
  ];
  return { tensors, hparams };
}

function int32s(...values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setInt32(4 * i, v, true));
  return out;
}

/** The ggml file as a list of byte chunks, in order. */
export function ct2ToGgmlChunks(modelBin: Uint8Array, tokenizerJson: string, weights: GgmlWeights = "f16"): Uint8Array[] {
  const { spec, variables } = readCt2Model(modelBin);
  if (spec !== "WhisperSpec") throw new Error(`not a Whisper model (CTranslate2 spec ${spec})`);
  const { tensors, hparams } = ggmlTensors(variables);
  const nMels = hparams[9]!;
  hparams[10] = FTYPE[weights];
  const chunks: Uint8Array[] = [int32s(GGML_MAGIC, ...hparams)];
  chunks.push(int32s(nMels, N_FFT / 2 + 1), new Uint8Array(melFilters(nMels).buffer));
  const vocab = vocabularyBytes(tokenizerJson);
  chunks.push(int32s(vocab.length));
  for (const token of vocab) chunks.push(int32s(token.length), token);
  const encoder = new TextEncoder();
  for (const t of tensors) {
    const name = encoder.encode(t.name);
    // whisper.cpp's quantize tool converts every 2-D float16 weight; conv kernels (3-D) stay float16.
    const q = weights === "q8_0" && t.type === GGML_F16 && t.dims.length === 2;
    chunks.push(int32s(t.dims.length, name.length, q ? GGML_Q8_0 : t.type), int32s(...[...t.dims].reverse()), name, q ? quantizeQ8_0(t.data) : t.data);
  }
  return chunks;
}

/**
 * ggml's reference q8_0 (quantize_row_q8_0_ref): per 32 values a float16 scale d = max|x| / 127, then
 * round(x / d) away from zero, in float32 arithmetic as the C code does it.
 */
function quantizeQ8_0(f16Bytes: Uint8Array): Uint8Array {
  const x = new Float32Array(new Float16Array(new Uint8Array(f16Bytes).buffer)); // a copy: Buffer.slice would be a view
  if (x.length % Q8_0_BLOCK) throw new Error(`q8_0 needs rows in blocks of ${Q8_0_BLOCK} values`);
  const blocks = x.length / Q8_0_BLOCK;
  const out = new Uint8Array(blocks * (2 + Q8_0_BLOCK));
  const scale = new Float16Array(1);
  for (let b = 0; b < blocks; b++) {
    let amax = 0;
    for (let j = 0; j < Q8_0_BLOCK; j++) amax = Math.max(amax, Math.abs(x[b * Q8_0_BLOCK + j]!));
    const d = Math.fround(amax / 127);
    const id = d ? Math.fround(1 / d) : 0;
    scale[0] = d;
    const at = b * (2 + Q8_0_BLOCK);
    out.set(new Uint8Array(scale.buffer), at);
    for (let j = 0; j < Q8_0_BLOCK; j++) {
      const v = Math.fround(x[b * Q8_0_BLOCK + j]! * id);
      out[at + 2 + j] = (Math.sign(v) * Math.round(Math.abs(v))) & 0xff;
    }
  }
  return out;
}

/** Writes the ggml file for the CTranslate2 model folder `ct2Dir` to `outPath` (atomically: temp file, then rename). */
export function convertCt2ToGgml(ct2Dir: string, outPath: string, weights: GgmlWeights = "f16"): void {
  const chunks = ct2ToGgmlChunks(readFileSync(`${ct2Dir}/model.bin`), readFileSync(`${ct2Dir}/tokenizer.json`, "utf8"), weights);
  const tmp = `${outPath}.partial`;
  const fd = openSync(tmp, "w");
  try {
    for (const c of chunks) writeSync(fd, c);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, outPath);
}
