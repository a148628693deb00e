#!/usr/bin/env bun
/**
 * Whole live job on a long source, stage by stage: a 10-minute episode built from the real
 * two-speaker call (looped), run through the same stages a live job runs (acquire of a local file,
 * transcription, highlights, renders of 3 clips x 2 formats, notes). Prints seconds per stage.
 * Usage: bun scripts/bench/job.ts [minutes=10] [--trailer]
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
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { table } from "./load.ts";

export interface JobBench {
  minutes: number;
  clips: number;
  engine: unknown;
  rows: { stage: string; seconds: number }[];
  total: number;
}

/** Runs the live pipeline's stages on an N-minute episode and times each. */
export async function benchJob(minutes: number, trailer = false): Promise<JobBench> {
  const work = mkdtempSync(join(tmpdir(), "clipyard-bench-job-"));
  try {
    const source = join(work, "episode.wav");
    const loops = Math.ceil((minutes * 60) / 30);
    await ffmpeg(["-y", "-stream_loop", String(loops - 1), ...mediaInput(join(SHARED_MEDIA, "two_speakers_call.wav")), "-t", String(minutes * 60), source]);
    const job = { id: "job_bench", sourceType: "file", sourceUrl: source, options: JSON.stringify(trailer ? { include_trailer: true } : {}) } as JobRow;
    const pipeline = livePipeline(loadConfig(), { outDir: () => join(work, "out") });
    const started = new Map<string, number>();
    const t0 = performance.now();
    const state = await runStages(pipeline.stages(job), {
      jobId: job.id,
      workDir: join(work, "state"),
      initialState: pipeline.initialState(job),
      signal: new AbortController().signal,
      onProgress: (stage) => {
        if (!started.has(stage)) started.set(stage, performance.now());
      },
    });
    const total = (performance.now() - t0) / 1000;
    const names = [...started.keys()];
    const rows = names.map((name, i) => ({
      stage: name,
      seconds: ((i + 1 < names.length ? started.get(names[i + 1]!)! : t0 + total * 1000) - started.get(name)!) / 1000,
    }));
    rows.push({ stage: "whole job", seconds: total });
    return { minutes, clips: state.rendered?.length ?? 0, engine: state.engine, rows, total };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function printJobBench(b: JobBench): void {
  console.log(`live job on a ${b.minutes}-minute two-speaker episode (audio only, so audiograms), ${cpus().length} cores (${cpus()[0]?.model}); ${b.clips} clips; engine ${JSON.stringify(b.engine)}`);
  console.log(table(b.rows));
  console.log(`real-time factor of the whole job: ${(b.total / (b.minutes * 60)).toFixed(3)}`);
}

if (import.meta.main) {
  const minutes = Number(process.argv.find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 10);
  if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("warn");
  printJobBench(await benchJob(minutes, process.argv.includes("--trailer")));
  process.exit(0);
}
