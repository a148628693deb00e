/**
 * CPU time of diarization's neural models in each engine (CLIPYARD_SPEAKER_ENGINE): pyannote
 * segmentation-3.0 over the whole file, then CAM++ on the diarizer's own windows (Silero's speech plus
 * the segmentation's, cut by embeddingWindows), each engine from a cold start (checkpoint read, graph
 * built or Python started) on the same windows. In-process figures are this process's CPU time; the
 * worker's are its processes' CPU time.
 *
 *   bun scripts/bench/speaker-engines.ts FILE.wav [FILE.wav ...]   (16 kHz mono 16-bit WAVs)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveModel } from "../../src/models/store.ts";
import { openWav } from "../../src/media/wav.ts";
import { runWorker } from "../../src/inference/speech-runtime/worker.ts";
import { embeddingWindows } from "../../src/pipeline/transcribe/diarize-embeddings.ts";
import { SEGMENTATION_MODEL, SEGMENTATION_SPEECH, SPEAKER_EMBEDDING_MODEL } from "../../src/pipeline/transcribe/diarize.ts";
import { planSpeakerEngine, segmentationProbabilities, speakerEmbeddings } from "../../src/pipeline/transcribe/speaker-engine.ts";
import { mergeRegions, speechRegions } from "../../src/pipeline/transcribe/vad.ts";
import { speechProbabilities } from "../../src/pipeline/transcribe/vad-engine.ts";

const files = process.argv.slice(2);
const work = mkdtempSync(join(tmpdir(), "clipyard-bench-speakers-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
if (!files.length) throw new Error("usage: bun scripts/bench/speaker-engines.ts FILE.wav [...]");

const segModel = resolveModel(SEGMENTATION_MODEL);
const camModel = resolveModel(SPEAKER_EMBEDDING_MODEL);

async function inProcess<T>(fn: () => Promise<T>): Promise<{ value: T; cpu: number; wall: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, cpu: (c.user + c.system) / 1e6, wall: (performance.now() - t0) / 1000 };
}

console.log("| file | audio | windows | engine | segmentation cpu s | CAM++ cpu s | total cpu s | RSS after, MB |");
console.log("|---|---|---|---|---|---|---|---|");
for (const file of files) {
  const audio = openWav(file);
  const duration = audio.length / audio.sampleRate;
  const onnx = await planSpeakerEngine("onnxruntime");
  // The windows the diarizer would embed, computed once so both engines embed the same ones.
  const vad = await speechProbabilities(file, audio, resolveModel("silero-vad"));
  const seg0 = await segmentationProbabilities(onnx, segModel, file, audio);
  const regions = mergeRegions([...speechRegions(vad.probs, vad.frame_seconds, duration), ...speechRegions(seg0.speech, seg0.frame_seconds, duration, SEGMENTATION_SPEECH)]);
  const windows = embeddingWindows(regions).map((w): [number, number] => [w.start, w.end]);

  const segIn = await inProcess(() => segmentationProbabilities(onnx, segModel, file, audio));
  const camIn = await inProcess(() => speakerEmbeddings(onnx, camModel, file, audio, windows));
  const rss = process.memoryUsage().rss / 1e6;

  // The worker's figures are its own process's CPU time (runWorker's), with the same commands the engine runs.
  const segCpu = (await runWorker(["segment", "--model", segModel, "--audio", file], () => {})).cpuSeconds;
  const windowsFile = join(work, "speaker-windows.json");
  writeFileSync(windowsFile, JSON.stringify(windows));
  const camUsage = await runWorker(["speakers", "--model", camModel, "--audio", file, "--windows-file", windowsFile], () => {});

  const name = file.split("/").pop();
  const dur = `${(duration / 60).toFixed(1)} min`;
  console.log(`| ${name} | ${dur} | ${windows.length} | in-process (onnxruntime-node, 1 thread) | ${segIn.cpu.toFixed(2)} | ${camIn.cpu.toFixed(2)} | ${(segIn.cpu + camIn.cpu).toFixed(2)} | ${rss.toFixed(0)} |`);
  console.log(`| ${name} | ${dur} | ${windows.length} | Python worker (numpy, OMP_NUM_THREADS=1) | ${segCpu.toFixed(2)} | ${camUsage.cpuSeconds.toFixed(2)} | ${(segCpu + camUsage.cpuSeconds).toFixed(2)} | |`);
  audio.close();
}
