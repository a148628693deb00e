/**
 * Where the neural parts of diarization (pyannote segmentation-3.0 and CAM++ speaker embeddings) run:
 * in this process through onnxruntime-node when it loads, else in the Python speech worker. Both read
 * the same verified PyTorch checkpoints and compute the same network (test/e2e/speaker-engines.test.ts),
 * so the choice changes cost and dependencies (the executable diarizes without Python), not the result.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CamPlusPlus } from "../../inference/campplus.ts";
import { Segmentation, type SegmentationProbabilities } from "../../inference/segmentation.ts";
import { runWorker, SpeechWorkerError } from "../../inference/speech-runtime/worker.ts";
import { withTaskModel } from "../../inference/task-model.ts";
import { pcmSource, type PcmSource } from "../../media/wav.ts";
import { inProcessChoice, planInProcess, type InProcessChoice, type InProcessEngine, type InProcessPlan } from "./in-process-engine.ts";

export type SpeakerEngine = InProcessEngine;

/** `CLIPYARD_SPEAKER_ENGINE`: auto (in-process when it loads), onnxruntime (in-process or fail), python. */
export type SpeakerEngineChoice = InProcessChoice;

export function speakerEngineChoice(env: Record<string, string | undefined> = process.env): SpeakerEngineChoice {
  return inProcessChoice("CLIPYARD_SPEAKER_ENGINE", env);
}

export type SpeakerEnginePlan = InProcessPlan;

/** Which engine speaker models run on now, and why; throws only when `onnxruntime` was asked for and cannot load. */
export function planSpeakerEngine(choice: SpeakerEngineChoice = speakerEngineChoice()): Promise<SpeakerEnginePlan> {
  return planInProcess("CLIPYARD_SPEAKER_ENGINE", choice);
}

/** Segmentation probabilities of the 16 kHz WAV at `wav` (whose samples `audio` reads). */
export async function segmentationProbabilities(plan: SpeakerEnginePlan, modelPath: string, wav: string, audio: PcmSource, signal?: AbortSignal): Promise<SegmentationProbabilities> {
  if (plan.ort) return withTaskModel(Segmentation.open, plan.ort, modelPath, (seg) => seg.probabilities(audio, 5, undefined, signal));
  let out: SegmentationProbabilities | undefined;
  await runWorker(["segment", "--model", modelPath, "--audio", wav], (m) => {
    if (m.segmentation) out = m.segmentation as SegmentationProbabilities;
  }, signal);
  if (!out) throw new SpeechWorkerError("segmentation worker returned no probabilities");
  return out;
}

/** One 192-dim CAM++ embedding per [start, end] window (seconds). */
export async function speakerEmbeddings(plan: SpeakerEnginePlan, modelPath: string, wav: string, audio: PcmSource, windows: [number, number][], signal?: AbortSignal): Promise<number[][]> {
  let embeddings: number[][] | undefined;
  if (plan.ort) {
    embeddings = await withTaskModel(CamPlusPlus.open, plan.ort, modelPath, (cam) => cam.embed(audio, windows, signal));
  } else {
    // A file, not an argument: an episode's windows outgrow the kernel's limit on one argument (128 KiB).
    const windowsFile = join(dirname(wav), "speaker-windows.json");
    writeFileSync(windowsFile, JSON.stringify(windows));
    await runWorker(["speakers", "--model", modelPath, "--audio", wav, "--windows-file", windowsFile], (m) => {
      if (Array.isArray(m.embeddings)) embeddings = m.embeddings as number[][];
    }, signal);
  }
  if (!embeddings || embeddings.length !== windows.length) throw new Error(`speaker model returned ${embeddings?.length ?? 0} embeddings for ${windows.length} windows`);
  return embeddings;
}

export interface SpeakerEngineCheck {
  engine: SpeakerEngine;
  reason: string;
  /** Set when the in-process engine ran the verified CAM++ model (on one second of a tone). */
  ran?: { embeddings: number; seconds: number };
  error?: string;
  /** The error fails jobs (an engine asked for cannot load), rather than degrading them to MFCC clustering. */
  fatal?: boolean;
}

/** For `clipyard doctor`: which engine speaker embeddings use and why, proven for the in-process one by running it. */
export async function checkSpeakerEngine(campplusPath: string | undefined): Promise<SpeakerEngineCheck> {
  let plan: SpeakerEnginePlan;
  try {
    plan = await planSpeakerEngine();
  } catch (err) {
    return { engine: "onnxruntime-node", reason: (err as Error).message, error: (err as Error).message, fatal: true };
  }
  const { ort, ...rest } = plan;
  if (!ort || !campplusPath) return rest;
  const t0 = performance.now();
  try {
    return await withTaskModel(CamPlusPlus.open, ort, campplusPath, async (cam) => {
      // A tone, not silence: all-zero frames make every fbank bin the same constant.
      const samples = Float32Array.from({ length: 16000 }, (_, i) => 0.1 * Math.sin((2 * Math.PI * 220 * i) / 16000));
      const e = await cam.embed(pcmSource({ samples, sampleRate: 16000 }), [[0, 1]]);
      if (!e[0]?.every(Number.isFinite)) throw new Error("the embedding is not finite");
      return { ...rest, ran: { embeddings: e.length, seconds: (performance.now() - t0) / 1000 } };
    });
  } catch (err) {
    return { ...rest, error: `CAM++ did not run in-process: ${(err as Error).message}` };
  }
}
