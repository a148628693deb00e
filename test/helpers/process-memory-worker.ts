/** The sampling loop of TreeMemorySampler (process-memory.ts), on its own thread. */
import { treeRss } from "./process-memory.ts";

declare const self: Worker;

let label = "";
let timer: ReturnType<typeof setInterval> | undefined;
let peak = 0;
let samples = 0;
const byLabel = new Map<string, { total: number; largest: number; largestCommand: string }>();

function sample(root: number, includeRoot: boolean, skip: ReadonlySet<number>, command: string | undefined): void {
  const now = treeRss(root, includeRoot, skip, command);
  samples++;
  peak = Math.max(peak, now.total);
  if (!label) return;
  const cur = byLabel.get(label)!;
  cur.total = Math.max(cur.total, now.total);
  if (now.largest > cur.largest) Object.assign(cur, { largest: now.largest, largestCommand: now.largestCommand });
}

self.onmessage = (e: MessageEvent) => {
  const m = e.data as { type: string; root?: number; includeRoot?: boolean; intervalMs?: number; label?: string; skip?: number[]; command?: string };
  if (m.type === "start") {
    const skip = new Set(m.skip ?? []);
    const run = () => sample(m.root!, m.includeRoot!, skip, m.command);
    run();
    timer = setInterval(run, m.intervalMs);
  } else if (m.type === "mark") {
    label = m.label!;
    if (!byLabel.has(label)) byLabel.set(label, { total: 0, largest: 0, largestCommand: "" });
  } else if (m.type === "stop") {
    clearInterval(timer);
    self.postMessage({ byLabel: [...byLabel], peak, samples });
  }
};
