/**
 * The one rule for where a model that has both an in-process (onnxruntime-node) and a Python-worker
 * implementation runs, shared by voice activity (`CLIPYARD_VAD_ENGINE`) and the speaker models
 * (`CLIPYARD_SPEAKER_ENGINE`): `auto` runs in-process when the addon loads, else in the worker;
 * `onnxruntime` runs in-process or fails; `python` always runs the worker.
 */
import { loadOnnxRuntime, type Ort } from "../../inference/onnx/runtime.ts";

export type InProcessEngine = "onnxruntime-node" | "python-worker";
export type InProcessChoice = "auto" | "onnxruntime" | "python";

export interface InProcessPlan {
  engine: InProcessEngine;
  /** Why this engine: what loaded, or why the in-process one did not. */
  reason: string;
  ort?: Ort;
}

/** The setting in `variable`, `auto` when unset; anything else is a configuration error naming it. */
export function inProcessChoice(variable: string, env: Record<string, string | undefined> = process.env): InProcessChoice {
  const v = env[variable] ?? "auto";
  if (v === "auto" || v === "onnxruntime" || v === "python") return v;
  throw new Error(`${variable} must be auto, onnxruntime or python (got '${v}')`);
}

/** Which engine runs now, and why; throws only when `onnxruntime` was asked for and cannot load. */
export async function planInProcess(variable: string, choice: InProcessChoice): Promise<InProcessPlan> {
  if (choice === "python") return { engine: "python-worker", reason: `${variable}=python` };
  const loaded = await loadOnnxRuntime();
  if (loaded.ok) return { engine: "onnxruntime-node", reason: `onnxruntime-node ${loaded.version} loaded in-process`, ort: loaded.ort };
  if (choice === "onnxruntime") throw new Error(`${variable}=onnxruntime but ${loaded.reason}`);
  return { engine: "python-worker", reason: loaded.reason };
}
