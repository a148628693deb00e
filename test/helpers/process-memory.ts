/**
 * Resident memory of a process tree (a process and all its descendants, summed), sampled on a
 * worker thread so that a main thread busy with synchronous work still gets sampled.
 */
import { readdirSync, readFileSync } from "node:fs";

const statusKb = (pid: number, field: string): number => {
  try {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // exited between listing and reading
  }
};

/** The process and its descendants, through /proc/PID/task/TID/children; `skip` and theirs left out. */
export function processTree(root: number, skip: ReadonlySet<number> = new Set()): number[] {
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop()!;
    if (skip.has(pid)) continue;
    out.push(pid);
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/)) if (c) queue.push(Number(c));
      } catch {
        // thread gone
      }
    }
  }
  return out;
}

export interface TreeRss {
  /** Bytes resident in the whole tree now. */
  total: number;
  /** The largest single process's own peak (VmHWM) among those alive now, and its command. */
  largest: number;
  largestCommand: string;
}

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
};

export function treeRss(root: number, includeRoot = true, skip: ReadonlySet<number> = new Set(), command?: string): TreeRss {
  let total = 0;
  let largest = 0;
  let largestCommand = "";
  for (const pid of processTree(root, skip)) {
    if (pid === root && !includeRoot) continue;
    if (command !== undefined && commandOf(pid) !== command) continue;
    total += statusKb(pid, "VmRSS") * 1024;
    const hwm = statusKb(pid, "VmHWM") * 1024;
    if (hwm > largest) {
      largest = hwm;
      largestCommand = commandOf(pid);
    }
  }
  return { total, largest, largestCommand };
}

export interface MemoryPeaks {
  /** Peak sampled tree total per label, in the order the labels were first marked. */
  byLabel: Map<string, { total: number; largest: number; largestCommand: string }>;
  peak: number;
  samples: number;
}

/** Samples treeRss(root) every intervalMs on a worker thread; mark() names the phase now running. */
export class TreeMemorySampler {
  private worker: Worker;
  constructor(opts: { root?: number; includeRoot?: boolean; intervalMs?: number; skip?: number[]; command?: string } = {}) {
    this.worker = new Worker(new URL("./process-memory-worker.ts", import.meta.url).href);
    this.worker.postMessage({ type: "start", root: opts.root ?? process.pid, includeRoot: opts.includeRoot ?? true, intervalMs: opts.intervalMs ?? 200, skip: opts.skip ?? [], command: opts.command });
  }

  mark(label: string): void {
    this.worker.postMessage({ type: "mark", label });
  }

  async stop(): Promise<MemoryPeaks> {
    const result = new Promise<MemoryPeaks>((resolve) => {
      this.worker.onmessage = (e: MessageEvent) => resolve({ ...e.data, byLabel: new Map(e.data.byLabel) } as MemoryPeaks);
    });
    this.worker.postMessage({ type: "stop" });
    const peaks = await result;
    this.worker.terminate();
    return peaks;
  }
}

/**
 * Peak resident memory of the processes fn starts (this process's descendants that were not already
 * running: a speech worker or test server an earlier test file left alive is not fn's memory), only
 * those named `command` when given (what fn runs, not what something else in this process started).
 */
export async function peakChildRss(fn: () => Promise<unknown>, opts: { intervalMs?: number; command?: string } = {}): Promise<number> {
  const before = processTree(process.pid).filter((pid) => pid !== process.pid);
  const sampler = new TreeMemorySampler({ includeRoot: false, intervalMs: opts.intervalMs ?? 50, skip: before, command: opts.command });
  sampler.mark("run");
  const outcome = await fn().then(() => undefined, (err: unknown) => ({ err }));
  const peaks = await sampler.stop();
  if (outcome) throw outcome.err;
  return peaks.peak;
}
