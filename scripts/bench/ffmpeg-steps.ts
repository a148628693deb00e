#!/usr/bin/env bun
/**
 * Sums the ffmpeg commands logged by scripts/bench/ffmpeg-cpu-shim.py per step of a render: CPU
 * seconds (user + system), wall seconds and count, each step named from its command line (output
 * file and filters). Usage: bun scripts/bench/ffmpeg-steps.ts CAPTURE_DIR/cmds.jsonl [--list]
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { table } from "./load.ts";

interface Cmd {
  argv: string[];
  secs: number;
  cpu: number;
  start: number;
}

/** A short name for what one ffmpeg command does in the pipeline. */
export function stepOf(argv: string[]): string {
  const line = argv.join(" ");
  const out = basename(argv.at(-1) ?? "");
  const graph = argv[argv.indexOf("-filter_complex") + 1] ?? argv[argv.indexOf("-af") + 1] ?? "";
  if (line.includes("-f rawvideo") || line.includes("rawvideo pipe")) return "face analysis decode";
  if (out === "-" && line.includes("f32le")) return "audio decode to pipe";
  if (line.includes("ebur128")) return "loudness meter";
  if (line.includes("-f concat")) return "concat (stream copy)";
  if (graph.includes("acrossfade")) return "trailer audio cut + crossfade";
  if (graph.includes("xfade")) return out.startsWith("joint") ? "trailer joint (blend + encode)" : "trailer join piece (re-encode)";
  const burnsCaptions = graph.includes("ass=filename");
  if (graph.includes("trim=start_frame") && !burnsCaptions) return "trailer join piece (re-encode)";
  if (/^seg\d+/.test(out) && burnsCaptions) return "trailer segment render";
  if (burnsCaptions) return "clip video render";
  if (line.includes("alimiter") && line.includes("aac")) return "audio limiter + AAC";
  if (line.includes("alimiter")) return "audio level pass";
  if (line.includes("-c copy") || line.includes("-c:v copy")) return "mux (stream copy)";
  if (line.includes("pcm_")) return "audio decode";
  return `other (${out})`;
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: bun scripts/bench/ffmpeg-steps.ts CMDS.jsonl [--list]");
  const cmds = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Cmd);
  const steps = new Map<string, { n: number; cpu: number; wall: number }>();
  for (const c of cmds) {
    const s = stepOf(c.argv);
    const row = steps.get(s) ?? { n: 0, cpu: 0, wall: 0 };
    row.n++;
    row.cpu += c.cpu;
    row.wall += c.secs;
    steps.set(s, row);
    if (process.argv.includes("--list")) console.log(`${c.cpu.toFixed(2)} CPU s ${c.secs.toFixed(2)} s  ${s}  ${basename(c.argv.at(-1) ?? "")}`);
  }
  const rows = [...steps].sort((a, b) => b[1].cpu - a[1].cpu).map(([step, r]) => ({ step, runs: String(r.n), "CPU s": r.cpu.toFixed(1), "wall s": r.wall.toFixed(1) }));
  const total = cmds.reduce((n, c) => n + c.cpu, 0);
  rows.push({ step: "all ffmpeg", runs: String(cmds.length), "CPU s": total.toFixed(1), "wall s": cmds.reduce((n, c) => n + c.secs, 0).toFixed(1) });
  console.log(table(rows));
}
