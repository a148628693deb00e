/**
 * Which recogniser runs a job's Whisper model: CTranslate2 in the Python speech worker
 * (recognise-worker.ts) or whisper.cpp in this process (recognise-in-process.ts), and the derived
 * ggml file the latter needs. asr-model.ts picks the model; this picks the engine.
 */
import { existsSync } from "node:fs";
import { configuredSpeechPython } from "../../inference/speech-runtime/runtime.ts";
import { loadWhisperCpp } from "../../inference/whisper-cpp.ts";

/** A recogniser: CTranslate2 in the Python speech worker, or whisper.cpp in this process. */
export type AsrEngine = "ctranslate2" | "whisper-cpp";
/** `CLIPYARD_ASR_ENGINE`: auto (default), or one engine, used or failed with. */
export type AsrEngineSetting = "auto" | AsrEngine;

export function asrEngine(env: Record<string, string | undefined> = process.env): AsrEngineSetting {
  const v = env.CLIPYARD_ASR_ENGINE ?? "auto";
  if (v === "auto" || v === "ctranslate2" || v === "whisper-cpp") return v;
  throw new Error(`CLIPYARD_ASR_ENGINE must be auto, ctranslate2 or whisper-cpp (got '${v}')`);
}

export interface AsrEngineChoice {
  engine: AsrEngine;
  /** Why this one, in words for `clipyard doctor` and the log. */
  reason: string;
}

/**
 * Which recogniser runs `model`. With `auto`, CTranslate2 whenever the speech runtime is there (the
 * same or slightly better words than whisper.cpp at a fraction of the CPU, and CUDA on a GPU machine), else whisper.cpp in this
 * process, so the single executable transcribes with no Python at all; with neither, CTranslate2, whose
 * error says how to install the runtime.
 */
export function chooseAsrEngine(
  model: string,
  env: Record<string, string | undefined> = process.env,
  probe: { runtimeInstalled: () => boolean; inProcess: () => { ok: boolean; reason?: string } } = {
    runtimeInstalled: () => existsSync(configuredSpeechPython(env).path),
    inProcess: () => loadWhisperCpp(),
  },
): AsrEngineChoice {
  const setting = asrEngine(env);
  if (setting !== "auto") return { engine: setting, reason: `CLIPYARD_ASR_ENGINE=${setting}` };
  if (probe.runtimeInstalled()) return { engine: "ctranslate2", reason: "the speech runtime is installed" };
  if (!GGML_FOR_MODEL[model]) return { engine: "ctranslate2", reason: `no speech runtime, and whisper.cpp has no converted ${model}` };
  const cpp = probe.inProcess();
  if (!cpp.ok) return { engine: "ctranslate2", reason: `no speech runtime, and whisper.cpp does not load: ${cpp.reason}` };
  return { engine: "whisper-cpp", reason: "no speech runtime installed: whisper.cpp in-process, no Python needed" };
}

/** The derived ggml file each recognition model has: q8_0, half the CPU time of f16 for the same words. */
const GGML_FOR_MODEL: Record<string, string> = { "whisper-tiny.en": "whisper-tiny.en-ggml-q8_0", "whisper-base": "whisper-base-ggml-q8_0" };

/** The derived ggml model whisper.cpp runs for `model`, if it has one. */
export function inProcessModelFor(model: string): string | undefined {
  return GGML_FOR_MODEL[model];
}

export function ggmlModelFor(model: string): string {
  const derived = GGML_FOR_MODEL[model];
  if (!derived) throw new Error(`whisper.cpp has no converted model for '${model}' (converted: ${Object.keys(GGML_FOR_MODEL).join(", ")})`);
  return derived;
}
