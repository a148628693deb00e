import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ROOT_DIR } from "../config.ts";

/**
 * The Python environment that runs CTranslate2 (Whisper) and ONNX Runtime (Silero). It is created by
 * scripts/setup/asr.sh in a git-ignored folder of the repository; CLIPYARD_SPEECH_PYTHON overrides it.
 */
export const SPEECH_VENV = resolve(ROOT_DIR, ".vendor", "speech-venv");
export const WORKER_SCRIPT = resolve(import.meta.dir, "python", "asr_worker.py");

export class SpeechRuntimeMissingError extends Error {
  constructor(path: string) {
    super(`speech runtime not found at ${path}; run \`bash scripts/setup/asr.sh\` to create it`);
    this.name = "SpeechRuntimeMissingError";
  }
}

export function speechPython(): string {
  const override = process.env.CLIPYARD_SPEECH_PYTHON;
  const path = override ?? resolve(SPEECH_VENV, "bin", "python");
  if (!existsSync(path)) throw new SpeechRuntimeMissingError(path);
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

export async function runWorker(args: string[], onLine: (msg: Record<string, unknown>) => void, signal?: AbortSignal): Promise<WorkerUsage> {
  const t0 = performance.now();
  const proc = Bun.spawn([speechPython(), WORKER_SCRIPT, ...args], {
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
