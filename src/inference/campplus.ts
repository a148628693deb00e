/**
 * 3D-Speaker CAM++ speaker embeddings in this process: the network of the speech worker's `campplus()`
 * (src/inference/speech-runtime/python/campplus.py) as an ONNX graph built in memory from the verified PyTorch
 * checkpoint, run by onnxruntime-node. Batch norms after a convolution are folded into its weights;
 * the rest become Mul/Add.
 *
 * The D-TDNN after the FCM head runs time-major, (B, T, C), where PyTorch runs (B, C, T): its 1×1
 * convolutions are then MatMuls of the activations by the transposed weights (which int8 weights, as
 * ONNX Runtime's DynamicQuantizeMatMul takes them, also need), batch norms broadcast over the last
 * axis, and the dense layers concatenate on it. The dilated kernel-3 convolution is one product with
 * its three taps side by side, [K, 3 × 32], whose slices are added back shifted by the dilation. The
 * context branch (the window's mean plus each 100-frame segment's mean, then two small 1×1
 * convolutions) is constant within a segment, so it runs once per segment and is spread over the
 * frames afterwards, where PyTorch runs it on every frame: the same arithmetic, 17-20 % less CPU
 * (docs/benchmarks/speed.md).
 */
import type { PcmSource } from "../media/wav.ts";
import { FBANK_BINS, FBANK_SAMPLE_RATE, fbank, fbankFrames } from "../media/fbank.ts";
import type { Ort } from "./onnx/runtime.ts";
import type { TaskModel } from "./task-model.ts";
import { OnnxGraph } from "./onnx/graph.ts";
import { floatMatMul, type MatMulOp } from "./onnx/quantize.ts";
import { loadStateDict, type Tensor } from "./onnx/torch-checkpoint.ts";

export const EMBEDDING_DIM = 192;
/** Windows of equal length run as one batch of at most this many (the worker's batch). */
const BATCH = 8;
/** CAM++ pools context over segments of this many frames (after the TDNN's stride of 2). */
const SEG_POOL = 100;

export type StateDict = Map<string, Tensor>;

function tensor(sd: StateDict, name: string): Tensor {
  const t = sd.get(name);
  if (!t) throw new Error(`CAM++ checkpoint has no ${name}`);
  return t;
}

/** Inference batch norm as one scale and shift per channel (a norm without affine has neither weight nor bias). */
function bnAffine(sd: StateDict, name: string, eps = 1e-5): { scale: Float32Array; shift: Float32Array } {
  const mean = tensor(sd, `${name}.running_mean`).data as Float32Array;
  const variance = tensor(sd, `${name}.running_var`).data as Float32Array;
  const w = sd.get(`${name}.weight`)?.data as Float32Array | undefined;
  const b = sd.get(`${name}.bias`)?.data as Float32Array | undefined;
  const scale = new Float32Array(mean.length);
  const shift = new Float32Array(mean.length);
  for (let c = 0; c < mean.length; c++) {
    const s = 1 / Math.sqrt(variance[c]! + eps);
    scale[c] = s * (w ? w[c]! : 1);
    shift[c] = -mean[c]! * s * (w ? w[c]! : 1) + (b ? b[c]! : 0);
  }
  return { scale, shift };
}

/** A convolution's weights with the batch norm that follows it folded in. */
function foldedConvWeights(sd: StateDict, conv: string, bn: string): { weight: Float32Array; shape: number[]; bias: Float32Array } {
  const w = tensor(sd, conv);
  const { scale, shift } = bnAffine(sd, bn);
  const per = w.data.length / w.shape[0]!;
  const out = new Float32Array(w.data.length);
  for (let i = 0; i < out.length; i++) out[i] = (w.data as Float32Array)[i]! * scale[Math.floor(i / per)]!;
  return { weight: out, shape: w.shape, bias: shift };
}

/** The same as [weight, bias] constants. */
function foldedConv(g: OnnxGraph, sd: StateDict, conv: string, bn: string): [string, string] {
  const { weight, shape, bias } = foldedConvWeights(sd, conv, bn);
  return [g.constant(weight, shape), g.constant(bias, [bias.length])];
}

function conv(g: OnnxGraph, x: string, w: string, b: string | undefined, attrs: Record<string, number[]>): string {
  return g.node("Conv", b ? [x, w, b] : [x, w], attrs);
}

function resBlock(g: OnnxGraph, sd: StateDict, x: string, p: string, stride: number): string {
  let out = g.node("Relu", [conv(g, x, ...foldedConv(g, sd, `${p}.conv1.weight`, `${p}.bn1`), { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [stride, 1] })]);
  out = conv(g, out, ...foldedConv(g, sd, `${p}.conv2.weight`, `${p}.bn2`), { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [1, 1] });
  const shortcut = sd.has(`${p}.shortcut.0.weight`)
    ? conv(g, x, ...foldedConv(g, sd, `${p}.shortcut.0.weight`, `${p}.shortcut.1`), { kernel_shape: [1, 1], pads: [0, 0, 0, 0], strides: [stride, 1] })
    : x;
  return g.node("Relu", [g.node("Add", [out, shortcut])]);
}

/** Batch norm over the last axis of a (B, T, C) value: x * scale + shift. */
function bnLast(g: OnnxGraph, sd: StateDict, x: string, name: string): string {
  const { scale, shift } = bnAffine(sd, name);
  return g.node("Add", [g.node("Mul", [x, g.constant(scale, [scale.length])]), g.constant(shift, [shift.length])]);
}

/** A Conv1d weight [out, in, k] as the [in, k × out] matrix whose column k × out + o is tap k of output o. */
function tapsSideBySide(w: Float32Array, shape: number[]): Float32Array {
  const [out, inp, k] = shape as [number, number, number];
  const m = new Float32Array(inp * k * out);
  for (let o = 0; o < out; o++) {
    for (let i = 0; i < inp; i++) {
      for (let t = 0; t < k; t++) m[i * k * out + t * out + o] = w[(o * inp + i) * k + t]!;
    }
  }
  return m;
}

/**
 * The context branch's pooling as two matrices, built once per run from the number of frames T (every
 * dense layer has the same): `average` (S, T) gives each of the S 100-frame segments the mean of the
 * whole window plus its own mean (the last segment over the frames it has), `spread` (T, S) copies a
 * segment's value back to its frames. A MatMul with each replaces a ReduceMean, an AveragePool and an
 * Expand per layer.
 */
function contextPooling(g: OnnxGraph, x: string): { average: string; spread: string } {
  const frames = g.node("Squeeze", [g.node("Shape", [x], { start: 1, end: 2 }), g.ints([0])]);
  const t = g.node("Range", [g.constant(BigInt64Array.of(0n), []), frames, g.constant(BigInt64Array.of(1n), [])]);
  const size = g.constant(BigInt64Array.of(BigInt(SEG_POOL)), []);
  const segmentOf = g.node("Div", [t, size]);
  const count = g.node("Div", [g.node("Add", [frames, g.constant(BigInt64Array.of(BigInt(SEG_POOL - 1)), [])]), size]);
  const s = g.node("Range", [g.constant(BigInt64Array.of(0n), []), count, g.constant(BigInt64Array.of(1n), [])]);
  const member = g.node("Cast", [g.node("Equal", [g.node("Unsqueeze", [s, g.ints([1])]), g.node("Unsqueeze", [segmentOf, g.ints([0])])])], { to: 1 });
  const perSegment = g.node("Div", [member, g.node("ReduceSum", [member, g.ints([1])], { keepdims: 1 })]);
  const whole = g.node("Reciprocal", [g.node("Cast", [frames], { to: 1 })]);
  return { average: g.node("Add", [perSegment, whole]), spread: g.node("Transpose", [member], { perm: [1, 0] }) };
}

function camDenseLayer(g: OnnxGraph, sd: StateDict, x: string, p: string, dilation: number, matmul: MatMulOp, pool: { average: string; spread: string }): string {
  let h = g.node("Relu", [bnLast(g, sd, x, `${p}.nonlinear1.batchnorm`)]);
  const l1 = foldedConvWeights(sd, `${p}.linear1.weight`, `${p}.nonlinear2.batchnorm`);
  const [mid, inp] = l1.shape as [number, number];
  h = g.node("Relu", [matmul(g, h, tapsSideBySide(l1.weight, [mid, inp, 1]), inp, mid, l1.bias)]);
  const c = `${p}.cam_layer`;

  // The dilated kernel-3 convolution: y[t] = z0[t - d] + z1[t] + z2[t + d], with zero padding at the ends.
  const local = tensor(sd, `${c}.linear_local.weight`);
  const [out, , taps] = local.shape as [number, number, number];
  const z = matmul(g, h, tapsSideBySide(local.data as Float32Array, local.shape), mid, taps * out);
  const d = dilation;
  const zp = g.node("Pad", [z, g.ints([0, d, 0, 0, d, 0])]);
  const tap = (k: number) => g.node("Slice", [zp, g.ints([k * d, k * out]), g.ints([k === taps - 1 ? Number.MAX_SAFE_INTEGER : k * d - (taps - 1) * d, (k + 1) * out]), g.ints([1, 2])]);
  let y = tap(0);
  for (let k = 1; k < taps; k++) y = g.node("Add", [y, tap(k)]);

  // Context: the whole window's mean plus each 100-frame segment's mean, once per segment.
  const small = (name: string, v: string) => {
    const w = tensor(sd, `${c}.${name}.weight`);
    const [o, i] = w.shape as [number, number];
    // Once per segment, a few rows: float, whatever the precision of the rest.
    return g.node("Add", [g.node("MatMul", [v, g.constant(tapsSideBySide(w.data as Float32Array, [o, i, 1]), [i, o])]), g.constant(tensor(sd, `${c}.${name}.bias`).data as Float32Array, [o])]);
  };
  const context = g.node("Relu", [small("linear1", g.node("MatMul", [pool.average, h]))]);
  const mask = g.node("Sigmoid", [small("linear2", context)]);
  return g.node("Mul", [y, g.node("MatMul", [pool.spread, mask])]);
}

/** The FCM head (2-D convolutions over frequency and time) and the first TDNN layer: (B, 128, T / 2). */
function campplusHead(g: OnnxGraph, sd: StateDict, feats: string): string {
  let x = g.node("Unsqueeze", [g.node("Transpose", [feats], { perm: [0, 2, 1] }), g.ints([1])]);
  x = g.node("Relu", [conv(g, x, ...foldedConv(g, sd, "head.conv1.weight", "head.bn1"), { kernel_shape: [3, 3], pads: [1, 1, 1, 1] })]);
  for (const layer of ["layer1", "layer2"]) {
    x = resBlock(g, sd, x, `head.${layer}.0`, 2);
    x = resBlock(g, sd, x, `head.${layer}.1`, 1);
  }
  x = g.node("Relu", [conv(g, x, ...foldedConv(g, sd, "head.conv2.weight", "head.bn2"), { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [2, 1] })]);
  const channels = tensor(sd, "head.conv2.weight").shape[0]! * (FBANK_BINS / 8);
  x = g.node("Reshape", [x, g.ints([0, channels, -1])]);
  return g.node("Relu", [conv(g, x, ...foldedConv(g, sd, "xvector.tdnn.linear.weight", "xvector.tdnn.nonlinear.batchnorm"), { kernel_shape: [5], pads: [2, 2], strides: [2] })]);
}

/** Statistics pooling over the time of the (B, T, C) `x` (mean and unbiased standard deviation) and the dense layer: (B, 192). */
function campplusEmbedding(g: OnnxGraph, sd: StateDict, x: string): string {
  const timeAxis = 1;
  const mean = g.node("ReduceMean", [x], { axes: [timeAxis], keepdims: 1 });
  const d = g.node("Sub", [x, mean]);
  const frames = g.node("Cast", [g.node("Shape", [x], { start: timeAxis, end: timeAxis + 1 })], { to: 1 });
  const unbias = g.node("Div", [frames, g.node("Sub", [frames, g.constant([1], [1])])]);
  const std = g.node("Sqrt", [g.node("Mul", [g.node("ReduceMean", [g.node("Mul", [d, d])], { axes: [timeAxis], keepdims: 0 }), unbias])]);
  const stats = g.node("Concat", [g.node("Squeeze", [mean, g.ints([timeAxis])]), std], { axis: 1 });
  const dense = tensor(sd, "xvector.dense.linear.weight");
  const [w, b] = foldedConv(g, sd, "xvector.dense.linear.weight", "xvector.dense.nonlinear.batchnorm");
  const w2 = g.node("Reshape", [w, g.ints([dense.shape[0]!, dense.shape[1]!])]);
  return g.node("Gemm", [stats, w2, b], { transB: 1 });
}

/** The D-TDNN blocks: (dense layers per block, dilation of their context convolution). */
const DTDNN_BLOCKS = [[1, 12, 1], [2, 24, 2], [3, 16, 2]] as const;

/**
 * The ONNX model: input `feats` (B, T, 80) mean-normalised fbank, output `embedding` (B, 192). The
 * D-TDNN's 1×1 convolutions are `matmul` products: float, or int8 weights (quantize.ts; measured and
 * not adopted, docs/benchmarks/speed.md).
 */
export function campplusOnnx(sd: StateDict, matmul: MatMulOp = floatMatMul): Uint8Array {
  const g = new OnnxGraph();
  const feats = g.input("feats", ["batch", "frames", FBANK_BINS]);
  let x = g.node("Transpose", [campplusHead(g, sd, feats)], { perm: [0, 2, 1] });
  const pool = contextPooling(g, x);
  for (const [i, layers, dilation] of DTDNN_BLOCKS) {
    for (let j = 1; j <= layers; j++) x = g.node("Concat", [x, camDenseLayer(g, sd, x, `xvector.block${i}.tdnnd${j}`, dilation, matmul, pool)], { axis: 2 });
    x = g.node("Relu", [bnLast(g, sd, x, `xvector.transit${i}.nonlinear.batchnorm`)]);
    const w = tensor(sd, `xvector.transit${i}.linear.weight`);
    const [o, inp] = w.shape as [number, number];
    x = matmul(g, x, tapsSideBySide(w.data as Float32Array, [o, inp, 1]), inp, o);
  }
  x = g.node("Relu", [bnLast(g, sd, x, "xvector.out_nonlinear.batchnorm")]);
  return g.model(campplusEmbedding(g, sd, x), "embedding", ["batch", EMBEDDING_DIM]);
}

type Session = Awaited<ReturnType<Ort["InferenceSession"]["create"]>>;

export class CamPlusPlus implements TaskModel {
  private constructor(private readonly ort: Ort, private readonly session: Session) {}

  /** Reads the verified checkpoint and builds the graph in memory (nothing is written to disk). */
  static async open(ort: Ort, checkpointPath: string, threads = 1, graph: (sd: StateDict) => Uint8Array = campplusOnnx): Promise<CamPlusPlus> {
    const model = graph(loadStateDict(checkpointPath));
    const session = await ort.InferenceSession.create(model, { intraOpNumThreads: threads, interOpNumThreads: 1, executionProviders: ["cpu"], graphOptimizationLevel: "all" });
    return new CamPlusPlus(ort, session);
  }

  /** Embeddings of (B, T, 80) features. */
  async run(feats: Float32Array, batch: number, frames: number): Promise<Float32Array> {
    const out = await this.session.run({ feats: new this.ort.Tensor("float32", feats, [batch, frames, FBANK_BINS]) });
    return out.embedding!.data as Float32Array;
  }

  /**
   * One 192-dim embedding per [start, end] window (seconds), as the worker's `speakers` command
   * computes them: each window's samples read from `audio` when its batch comes (memory stays flat in
   * the episode's length), windows of equal length batched together, values rounded to 5 decimals.
   */
  async embed(audio: PcmSource, windows: [number, number][], signal?: AbortSignal): Promise<number[][]> {
    if (audio.sampleRate !== FBANK_SAMPLE_RATE) throw new Error(`CAM++ reads ${FBANK_SAMPLE_RATE} Hz audio, got ${audio.sampleRate} Hz`);
    const total = audio.length;
    const sr = FBANK_SAMPLE_RATE;
    const byLength = new Map<number, { i: number; a: number }[]>();
    windows.forEach(([start, end], i) => {
      const a = Math.floor(Math.max(0, start) * sr);
      const b = Math.floor(Math.min(total / sr, end) * sr);
      // At least one 25 ms frame; the group is by the samples a window can actually read.
      const n = Math.min(total, a + Math.max(b - a, 400)) - a;
      const group = byLength.get(n) ?? [];
      group.push({ i, a });
      byLength.set(n, group);
    });
    const result = new Array<number[]>(windows.length);
    for (const [length, items] of byLength) {
      const frames = fbankFrames(length);
      for (let k = 0; k < items.length; k += BATCH) {
        signal?.throwIfAborted();
        const chunk = items.slice(k, k + BATCH);
        const feats = new Float32Array(chunk.length * frames * FBANK_BINS);
        chunk.forEach(({ a }, j) => fbank(audio.read(a, length), feats.subarray(j * frames * FBANK_BINS, (j + 1) * frames * FBANK_BINS)));
        const emb = await this.run(feats, chunk.length, frames);
        chunk.forEach(({ i }, j) => {
          result[i] = Array.from(emb.subarray(j * EMBEDDING_DIM, (j + 1) * EMBEDDING_DIM), (v) => Math.round(v * 1e5) / 1e5);
        });
      }
    }
    return result;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
