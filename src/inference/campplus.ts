/**
 * 3D-Speaker CAM++ speaker embeddings in this process: the network of the speech worker's `campplus()`
 * (src/inference/speech-runtime/python/campplus.py) as an ONNX graph built in memory from the verified PyTorch
 * checkpoint, run by onnxruntime-node. Batch norms after a convolution are folded into its weights;
 * the rest become Mul/Add, so the graph is plain Conv/Relu/Sigmoid/pooling that ONNX Runtime runs fast.
 */
import type { PcmSource } from "../media/wav.ts";
import { FBANK_BINS, FBANK_SAMPLE_RATE, fbank, fbankFrames } from "../media/fbank.ts";
import type { Ort } from "./onnx/runtime.ts";
import type { TaskModel } from "./task-model.ts";
import { OnnxGraph } from "./onnx/graph.ts";
import { loadStateDict, type Tensor } from "./onnx/torch-checkpoint.ts";

export const EMBEDDING_DIM = 192;
/** Windows of equal length run as one batch of at most this many (the worker's batch). */
const BATCH = 8;
/** CAM++ pools context over segments of this many frames (after the TDNN's stride of 2). */
const SEG_POOL = 100;

type StateDict = Map<string, Tensor>;

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

/** A convolution's weights with the batch norm that follows it folded in: [weight, bias] constants. */
function foldedConv(g: OnnxGraph, sd: StateDict, conv: string, bn: string): [string, string] {
  const w = tensor(sd, conv);
  const { scale, shift } = bnAffine(sd, bn);
  const per = w.data.length / w.shape[0]!;
  const out = new Float32Array(w.data.length);
  for (let i = 0; i < out.length; i++) out[i] = (w.data as Float32Array)[i]! * scale[Math.floor(i / per)]!;
  return [g.constant(out, w.shape), g.constant(shift, [shift.length])];
}

function weight(g: OnnxGraph, sd: StateDict, name: string): string {
  const t = tensor(sd, name);
  return g.constant(t.data as Float32Array, t.shape);
}

/** Batch norm on a (B, C, T) value that no convolution precedes: x * scale + shift. */
function bn1d(g: OnnxGraph, sd: StateDict, x: string, name: string): string {
  const { scale, shift } = bnAffine(sd, name);
  const s = g.constant(scale, [scale.length, 1]);
  const b = g.constant(shift, [shift.length, 1]);
  return g.node("Add", [g.node("Mul", [x, s]), b]);
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

/** The mean of each 100-frame segment (the last one over the frames it has), repeated over its frames. */
function segmentPool(g: OnnxGraph, h: string): string {
  const pooled = g.node("AveragePool", [h], { kernel_shape: [SEG_POOL], strides: [SEG_POOL], ceil_mode: 1, count_include_pad: 0 });
  const spread = g.node("Expand", [g.node("Unsqueeze", [pooled, g.ints([3])]), g.ints([1, 1, 1, SEG_POOL])]);
  const flat = g.node("Reshape", [spread, g.ints([0, 0, -1])]);
  return g.node("Slice", [flat, g.ints([0]), g.node("Shape", [h], { start: 2, end: 3 }), g.ints([2])]);
}

function camDenseLayer(g: OnnxGraph, sd: StateDict, x: string, p: string, dilation: number): string {
  let h = g.node("Relu", [bn1d(g, sd, x, `${p}.nonlinear1.batchnorm`)]);
  h = g.node("Relu", [conv(g, h, ...foldedConv(g, sd, `${p}.linear1.weight`, `${p}.nonlinear2.batchnorm`), { kernel_shape: [1] })]);
  const c = `${p}.cam_layer`;
  const y = conv(g, h, weight(g, sd, `${c}.linear_local.weight`), undefined, { kernel_shape: [3], pads: [dilation, dilation], dilations: [dilation] });
  let context = g.node("Add", [g.node("ReduceMean", [h], { axes: [2], keepdims: 1 }), segmentPool(g, h)]);
  context = g.node("Relu", [conv(g, context, weight(g, sd, `${c}.linear1.weight`), weight(g, sd, `${c}.linear1.bias`), { kernel_shape: [1] })]);
  const mask = g.node("Sigmoid", [conv(g, context, weight(g, sd, `${c}.linear2.weight`), weight(g, sd, `${c}.linear2.bias`), { kernel_shape: [1] })]);
  return g.node("Mul", [y, mask]);
}

/** The ONNX model: input `feats` (B, T, 80) mean-normalised fbank, output `embedding` (B, 192). */
export function campplusOnnx(sd: StateDict): Uint8Array {
  const g = new OnnxGraph();
  const feats = g.input("feats", ["batch", "frames", FBANK_BINS]);
  let x = g.node("Unsqueeze", [g.node("Transpose", [feats], { perm: [0, 2, 1] }), g.ints([1])]);
  x = g.node("Relu", [conv(g, x, ...foldedConv(g, sd, "head.conv1.weight", "head.bn1"), { kernel_shape: [3, 3], pads: [1, 1, 1, 1] })]);
  for (const layer of ["layer1", "layer2"]) {
    x = resBlock(g, sd, x, `head.${layer}.0`, 2);
    x = resBlock(g, sd, x, `head.${layer}.1`, 1);
  }
  x = g.node("Relu", [conv(g, x, ...foldedConv(g, sd, "head.conv2.weight", "head.bn2"), { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [2, 1] })]);
  const channels = tensor(sd, "head.conv2.weight").shape[0]! * (FBANK_BINS / 8);
  x = g.node("Reshape", [x, g.ints([0, channels, -1])]);
  x = g.node("Relu", [conv(g, x, ...foldedConv(g, sd, "xvector.tdnn.linear.weight", "xvector.tdnn.nonlinear.batchnorm"), { kernel_shape: [5], pads: [2, 2], strides: [2] })]);
  for (const [i, layers, dilation] of [[1, 12, 1], [2, 24, 2], [3, 16, 2]] as const) {
    for (let j = 1; j <= layers; j++) x = g.node("Concat", [x, camDenseLayer(g, sd, x, `xvector.block${i}.tdnnd${j}`, dilation)], { axis: 1 });
    x = g.node("Relu", [bn1d(g, sd, x, `xvector.transit${i}.nonlinear.batchnorm`)]);
    x = conv(g, x, weight(g, sd, `xvector.transit${i}.linear.weight`), undefined, { kernel_shape: [1] });
  }
  x = g.node("Relu", [bn1d(g, sd, x, "xvector.out_nonlinear.batchnorm")]);
  // Statistics pooling: mean and the unbiased standard deviation over time.
  const mean = g.node("ReduceMean", [x], { axes: [2], keepdims: 1 });
  const d = g.node("Sub", [x, mean]);
  const frames = g.node("Cast", [g.node("Shape", [x], { start: 2, end: 3 })], { to: 1 });
  const unbias = g.node("Div", [frames, g.node("Sub", [frames, g.constant([1], [1])])]);
  const std = g.node("Sqrt", [g.node("Mul", [g.node("ReduceMean", [g.node("Mul", [d, d])], { axes: [2], keepdims: 0 }), unbias])]);
  const stats = g.node("Concat", [g.node("Squeeze", [mean, g.ints([2])]), std], { axis: 1 });
  const dense = tensor(sd, "xvector.dense.linear.weight");
  const [w, b] = foldedConv(g, sd, "xvector.dense.linear.weight", "xvector.dense.nonlinear.batchnorm");
  const w2 = g.node("Reshape", [w, g.ints([dense.shape[0]!, dense.shape[1]!])]);
  const emb = g.node("Gemm", [stats, w2, b], { transB: 1 });
  return g.model(emb, "embedding", ["batch", EMBEDDING_DIM]);
}

type Session = Awaited<ReturnType<Ort["InferenceSession"]["create"]>>;

export class CamPlusPlus implements TaskModel {
  private constructor(private readonly ort: Ort, private readonly session: Session) {}

  /** Reads the verified checkpoint and builds the graph in memory (nothing is written to disk). */
  static async open(ort: Ort, checkpointPath: string, threads = 1): Promise<CamPlusPlus> {
    const model = campplusOnnx(loadStateDict(checkpointPath));
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
