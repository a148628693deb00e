/**
 * Where Silero VAD runs: in this process through onnxruntime-node when it loads, else in the Python
 * speech worker. Both read the same verified silero_vad.onnx and give the same probabilities
 * (test/e2e/vad-engines.test.ts), so the choice changes cost and dependencies, never the result.
 */
import { pcmSource, type PcmSource } from "../../media/wav.ts";
import type { Ort } from "../../inference/onnx/runtime.ts";
import { SILERO_SAMPLE_RATE, SileroVad, type SpeechProbabilities } from "../../inference/silero-vad.ts";
import { runWorker, SpeechWorkerError, type WorkerUsage } from "../../inference/speech-runtime/worker.ts";
import { withTaskModel } from "../../inference/task-model.ts";
import { inProcessChoice, planInProcess, type InProcessChoice, type InProcessEngine } from "./in-process-engine.ts";
import { log } from "../../log.ts";

export type VadEngine = InProcessEngine;

/** `CLIPYARD_VAD_ENGINE`: auto (in-process when it loads), onnxruntime (in-process or fail), python. */
export type VadEngineChoice = InProcessChoice;

export function vadEngineChoice(env: Record<string, string | undefined> = process.env): VadEngineChoice {
  return inProcessChoice("CLIPYARD_VAD_ENGINE", env);
}

export interface VadEnginePlan {
  engine: VadEngine;
  /** Why this engine: what loaded, or why the in-process one did not. */
  reason: string;
}

const choose = (choice: VadEngineChoice): Promise<VadEnginePlan & { ort?: Ort }> => planInProcess("CLIPYARD_VAD_ENGINE", choice);

/** Which engine a VAD run would use now, and why (for `clipyard doctor`). */
export async function planVadEngine(choice: VadEngineChoice = vadEngineChoice()): Promise<VadEnginePlan> {
  const { engine, reason } = await choose(choice);
  return { engine, reason };
}

export interface VadRun extends SpeechProbabilities, VadEnginePlan {
  usage: WorkerUsage;
}

/** Silero speech probabilities for the decoded 16 kHz WAV at `wavPath` (whose samples are `audio`). */
export async function speechProbabilities(wavPath: string, audio: PcmSource, vadModelPath: string, signal?: AbortSignal, choice: VadEngineChoice = vadEngineChoice()): Promise<VadRun> {
  const { ort, ...plan } = await choose(choice);
  if (ort) {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    return withTaskModel(SileroVad.open, ort, vadModelPath, async (vad) => {
      const p = await vad.probabilities(audio, signal);
      const cpu = process.cpuUsage(cpu0);
      // Process CPU time: includes whatever else this process did meanwhile (a server's other requests).
      return { ...p, ...plan, usage: { wallSeconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 } };
    });
  }
  log.info("voice activity runs in the Python speech worker", { reason: plan.reason });
  let out: SpeechProbabilities | undefined;
  const usage = await runWorker(["vad", "--vad-model", vadModelPath, "--audio", wavPath], (m) => {
    if (m.vad) out = m.vad as SpeechProbabilities;
  }, signal);
  if (!out) throw new SpeechWorkerError("VAD worker returned no probabilities");
  return { ...out, ...plan, usage };
}

export interface VadEngineCheck extends VadEnginePlan {
  /** Set when the in-process engine ran the verified model (on one second of silence). */
  ran?: { windows: number; seconds: number };
  error?: string;
}

/** For `clipyard doctor`: which engine VAD uses and why, proven for the in-process one by running it. */
export async function checkVadEngine(vadModelPath: string | undefined): Promise<VadEngineCheck> {
  let chosen: Awaited<ReturnType<typeof choose>>;
  try {
    chosen = await choose(vadEngineChoice());
  } catch (err) {
    return { engine: "onnxruntime-node", reason: (err as Error).message, error: (err as Error).message };
  }
  const { ort, ...plan } = chosen;
  if (!ort || !vadModelPath) return plan;
  const t0 = performance.now();
  try {
    return await withTaskModel(SileroVad.open, ort, vadModelPath, async (vad) => {
      const p = await vad.probabilities(pcmSource({ samples: new Float32Array(SILERO_SAMPLE_RATE), sampleRate: SILERO_SAMPLE_RATE }));
      return { ...plan, ran: { windows: p.probs.length, seconds: (performance.now() - t0) / 1000 } };
    });
  } catch (err) {
    return { ...plan, error: `silero_vad.onnx did not run in-process: ${(err as Error).message}` };
  }
}
