#!/usr/bin/env bun
/**
 * The transcribe stage of a live job, part by part, on the job bench's episode (the two-speaker call
 * looped to N minutes, under the 1080p composition with --video): decode, VAD, recognition, speaker
 * segmentation, CAM++ embeddings, clustering and word/turn alignment. Per part: wall seconds, CPU
 * seconds, and CPU / wall (how many of the cores were busy). CPU is this process's for the in-process
 * parts (onnxruntime's threads and in-process whisper.cpp included) and the Python worker's for
 * recognition under CTranslate2; decoding is ffmpeg's
 * and reported as wall only. Also the peak resident memory of the process tree (this process and the
 * speech worker, summed, sampled every 200 ms).
 *
 * --serial runs the speaker models after recognition instead of beside it (speakersBesideRecognition),
 * so the parts' own costs are not mixed; beside it, their wall overlaps recognition's.
 *
 *   bun scripts/bench/transcribe-parts.ts [minutes=10] [--video] [--serial] [--threads N] [--beam N]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setLogLevel } from "../../src/log.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { TreeMemorySampler } from "../../test/helpers/process-memory.ts";
import { buildEpisode } from "./job.ts";
import { numberFlag, table } from "./load.ts";

const minutes = Number(process.argv.find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 10);
const video = process.argv.includes("--video");
if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("warn");

const work = mkdtempSync(join(tmpdir(), "clipyard-bench-parts-"));
try {
  const source = await buildEpisode(work, minutes, video);
  const parts: Array<{ part: string; wall: number; cpu?: number }> = [];
  const load0 = loadavg()[0]!;
  // The whole process tree's resident memory (this process and the speech worker), sampled every 200 ms.
  const memory = new TreeMemorySampler();
  memory.mark("transcribe");
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const threads = numberFlag("threads", 0) || undefined;
  const beamSize = numberFlag("beam", 0) || undefined;
  const t = await transcribeFile(source, {
    threads,
    beamSize,
    speakersBesideRecognition: !process.argv.includes("--serial"),
    onStats: (part, u) => {
      // "diarize" is the sum of segment, embed and cluster, reported by diarize.ts itself.
      if (part !== "diarize") parts.push({ part, wall: u.wallSeconds, cpu: u.cpuSeconds });
    },
  });
  const wall = (performance.now() - t0) / 1000;
  const peaks = await memory.stop();
  const cpu = process.cpuUsage(cpu0);
  const rows = parts.map((p) => ({ part: p.part, "wall s": p.wall, "cpu s": p.cpu ?? "", "cores busy": p.cpu === undefined ? "" : (p.cpu / p.wall).toFixed(2), "share of wall": `${Math.round((100 * p.wall) / wall)} %` }));
  // The Python worker's recognition CPU is another process's, so it is added to this one's; whisper.cpp
  // runs in this process, where process.cpuUsage() has already counted it.
  const inProcess = t.engine?.startsWith("whisper.cpp") ?? false;
  const asrCpu = inProcess ? 0 : parts.filter((p) => p.part === "asr").reduce((s, p) => s + (p.cpu ?? 0), 0);
  rows.push({ part: "transcribe (whole)", "wall s": wall, "cpu s": (cpu.user + cpu.system) / 1e6 + asrCpu, "cores busy": "", "share of wall": "100 %" });
  const speakers = new Set(t.words.map((w) => w.speaker)).size;
  console.log(`transcribe stage on a ${minutes}-minute two-speaker episode (${video ? "1080p video" : "audio"}; speaker models ${process.argv.includes("--serial") ? "after" : "beside"} recognition), ${cpus().length} cores (${cpus()[0]?.model}), load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(`engine: ${t.engine}; threads ${threads ?? "default"}, beam ${beamSize ?? "default"}`);
  console.log(`${t.words.length} words, ${speakers} speakers, ${t.speakerTurns?.length ?? 0} turns, ${t.segments.length} segments`);
  console.log(table(rows));
  console.log(`real-time factor of the stage: ${(wall / (minutes * 60)).toFixed(3)}; peak RSS of the process tree ${Math.round(peaks.peak / 2 ** 20)} MiB`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
