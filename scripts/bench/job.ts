#!/usr/bin/env bun
/**
 * Whole live job on a long source, stage by stage: an episode built from the real two-speaker call
 * (looped), run through the same stages a live job runs (acquire of a local file, transcription,
 * highlights, renders of 3 clips x 2 formats, trailer, notes). Prints seconds per stage and the peak
 * resident memory of the whole process tree (this process, ffmpeg, the speech worker: all summed,
 * sampled every 200 ms) per stage and for the whole job.
 * Usage: bun scripts/bench/job.ts [minutes=10] [--trailer] [--video]
 * --video: the audio under a 1920x1080 two-person composition (test/helpers/compositions.ts), looped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import type { JobRow } from "../../src/db/schema.ts";
import { setLogLevel } from "../../src/log.ts";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { livePipeline } from "../../src/pipeline/live.ts";
import { runStages } from "../../src/pipeline/stage.ts";
import { talkingHeadsPair } from "../../test/helpers/compositions.ts";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { TreeMemorySampler } from "../../test/helpers/process-memory.ts";
import { table } from "./load.ts";

export interface JobBench {
  minutes: number;
  video: boolean;
  trailer: boolean;
  clips: number;
  engine: unknown;
  rows: { stage: string; seconds: number; "peak RSS, MiB": number; "largest process, MiB": string }[];
  total: number;
}

const MIB = 2 ** 20;

/** The episode: the two-speaker call looped to `minutes`, alone or under the looped composition. */
export async function buildEpisode(work: string, minutes: number, video: boolean): Promise<string> {
  const call = ["-stream_loop", "-1", ...mediaInput(join(SHARED_MEDIA, "two_speakers_call.wav"))];
  if (!video) {
    const source = join(work, "episode.wav");
    await ffmpeg(["-y", ...call, "-t", String(minutes * 60), source]);
    return source;
  }
  const pair = await talkingHeadsPair(join(work, "pair.mp4"), { crf: 23 });
  const source = join(work, "episode.mp4");
  await ffmpeg([
    "-y", "-stream_loop", "-1", ...mediaInput(pair), ...call, "-map", "0:v:0", "-map", "1:a:0",
    "-c:v", "copy", "-c:a", "aac", "-b:a", "128k", "-t", String(minutes * 60), source,
  ]);
  return source;
}

/** Runs the live pipeline's stages on an N-minute episode and times each, and samples memory. */
export async function benchJob(minutes: number, opts: { trailer?: boolean; video?: boolean } = {}): Promise<JobBench> {
  const trailer = opts.trailer ?? false;
  const video = opts.video ?? false;
  const work = mkdtempSync(join(tmpdir(), "clipyard-bench-job-"));
  try {
    const source = await buildEpisode(work, minutes, video);
    const job = { id: "job_bench", sourceType: "file", sourceUrl: source, options: JSON.stringify(trailer ? { include_trailer: true } : {}) } as JobRow;
    const pipeline = livePipeline(loadConfig(), { outDir: () => join(work, "out") });
    const started = new Map<string, number>();
    const memory = new TreeMemorySampler();
    const t0 = performance.now();
    const state = await runStages(pipeline.stages(job), {
      jobId: job.id,
      workDir: join(work, "state"),
      initialState: pipeline.initialState(job),
      signal: new AbortController().signal,
      onProgress: (stage) => {
        if (started.has(stage)) return;
        started.set(stage, performance.now());
        memory.mark(stage);
      },
    });
    const total = (performance.now() - t0) / 1000;
    const peaks = await memory.stop();
    const names = [...started.keys()];
    const rows = names.map((name, i) => {
      const m = peaks.byLabel.get(name);
      return {
        stage: name,
        seconds: ((i + 1 < names.length ? started.get(names[i + 1]!)! : t0 + total * 1000) - started.get(name)!) / 1000,
        "peak RSS, MiB": Math.round((m?.total ?? 0) / MIB),
        "largest process, MiB": m ? `${Math.round(m.largest / MIB)} (${m.largestCommand})` : "",
      };
    });
    const largest = [...peaks.byLabel.values()].reduce((a, b) => (b.largest > a.largest ? b : a), { largest: 0, largestCommand: "" });
    rows.push({ stage: "whole job", seconds: total, "peak RSS, MiB": Math.round(peaks.peak / MIB), "largest process, MiB": `${Math.round(largest.largest / MIB)} (${largest.largestCommand})` });
    return { minutes, video, trailer, clips: state.rendered?.length ?? 0, engine: state.engine, rows, total };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function printJobBench(b: JobBench): void {
  const kind = b.video ? "1920x1080 video" : "audio only, so audiograms";
  console.log(`live job on a ${b.minutes}-minute two-speaker episode (${kind}${b.trailer ? ", with trailer" : ""}), ${cpus().length} cores (${cpus()[0]?.model}); ${b.clips} clips; engine ${JSON.stringify(b.engine)}`);
  console.log(table(b.rows));
  console.log("peak RSS: the whole process tree's resident memory, summed, at its highest sample (every 200 ms); largest process: the biggest own peak (VmHWM) of one process alive during the stage (this bench process's counts from its start)");
  console.log(`real-time factor of the whole job: ${(b.total / (b.minutes * 60)).toFixed(3)}`);
}

if (import.meta.main) {
  const minutes = Number(process.argv.find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 10);
  if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("warn");
  printJobBench(await benchJob(minutes, { trailer: process.argv.includes("--trailer"), video: process.argv.includes("--video") }));
  process.exit(0);
}
