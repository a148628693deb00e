/**
 * pyannote segmentation-3.0 (PyanNet: SincNet, four bidirectional LSTM layers, a 7-class powerset
 * output) in this process: the network of the speech worker's `segmentation()` and the chunking of its
 * `run_segment` (src/inference/speech-runtime/python/segmentation.py), as an ONNX graph built in memory from the
 * verified PyTorch checkpoint and run by onnxruntime-node.
 */
import type { PcmSource } from "../media/wav.ts";
import type { Ort } from "./onnx/runtime.ts";
import type { TaskModel } from "./task-model.ts";
import { OnnxGraph } from "./onnx/graph.ts";
import { loadStateDict, type Tensor } from "./onnx/torch-checkpoint.ts";

export const SEGMENTATION_SAMPLE_RATE = 16000;
/** The 10 s the model was trained on. */
const CHUNK = 160000;
/** Samples between output frames. */
const FRAME = 270;
/** Centre of the first frame's receptive field (991 samples). */
const FIRST = 495;
const BATCH = 4;
const CLASSES = 7;

type StateDict = Map<string, Tensor>;

function tensor(sd: StateDict, name: string): Tensor {
  const t = sd.get(name);
  if (!t) throw new Error(`segmentation checkpoint has no ${name}`);
  return t;
}

const f32 = (sd: StateDict, name: string) => tensor(sd, name).data as Float32Array;

/** SincNet's 80 band-pass filters (cosine and sine halves) of 251 taps, from the learnt band edges. */
export function sincFilters(sd: StateDict): Float32Array {
  const p = "sincnet.conv1d.0.filterbank.";
  const lowHz = f32(sd, p + "low_hz_");
  const bandHz = f32(sd, p + "band_hz_");
  const n = f32(sd, p + "n_");
  const win = f32(sd, p + "window_");
  const bands = lowHz.length;
  const half = n.length;
  const taps = 2 * half + 1;
  const out = new Float32Array(2 * bands * taps);
  for (let f = 0; f < bands; f++) {
    const low = 50 + Math.abs(lowHz[f]!);
    const high = Math.min(8000, Math.max(50, low + 50 + Math.abs(bandHz[f]!)));
    const band = high - low;
    const cos = out.subarray(f * taps, (f + 1) * taps);
    const sin = out.subarray((bands + f) * taps, (bands + f + 1) * taps);
    for (let k = 0; k < half; k++) {
      const c = ((Math.sin(high * n[k]!) - Math.sin(low * n[k]!)) / (n[k]! / 2)) * win[k]!;
      const s = ((Math.cos(low * n[k]!) - Math.cos(high * n[k]!)) / (n[k]! / 2)) * win[k]!;
      cos[k] = c / (2 * band);
      cos[taps - 1 - k] = c / (2 * band);
      sin[k] = s / (2 * band);
      sin[taps - 1 - k] = -s / (2 * band);
    }
    cos[half] = 1;
    sin[half] = 0;
  }
  return out;
}

/** PyTorch orders LSTM gates input, forget, cell, output; ONNX input, output, forget, cell. */
function onnxGates(t: Float32Array): Float32Array {
  const per = t.length / 4;
  const out = new Float32Array(t.length);
  [0, 3, 1, 2].forEach((from, to) => out.set(t.subarray(from * per, (from + 1) * per), to * per));
  return out;
}

function norm(g: OnnxGraph, sd: StateDict, x: string, name: string): string {
  const w = tensor(sd, `${name}.weight`);
  return g.node("InstanceNormalization", [x, g.constant(w.data as Float32Array, w.shape), g.constant(f32(sd, `${name}.bias`), w.shape)], { epsilon: { float: 1e-5 } });
}

const leaky = (g: OnnxGraph, x: string) => g.node("LeakyRelu", [x], { alpha: { float: 0.01 } });
const maxPool3 = (g: OnnxGraph, x: string) => g.node("MaxPool", [x], { kernel_shape: [3], strides: [3] });

/** The ONNX model: input `chunks` (B, 160000) samples, output `probs` (B, 589, 7) powerset probabilities. */
export function segmentationOnnx(sd: StateDict): Uint8Array {
  const g = new OnnxGraph();
  const chunks = g.input("chunks", ["batch", CHUNK]);
  let x = norm(g, sd, g.node("Unsqueeze", [chunks, g.ints([1])]), "sincnet.wav_norm1d");
  const filters = sincFilters(sd);
  const taps = f32(sd, "sincnet.conv1d.0.filterbank.n_").length * 2 + 1;
  x = g.node("Conv", [x, g.constant(filters, [filters.length / taps, 1, taps])], { kernel_shape: [taps], strides: [10] });
  x = leaky(g, norm(g, sd, maxPool3(g, g.node("Abs", [x])), "sincnet.norm1d.0"));
  for (const i of [1, 2]) {
    const w = tensor(sd, `sincnet.conv1d.${i}.weight`);
    x = g.node("Conv", [x, g.constant(w.data as Float32Array, w.shape), g.constant(f32(sd, `sincnet.conv1d.${i}.bias`), [w.shape[0]!])], { kernel_shape: [w.shape[2]!] });
    x = leaky(g, norm(g, sd, maxPool3(g, x), `sincnet.norm1d.${i}`));
  }
  x = g.node("Transpose", [x], { perm: [2, 0, 1] }); // T, B, C: the LSTM's default layout
  for (let layer = 0; ; layer++) {
    const name = `lstm.weight_ih_l${layer}`;
    if (!sd.has(name)) break;
    const hidden = tensor(sd, `lstm.weight_hh_l${layer}`).shape[1]!;
    const input = tensor(sd, name).shape[1]!;
    const dirs = ["", "_reverse"];
    const cat = (part: (d: string) => Float32Array) => {
      const parts = dirs.map(part);
      const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
      let off = 0;
      for (const p of parts) {
        out.set(p, off);
        off += p.length;
      }
      return out;
    };
    const W = g.constant(cat((d) => onnxGates(f32(sd, `lstm.weight_ih_l${layer}${d}`))), [2, 4 * hidden, input]);
    const R = g.constant(cat((d) => onnxGates(f32(sd, `lstm.weight_hh_l${layer}${d}`))), [2, 4 * hidden, hidden]);
    const B = g.constant(
      cat((d) => {
        const both = new Float32Array(8 * hidden);
        both.set(onnxGates(f32(sd, `lstm.bias_ih_l${layer}${d}`)), 0);
        both.set(onnxGates(f32(sd, `lstm.bias_hh_l${layer}${d}`)), 4 * hidden);
        return both;
      }),
      [2, 8 * hidden],
    );
    const y = g.node("LSTM", [x, W, R, B], { hidden_size: hidden, direction: "bidirectional" });
    // Y is (T, 2, B, H): both directions side by side per step, as PyTorch concatenates them.
    x = g.node("Reshape", [g.node("Transpose", [y], { perm: [0, 2, 1, 3] }), g.ints([0, 0, 2 * hidden])]);
  }
  x = g.node("Transpose", [x], { perm: [1, 0, 2] });
  for (const name of ["linear.0", "linear.1", "classifier"]) {
    const w = tensor(sd, `${name}.weight`);
    x = g.node("MatMul", [x, g.node("Transpose", [g.constant(w.data as Float32Array, w.shape)], { perm: [1, 0] })]);
    x = g.node("Add", [x, g.constant(f32(sd, `${name}.bias`), [w.shape[0]!])]);
    if (name !== "classifier") x = leaky(g, x);
  }
  return g.model(g.node("Softmax", [x], { axis: -1 }), "probs", ["batch", "frames", CLASSES]);
}

export interface SegmentationProbabilities {
  frame_seconds: number;
  /** Seconds from a chunk's start to its first frame (the centre of that frame's receptive field). */
  first_frame_seconds: number;
  /** Probability that someone speaks, per frame, averaged over the chunks that see it. */
  speech: number[];
  /** Probability that two people speak at once. */
  overlap: number[];
  /**
   * Each chunk's own speakers: its start (s) and, per frame, the most likely powerset class as a digit
   * (0 nobody; 1, 2, 3 one of the chunk's speakers; 4, 5, 6 the pairs 1+2, 1+3, 2+3). The numbering is
   * the chunk's own; `diarize-local.ts` names them.
   */
  chunks: Array<{ start: number; classes: string }>;
}

type Session = Awaited<ReturnType<Ort["InferenceSession"]["create"]>>;

export class Segmentation implements TaskModel {
  private constructor(private readonly ort: Ort, private readonly session: Session) {}

  /** Reads the verified checkpoint (`state_dict` inside pyannote's Lightning checkpoint) and builds the graph in memory. */
  static async open(ort: Ort, checkpointPath: string, threads = 1): Promise<Segmentation> {
    const model = segmentationOnnx(loadStateDict(checkpointPath, "state_dict"));
    const session = await ort.InferenceSession.create(model, { intraOpNumThreads: threads, interOpNumThreads: 1, executionProviders: ["cpu"], graphOptimizationLevel: "all" });
    return new Segmentation(ort, session);
  }

  /** Powerset probabilities (B, frames, 7) of B chunks of 160000 samples. */
  async run(chunks: Float32Array, batch: number): Promise<{ probs: Float32Array; frames: number }> {
    const out = await this.session.run({ chunks: new this.ort.Tensor("float32", chunks, [batch, CHUNK]) });
    return { probs: out.probs!.data as Float32Array, frames: out.probs!.dims[1]! };
  }

  /**
   * Speech and overlap probabilities over the whole audio, as the worker's `segment` command: 10 s
   * chunks every `step` seconds (the last one ending on the audio's end), read from `audio` a batch at
   * a time, averaged where they overlap, rounded to 3 decimals; and each chunk's most likely class
   * per frame, whose speaker numbers are the chunk's own.
   */
  async probabilities(audio: PcmSource, step = 5, onProgress?: (fraction: number) => void, signal?: AbortSignal): Promise<SegmentationProbabilities> {
    if (audio.sampleRate !== SEGMENTATION_SAMPLE_RATE) throw new Error(`segmentation reads ${SEGMENTATION_SAMPLE_RATE} Hz audio, got ${audio.sampleRate} Hz`);
    const total = audio.length;
    const hop = Math.floor(step * SEGMENTATION_SAMPLE_RATE);
    const last = Math.max(0, total - CHUNK);
    const starts: number[] = [];
    for (let a = 0; a <= last; a += hop) starts.push(a);
    if (starts[starts.length - 1] !== last) starts.push(last);
    const n = Math.max(1, Math.floor(total / FRAME));
    const speech = new Float64Array(n);
    const overlap = new Float64Array(n);
    const count = new Float64Array(n);
    const local: SegmentationProbabilities["chunks"] = [];
    for (let k = 0; k < starts.length; k += BATCH) {
      signal?.throwIfAborted();
      const batch = starts.slice(k, k + BATCH);
      const chunks = new Float32Array(batch.length * CHUNK);
      batch.forEach((a, j) => chunks.set(audio.read(a, Math.min(total, a + CHUNK) - a), j * CHUNK));
      const { probs, frames } = await this.run(chunks, batch.length);
      batch.forEach((a, j) => {
        const limit = Math.min(n, Math.floor((a + Math.min(CHUNK, total - a)) / FRAME) + 1);
        let classes = "";
        for (let f = 0; f < frames; f++) {
          const q = (j * frames + f) * CLASSES;
          let best = 0;
          for (let c = 1; c < CLASSES; c++) if (probs[q + c]! > probs[q + best]!) best = c;
          classes += best;
        }
        local.push({ start: a / SEGMENTATION_SAMPLE_RATE, classes });
        for (let f = 0; f < frames; f++) {
          const idx = Math.floor((a + FIRST + f * FRAME) / FRAME);
          if (idx >= limit) continue;
          const p = (j * frames + f) * CLASSES;
          speech[idx]! += 1 - probs[p]!;
          overlap[idx]! += probs[p + 4]! + probs[p + 5]! + probs[p + 6]!;
          count[idx]! += 1;
        }
      });
      onProgress?.(Math.min(1, (k + batch.length) / starts.length));
    }
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return {
      frame_seconds: FRAME / SEGMENTATION_SAMPLE_RATE,
      first_frame_seconds: FIRST / SEGMENTATION_SAMPLE_RATE,
      chunks: local,
      speech: Array.from(speech, (v, i) => round(v / Math.max(count[i]!, 1))),
      overlap: Array.from(overlap, (v, i) => round(v / Math.max(count[i]!, 1))),
    };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
