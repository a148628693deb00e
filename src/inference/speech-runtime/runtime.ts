import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { diesWithAppliance } from "../../dies-with-appliance.ts";
import { COMPILED, loadConfig } from "../../config.ts";
import embeddedWorker from "./python/asr_worker.py" with { type: "file" };

/**
 * The speech runtime is the Python environment that runs CTranslate2 (Whisper) and ONNX Runtime
 * (Silero). `clipyard runtime install` creates it in speechRuntimeDir(); CLIPYARD_SPEECH_PYTHON points
 * live jobs at a Python of the operator's own instead.
 */
export const INSTALL_COMMAND = "clipyard runtime install";

/** Where the runtime lives: config.speechDir (a checkout's .vendor/speech-venv, or beside the binary's data directory). */
export function speechRuntimeDir(env: Record<string, string | undefined> = process.env): string {
  return loadConfig(env).speechDir;
}

export function venvPython(dir: string): string {
  return resolve(dir, "bin", "python");
}

/**
 * The Python worker, embedded in the compiled binary; Python cannot read the binary's virtual
 * filesystem, so there it is copied out once to a temp file named by its content hash.
 */
export function workerScript(): string {
  if (!COMPILED) return embeddedWorker;
  const text = readFileSync(embeddedWorker);
  const path = join(tmpdir(), `clipyard-asr-worker-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.py`);
  if (!existsSync(path)) writeFileSync(path, text);
  return path;
}

export class SpeechRuntimeMissingError extends Error {
  constructor(path: string, fromOverride: boolean) {
    super(
      fromOverride
        ? `speech runtime not found: CLIPYARD_SPEECH_PYTHON is ${path}, which does not exist; fix it, or unset it and run \`${INSTALL_COMMAND}\``
        : `speech runtime not found at ${path}; run \`${INSTALL_COMMAND}\` to create it`,
    );
    this.name = "SpeechRuntimeMissingError";
  }
}

/** The Python live jobs run: CLIPYARD_SPEECH_PYTHON if set, else the installed runtime's. */
export function configuredSpeechPython(env: Record<string, string | undefined> = process.env): { path: string; fromOverride: boolean } {
  const override = env.CLIPYARD_SPEECH_PYTHON;
  return override ? { path: override, fromOverride: true } : { path: venvPython(speechRuntimeDir(env)), fromOverride: false };
}

export function speechPython(env: Record<string, string | undefined> = process.env): string {
  const { path, fromOverride } = configuredSpeechPython(env);
  if (!existsSync(path)) throw new SpeechRuntimeMissingError(path, fromOverride);
  return path;
}

export class SpeechWorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SpeechWorkerError";
  }
}

/**
 * Runs one worker command, handing each JSON line it prints to onLine, and resolves when it exits 0.
 * A non-zero exit becomes SpeechWorkerError carrying the tail of its stderr.
 */
export interface WorkerUsage {
  wallSeconds: number;
  /** User + system CPU time of the worker process. */
  cpuSeconds: number;
}

export async function runWorker(args: string[], onLine: (msg: Record<string, unknown>) => void, signal?: AbortSignal, python = speechPython()): Promise<WorkerUsage> {
  const t0 = performance.now();
  const proc = Bun.spawn(diesWithAppliance([python, workerScript(), ...args]), {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, OMP_NUM_THREADS: process.env.OMP_NUM_THREADS ?? "1", HF_HUB_OFFLINE: "1" },
  });
  const abort = () => proc.kill();
  signal?.addEventListener("abort", abort);
  const errText = new Response(proc.stderr).text();
  let buf = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onLine(JSON.parse(line) as Record<string, unknown>);
    }
  }
  const code = await proc.exited;
  signal?.removeEventListener("abort", abort);
  if (code !== 0) {
    const tail = (await errText).trim().split("\n").slice(-4).join(" | ");
    throw new SpeechWorkerError(`speech worker '${args[0]}' failed (exit ${code}): ${tail}`);
  }
  const ru = proc.resourceUsage();
  const cpu = ru ? Number(ru.cpuTime.user + ru.cpuTime.system) / 1e6 : NaN;
  return { wallSeconds: (performance.now() - t0) / 1000, cpuSeconds: cpu };
}

/** What the worker's `cuda` command finds: whether Whisper would run on a CUDA GPU, and why not. */
export interface CudaStatus {
  usable: boolean;
  /** The first reason GPU recognition would not run (no driver, no device, a missing library), or null. */
  reason: string | null;
  driver: boolean;
  devices: number;
  cublas: boolean;
  cudnn: boolean;
  library_dirs: string[];
}

export async function cudaStatus(python = speechPython()): Promise<CudaStatus> {
  let status: CudaStatus | undefined;
  await runWorker(["cuda"], (m) => {
    if (m.cuda) status = m.cuda as CudaStatus;
  }, undefined, python);
  if (!status) throw new SpeechWorkerError("the speech worker's cuda check printed nothing");
  return status;
}

/** Where recognition runs: `CLIPYARD_ASR_DEVICE` (auto: a usable CUDA GPU, else the CPU). */
export function asrDevice(env: Record<string, string | undefined> = process.env): "auto" | "cpu" | "cuda" {
  const v = env.CLIPYARD_ASR_DEVICE ?? "auto";
  if (v === "auto" || v === "cpu" || v === "cuda") return v;
  throw new Error(`CLIPYARD_ASR_DEVICE must be auto, cpu or cuda (got '${v}')`);
}
