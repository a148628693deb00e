/**
 * The speech worker: one Python process per command (vad, asr, speakers, segment, cuda) in the speech
 * runtime, printing JSON lines.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diesWithAppliance } from "../../dies-with-appliance.ts";
import { COMPILED } from "../../config.ts";
import { speechPython } from "./runtime.ts";
import asrWorker from "./python/asr_worker.py" with { type: "file" };
import asr from "./python/asr.py" with { type: "file" };
import campplus from "./python/campplus.py" with { type: "file" };
import fbank from "./python/fbank.py" with { type: "file" };
import numpyLayers from "./python/numpy_layers.py" with { type: "file" };
import segmentation from "./python/segmentation.py" with { type: "file" };
import torchCheckpoint from "./python/torch_checkpoint.py" with { type: "file" };
import vad from "./python/vad.py" with { type: "file" };
import workerIo from "./python/worker_io.py" with { type: "file" };

/** The worker's entry (asr_worker.py) and the task modules it imports, each embedded in the compiled binary. */
const WORKER_FILES: Record<string, string> = {
  "asr_worker.py": asrWorker,
  "asr.py": asr,
  "campplus.py": campplus,
  "fbank.py": fbank,
  "numpy_layers.py": numpyLayers,
  "segmentation.py": segmentation,
  "torch_checkpoint.py": torchCheckpoint,
  "vad.py": vad,
  "worker_io.py": workerIo,
};

/**
 * The Python worker's entry script. Python cannot read the compiled binary's virtual filesystem, so
 * there the worker's files are copied out once to a temp folder named by their content hash; the
 * folder is filled under another name and renamed into place, so a second process never runs a
 * half-written copy.
 */
export function workerScript(): string {
  if (!COMPILED) return asrWorker;
  const files = Object.entries(WORKER_FILES).map(([name, path]) => [name, readFileSync(path)] as const);
  const hash = createHash("sha256");
  for (const [name, text] of files) hash.update(`${name}\0${text.length}\0`).update(text);
  const dir = join(tmpdir(), `clipyard-speech-worker-${hash.digest("hex").slice(0, 16)}`);
  const entry = join(dir, "asr_worker.py");
  if (existsSync(entry)) return entry;
  const filling = mkdtempSync(`${dir}.`);
  for (const [name, text] of files) writeFileSync(join(filling, name), text);
  try {
    renameSync(filling, dir);
  } catch (err) {
    // Another process put the same files there first.
    rmSync(filling, { recursive: true, force: true });
    if (!existsSync(entry)) throw err;
  }
  return entry;
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

/**
 * The worker's environment: the appliance's own, with the operator's OpenMP settings kept where set.
 * CTranslate2 sizes its OpenMP pool from the thread count the worker is given (OMP_NUM_THREADS=1 only
 * keeps other libraries' pools from taking every core). OMP_WAIT_POLICY=PASSIVE lets that pool's idle
 * threads sleep instead of spinning between layers: the same CPU on a quiet machine, 4-5 % less CPU for
 * recognition when something else runs beside it, as the speaker models, renders and other jobs do
 * (docs/benchmarks/speed.md, 2026-11-27). The models are read from disk only (HF_HUB_OFFLINE).
 */
export function workerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, OMP_NUM_THREADS: env.OMP_NUM_THREADS ?? "1", OMP_WAIT_POLICY: env.OMP_WAIT_POLICY ?? "PASSIVE", HF_HUB_OFFLINE: "1" };
}

export async function runWorker(args: string[], onLine: (msg: Record<string, unknown>) => void, signal?: AbortSignal, python = speechPython()): Promise<WorkerUsage> {
  const t0 = performance.now();
  const proc = Bun.spawn(diesWithAppliance([python, workerScript(), ...args]), {
    stdout: "pipe",
    stderr: "pipe",
    env: workerEnv(),
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
