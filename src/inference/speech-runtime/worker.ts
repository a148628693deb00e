/**
 * The speech worker: one Python process per command (vad, asr, speakers, segment, cuda) in the speech
 * runtime, printing JSON lines.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diesWithAppliance } from "../../dies-with-appliance.ts";
import { COMPILED } from "../../config.ts";
import { speechPython } from "./runtime.ts";
import embeddedWorker from "./python/asr_worker.py" with { type: "file" };

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
