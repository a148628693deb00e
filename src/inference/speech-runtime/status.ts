import { existsSync } from "node:fs";
import { capture } from "../../run-command.ts";
import { COMPILED } from "../../config.ts";
import { GPU_REQUIREMENTS_SHA256, installedGpuRequirementsSha256, installedRequirementsSha256, REQUIREMENTS_SHA256 } from "./install.ts";
import { configuredSpeechPython, INSTALL_COMMAND, speechRuntimeDir, venvPython } from "./runtime.ts";

/**
 * ready: imports work and the stamp matches the embedded requirements (or the Python is the operator's own);
 * outdated: imports work but the runtime was installed from other requirements;
 * broken: the Python is there but cannot import the speech packages; missing: no Python there.
 */
export type SpeechRuntimeState = "ready" | "outdated" | "broken" | "missing";

export interface SpeechRuntimeStatus {
  state: SpeechRuntimeState;
  /** Where `clipyard runtime install` puts the runtime, and why there. */
  dir: string;
  dirSource: "--dir" | "CLIPYARD_SPEECH_DIR" | "checkout" | "beside the data directory";
  /** The Python live jobs run. */
  python: string;
  /** True when CLIPYARD_SPEECH_PYTHON chose it; such a Python is the operator's to manage, so it carries no stamp. */
  pythonFromOverride: boolean;
  requirements: { expectedSha256: string; installedSha256: string | null; current: boolean | null };
  /** The CUDA libraries `runtime install --gpu` adds; current is null when they were never installed here. */
  gpuRequirements: { expectedSha256: string; installedSha256: string | null; current: boolean | null };
  pythonVersion: string | null;
  /** Versions of the speech packages, when they import. */
  packages: Record<string, string> | null;
  cudaDevices: number | null;
  /** Why it is not ready, and the command that fixes it. */
  problem: string | null;
  fix: string | null;
}

const PROBE_PY = `
import json, sys
r = {"python": sys.version.split()[0], "packages": None, "cudaDevices": None, "error": None}
try:
    import numpy, ctranslate2, faster_whisper, onnxruntime
    r["packages"] = {"faster-whisper": faster_whisper.__version__, "ctranslate2": ctranslate2.__version__, "onnxruntime": onnxruntime.__version__, "numpy": numpy.__version__}
    r["cudaDevices"] = ctranslate2.get_cuda_device_count()
except Exception as e:
    r["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(r))
`;

interface Probe {
  python: string | null;
  packages: Record<string, string> | null;
  cudaDevices: number | null;
  error: string | null;
}

async function probe(python: string): Promise<Probe> {
  const { code, stdout, stderr } = await capture([python, "-c", PROBE_PY]);
  const last = stdout.trim().split("\n").at(-1) ?? "";
  if (code === 0 && last.startsWith("{")) return JSON.parse(last) as Probe;
  return { python: null, packages: null, cudaDevices: null, error: `exit ${code}: ${(stderr || stdout).trim().split("\n").at(-1) ?? ""}` };
}

/**
 * The one account of the speech runtime that `clipyard runtime status` and `clipyard doctor` both print.
 * With `dir`, it describes the runtime in that folder (CLIPYARD_SPEECH_PYTHON aside); otherwise the one
 * live jobs would use.
 */
export async function speechRuntimeStatus(opts: { dir?: string; env?: Record<string, string | undefined> } = {}): Promise<SpeechRuntimeStatus> {
  const env = opts.env ?? process.env;
  const dir = opts.dir ?? speechRuntimeDir(env);
  const dirSource: SpeechRuntimeStatus["dirSource"] = opts.dir ? "--dir" : env.CLIPYARD_SPEECH_DIR ? "CLIPYARD_SPEECH_DIR" : COMPILED ? "beside the data directory" : "checkout";
  const { path: python, fromOverride } = opts.dir ? { path: venvPython(dir), fromOverride: false } : configuredSpeechPython(env);
  const installedSha256 = fromOverride ? null : installedRequirementsSha256(dir);
  const installedGpuSha256 = fromOverride ? null : installedGpuRequirementsSha256(dir);
  const base = {
    dir,
    dirSource,
    python,
    pythonFromOverride: fromOverride,
    requirements: { expectedSha256: REQUIREMENTS_SHA256, installedSha256, current: fromOverride ? null : installedSha256 === REQUIREMENTS_SHA256 },
    gpuRequirements: { expectedSha256: GPU_REQUIREMENTS_SHA256, installedSha256: installedGpuSha256, current: installedGpuSha256 === null ? null : installedGpuSha256 === GPU_REQUIREMENTS_SHA256 },
  };
  const install = opts.dir ? `${INSTALL_COMMAND} --dir ${dir}` : INSTALL_COMMAND;

  if (!existsSync(python)) {
    return {
      state: "missing",
      ...base,
      pythonVersion: null,
      packages: null,
      cudaDevices: null,
      problem: fromOverride ? `CLIPYARD_SPEECH_PYTHON is ${python}, which does not exist` : `no speech runtime at ${dir}`,
      fix: fromOverride ? `fix CLIPYARD_SPEECH_PYTHON, or unset it and run ${INSTALL_COMMAND}` : install,
    };
  }
  const found = await probe(python);
  const common = { ...base, pythonVersion: found.python, packages: found.packages, cudaDevices: found.cudaDevices };
  if (found.error || !found.packages) {
    return {
      state: "broken",
      ...common,
      problem: `${python} cannot import the speech packages (${found.error ?? "no output"})`,
      fix: fromOverride ? `unset CLIPYARD_SPEECH_PYTHON and run ${INSTALL_COMMAND}, or install faster-whisper, ctranslate2, onnxruntime and numpy for ${python}` : `${install} --force`,
    };
  }
  if (base.requirements.current === false) {
    return {
      state: "outdated",
      ...common,
      problem: installedSha256 ? "installed from different requirements than this clipyard pins" : "installed without a requirements stamp",
      fix: install,
    };
  }
  return { state: "ready", ...common, problem: null, fix: null };
}

/** "faster-whisper 1.2.1 on CTranslate2 4.8.5 (CPU), onnxruntime 1.31.1, numpy 2.4.6" */
export function describePackages(s: SpeechRuntimeStatus): string {
  const p = s.packages;
  if (!p) return "packages do not import";
  const device = (s.cudaDevices ?? 0) > 0 ? `CUDA, ${s.cudaDevices} GPU` : "CPU";
  return `faster-whisper ${p["faster-whisper"]} on CTranslate2 ${p.ctranslate2} (${device}), onnxruntime ${p.onnxruntime}, numpy ${p.numpy}`;
}
