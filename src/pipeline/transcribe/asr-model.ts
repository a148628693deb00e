/**
 * Which Whisper model recognises a job. `CLIPYARD_ASR_MODEL` names one, or says `auto`: the largest
 * verified model present that this machine runs within the time budget. Unset, it is whisper-base,
 * the multilingual model setup pulls: it detects the language, hears names tiny.en mishears, and costs
 * about 1.3x tiny.en's whole-command time on 2 cores (docs/pipeline/transcribe.md).
 */
import { existsSync } from "node:fs";
import { cpus } from "node:os";
import { configuredSpeechPython } from "../../inference/speech-runtime/runtime.ts";
import { asrDevice } from "../../inference/speech-runtime/worker.ts";
import { resolveModel } from "../../models/store.ts";
import { inProcessModelFor } from "./asr-engine.ts";

export const DEFAULT_ASR_MODEL = "whisper-base";

export interface AsrModelChoice {
  model: string;
  /** Why this one, in words for `clipyard doctor` and the log. */
  reason: string;
}

export interface AsrModelProbe {
  /** The model's verified files are in the models folder. */
  present: (model: string) => boolean;
  /** Recognition would run on a CUDA GPU (a device node, the runtime, and CLIPYARD_ASR_DEVICE not cpu). */
  gpu: () => boolean;
  cores: () => number;
  /** The Python speech runtime is installed (without it only models whisper.cpp has a converted file for run). */
  runtimeInstalled: () => boolean;
}

const defaultProbe = (env: Record<string, string | undefined>): AsrModelProbe => ({
  present: (model) => {
    try {
      resolveModel(model);
      return true;
    } catch {
      return false;
    }
  },
  gpu: () => asrDevice(env) !== "cpu" && existsSync("/dev/nvidia0") && existsSync(configuredSpeechPython(env).path),
  cores: () => cpus().length,
  runtimeInstalled: () => existsSync(configuredSpeechPython(env).path),
});

/** Largest first; each with what it needs to run within the budget (0.1x real time for an hour, the speed issue's target). */
const AUTO_LADDER: Array<{ model: string; needs: (p: AsrModelProbe) => string | null }> = [
  { model: "whisper-large-v3-turbo", needs: (p) => (p.gpu() ? "a CUDA GPU" : null) },
  { model: "whisper-small", needs: (p) => (p.cores() >= 8 ? `${p.cores()} CPU cores (8 or more)` : null) },
  { model: "whisper-base", needs: (p) => `any machine; this one: ${p.cores()} CPU cores${p.gpu() ? "" : ", no CUDA GPU"}` },
  { model: "whisper-tiny.en", needs: (p) => `any machine; this one: ${p.cores()} CPU cores${p.gpu() ? "" : ", no CUDA GPU"}` },
];

export function chooseAsrModel(env: Record<string, string | undefined> = process.env, probe: AsrModelProbe = defaultProbe(env)): AsrModelChoice {
  const setting = env.CLIPYARD_ASR_MODEL?.trim();
  if (setting && setting !== "auto") return { model: setting, reason: `CLIPYARD_ASR_MODEL=${setting}` };
  if (!setting) return { model: DEFAULT_ASR_MODEL, reason: "the default (multilingual, detects the language; CLIPYARD_ASR_MODEL=auto picks by machine)" };
  const skipped: string[] = [];
  for (const { model, needs } of AUTO_LADDER) {
    const fits = needs(probe);
    if (!fits) continue;
    if (!probe.present(model)) {
      skipped.push(`${model} not pulled`);
      continue;
    }
    if (!probe.runtimeInstalled() && !inProcessModelFor(model)) {
      skipped.push(`${model} needs the speech runtime`);
      continue;
    }
    return { model, reason: `CLIPYARD_ASR_MODEL=auto: the largest verified model this machine runs in budget (${fits})${skipped.length ? `; ${skipped.join(", ")}` : ""}` };
  }
  return { model: DEFAULT_ASR_MODEL, reason: `CLIPYARD_ASR_MODEL=auto found no verified model (${skipped.join(", ")}); pull whisper-base` };
}
