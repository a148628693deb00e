#!/usr/bin/env bun
/**
 * CPU cost of the in-process speaker models, and CAM++ with int8 D-TDNN weights against float (measured
 * and not adopted: docs/benchmarks/speed.md). CAM++ runs on the diarizer's 1.5 s windows (hop 0.75 s)
 * over the whole audio, pyannote segmentation-3.0 over it in 10 s chunks every 5 s, as the transcribe
 * stage runs them, one onnxruntime thread each.
 * Every variant runs `--repeat` times, round-robin so load drifts hit them alike, and the least CPU is
 * kept. Agreement is with the float graph's embeddings, by cosine (min and mean over windows).
 *
 *   bun scripts/bench/speaker-models.ts [--repeat 3] [--call-loops 4] [--meetings meeting_trn03,meeting_trn04,meeting_trn05]
 *
 * The audio: the shared phone call looped `--call-loops` times plus the named AMI meeting openings.
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { campplusOnnx, CamPlusPlus, type StateDict } from "../../src/inference/campplus.ts";
import { floatMatMul, int8MatMul, quantizedMatMul } from "../../src/inference/onnx/quantize.ts";
import { loadOnnxRuntime } from "../../src/inference/onnx/runtime.ts";
import { Segmentation, type SegmentationProbabilities } from "../../src/inference/segmentation.ts";
import { pcmSource, readWav, type PcmSource } from "../../src/media/wav.ts";
import { resolveModel } from "../../src/models/store.ts";
import { embeddingWindows } from "../../src/pipeline/transcribe/diarize-embeddings.ts";
import { SEGMENTATION_MODEL, SPEAKER_EMBEDDING_MODEL } from "../../src/pipeline/transcribe/diarize.ts";
import { cosine } from "../../src/pipeline/vector-math.ts";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { numberFlag, stringFlag, table } from "./load.ts";

const repeat = numberFlag("repeat", 3);
const loops = numberFlag("call-loops", 4);
const meetings = (stringFlag("meetings") ?? "meeting_trn03,meeting_trn04,meeting_trn05").split(",").filter(Boolean);

const loaded = await loadOnnxRuntime();
if (!loaded.ok) throw new Error(loaded.reason);
const ort = loaded.ort;

const recordings: Array<{ name: string; audio: PcmSource }> = [];
const call = readWav(join(SHARED_MEDIA, "two_speakers_call.wav"));
const looped = new Float32Array(call.samples.length * loops);
for (let i = 0; i < loops; i++) looped.set(call.samples, i * call.samples.length);
if (loops > 0) recordings.push({ name: `two_speakers_call ×${loops}`, audio: pcmSource({ samples: looped, sampleRate: call.sampleRate }) });
for (const m of meetings) recordings.push({ name: m, audio: pcmSource(readWav(join(SHARED_MEDIA, `${m}.wav`))) });
const seconds = recordings.reduce((s, r) => s + r.audio.length / r.audio.sampleRate, 0);

function cpuNow(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
}

interface Run<T> {
  cpu: number;
  wall: number;
  open: number;
  value: T[];
}

/** Opens the model (graph build and session, timed apart), runs it over every recording, closes it. */
async function measure<M extends { close(): Promise<void> }, T>(open: () => Promise<M>, use: (m: M, audio: PcmSource) => Promise<T>): Promise<Run<T>> {
  const o0 = cpuNow();
  const model = await open();
  const openCpu = cpuNow() - o0;
  const c0 = cpuNow();
  const t0 = performance.now();
  const value: T[] = [];
  try {
    for (const r of recordings) value.push(await use(model, r.audio));
  } finally {
    await model.close();
  }
  return { cpu: cpuNow() - c0, wall: (performance.now() - t0) / 1000, open: openCpu, value };
}

const windows = recordings.map((r) => embeddingWindows([[0, r.audio.length / r.audio.sampleRate]]).map((w): [number, number] => [w.start, w.end]));
const camPath = resolveModel(SPEAKER_EMBEDDING_MODEL);
const segPath = resolveModel(SEGMENTATION_MODEL);
const camVariants: Array<[string, (sd: StateDict) => Uint8Array]> = [
  ["float", (sd) => campplusOnnx(sd, floatMatMul)],
  ["int8 D-TDNN weights", (sd) => campplusOnnx(sd, int8MatMul)],
  ["int8 D-TDNN weights, 7-bit", (sd) => campplusOnnx(sd, quantizedMatMul(63))],
];

type Best<T> = Run<T> & { runs: number };
const keep = <T>(best: Best<T> | undefined, run: Run<T>): Best<T> => (best && best.cpu <= run.cpu ? { ...best, runs: best.runs + 1 } : { ...run, runs: (best?.runs ?? 0) + 1 });

const cam = new Map<string, Best<number[][]>>();
let seg: Best<SegmentationProbabilities> | undefined;
const load0 = loadavg()[0]!;
for (let r = 0; r < repeat; r++) {
  for (const [name, graph] of camVariants) {
    let k = 0;
    cam.set(name, keep(cam.get(name), await measure(() => CamPlusPlus.open(ort, camPath, 1, graph), (m, audio) => m.embed(audio, windows[k++]!))));
  }
  seg = keep(seg, await measure(() => Segmentation.open(ort, segPath, 1), (m, audio) => m.probabilities(audio, 5)));
}

const rows: Array<Record<string, string | number>> = [];
const floatCam = cam.get(camVariants[0]![0])!;
for (const [name, run] of cam) {
  const cos: number[] = [];
  run.value.forEach((file, f) => file.forEach((e, i) => cos.push(cosine(e, floatCam.value[f]![i]!))));
  rows.push({
    model: "CAM++",
    precision: name,
    "open cpu s": run.open.toFixed(2),
    "cpu s": run.cpu.toFixed(2),
    "wall s": run.wall.toFixed(2),
    "cpu ms / audio s": ((1000 * run.cpu) / seconds).toFixed(2),
    "vs float cpu": `${((100 * run.cpu) / floatCam.cpu).toFixed(0)} %`,
    agreement: `cosine min ${Math.min(...cos).toFixed(4)}, mean ${(cos.reduce((a, b) => a + b, 0) / cos.length).toFixed(5)} (${cos.length} windows)`,
  });
}
if (seg) {
  rows.push({
    model: "segmentation-3.0",
    precision: "float",
    "open cpu s": seg.open.toFixed(2),
    "cpu s": seg.cpu.toFixed(2),
    "wall s": seg.wall.toFixed(2),
    "cpu ms / audio s": ((1000 * seg.cpu) / seconds).toFixed(2),
    "vs float cpu": "100 %",
    // int8 LSTM weights (DynamicQuantizeLSTM) were measured once and not kept: docs/benchmarks/speed.md.
    agreement: "",
  });
}
console.log(`speaker models on ${seconds.toFixed(0)} s of audio (${recordings.map((r) => r.name).join(", ")}), one onnxruntime thread, least CPU of ${repeat} runs; ${cpus().length} cores (${cpus()[0]?.model}), load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`);
console.log(table(rows));
process.exit(0);
