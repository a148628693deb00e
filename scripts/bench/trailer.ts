#!/usr/bin/env bun
/**
 * CPU seconds of the render and trailer stages of the job `clipyard process EPISODE --trailer
 * --clips 1 --min-seconds 20 --max-seconds 40` runs, on two episodes: "sample", the bundled 152 s
 * sample over a 640x360 colour track (as test/e2e/correction-trailer.test.ts makes it), and "pair",
 * the same audio under the looped 1920x1080 two-person composition (test/helpers/compositions.ts),
 * so face analysis has faces to follow. CPU, not wall time, because the machine is shared: this
 * process's own CPU (face analysis runs in it) plus that of the ffmpeg children it waited for.
 * The first run of an episode runs the whole job and keeps the checkpoint taken after clip
 * selection in the cache folder; later runs restore it, so only render, trailer and notes run.
 * With --rerender, the trailer is then rendered again from the run's checkpoint as a re-render
 * after a transcript correction does, twice: with the framing the checkpoint kept and without it.
 * --rerender-only skips the run and re-renders from the checkpoint the last run left.
 * Usage: bun scripts/bench/trailer.ts [sample|pair ...] [--runs N] [--cache DIR] [--rerender | --rerender-only]
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, ROOT_DIR } from "../../src/config.ts";
import type { JobRow } from "../../src/db/schema.ts";
import { setLogLevel } from "../../src/log.ts";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { livePipeline } from "../../src/pipeline/live.ts";
import { readCheckpoint, runStages } from "../../src/pipeline/stage.ts";
import type { LiveState } from "../../src/pipeline/live.ts";
import { trailerPassages } from "../../src/pipeline/render/rerender.ts";
import { planTrailer, renderTrailer } from "../../src/pipeline/render/trailer.ts";
import { talkingHeadsPair } from "../../test/helpers/compositions.ts";
import { table } from "./load.ts";

const TICKS = 100;

/** CPU seconds (user, system) of this process and of its waited-for children, from /proc. */
function cpuNow(): { user: number; sys: number } {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // Fields 14-17 of stat (utime, stime, cutime, cstime) are 12-15 after the command name.
  const [ut, st, cut, cst] = fields.slice(11, 15).map(Number) as [number, number, number, number];
  return { user: (ut + cut) / TICKS, sys: (st + cst) / TICKS };
}

async function buildEpisode(dir: string, kind: string): Promise<string> {
  const out = join(dir, "episode.mp4");
  if (existsSync(out)) return out;
  const audio = mediaInput(join(ROOT_DIR, "fixtures/sample/rooftop-hours.m4a"));
  if (kind === "sample") {
    await ffmpeg([
      "-y", "-f", "lavfi", "-i", "color=c=0x203040:s=640x360:r=25", ...audio,
      "-map", "0:v", "-map", "1:a", "-shortest", "-c:v", "libx264", "-preset", "veryfast", "-crf", "30", "-c:a", "aac", out,
    ]);
  } else {
    const pair = await talkingHeadsPair(join(dir, "pair.mp4"), { crf: 23 });
    await ffmpeg([
      "-y", "-stream_loop", "-1", ...mediaInput(pair), ...audio, "-map", "0:v:0", "-map", "1:a:0", "-shortest",
      "-c:v", "copy", "-c:a", "aac", "-b:a", "128k", out,
    ]);
  }
  return out;
}

async function runOnce(kind: string, cache: string) {
  const dir = join(cache, kind);
  mkdirSync(dir, { recursive: true });
  const source = await buildEpisode(dir, kind);
  const state = join(dir, "state");
  const saved = join(dir, "checkpoint.after-highlights.json");
  if (existsSync(saved)) {
    mkdirSync(state, { recursive: true });
    copyFileSync(saved, join(state, "checkpoint.json"));
  } else {
    rmSync(state, { recursive: true, force: true });
  }
  rmSync(join(dir, "out"), { recursive: true, force: true });
  const options = { include_trailer: true, clip_count: 1, min_clip_seconds: 20, max_clip_seconds: 40 };
  const job = { id: `job_bench_${kind}`, sourceType: "file", sourceUrl: source, options: JSON.stringify(options) } as JobRow;
  const pipeline = livePipeline(loadConfig(), { outDir: () => join(dir, "out") });
  const marks: { stage: string; wall: number; cpu: { user: number; sys: number } }[] = [];
  const mark = (stage: string) => marks.push({ stage, wall: performance.now(), cpu: cpuNow() });
  const result = await runStages(pipeline.stages(job), {
    jobId: job.id,
    workDir: state,
    initialState: pipeline.initialState(job),
    signal: new AbortController().signal,
    onProgress: (stage) => {
      if (marks.some((m) => m.stage === stage)) return;
      // The checkpoint after clip selection, kept for the next runs.
      if (stage === "render" && !existsSync(saved)) copyFileSync(join(state, "checkpoint.json"), saved);
      mark(stage);
    },
  });
  mark("end");
  const rows = marks.slice(0, -1).map((m, i) => {
    const next = marks[i + 1]!;
    return {
      stage: m.stage,
      "wall s": ((next.wall - m.wall) / 1000).toFixed(1),
      "user s": (next.cpu.user - m.cpu.user).toFixed(1),
      "sys s": (next.cpu.sys - m.cpu.sys).toFixed(1),
      "CPU s": (next.cpu.user - m.cpu.user + next.cpu.sys - m.cpu.sys).toFixed(1),
    };
  });
  return { rows, trailer: (result as { trailer?: unknown }).trailer, clips: (result as { rendered?: unknown[] }).rendered?.length ?? 0 };
}

/** The MiB of the MP4 files a run wrote (clips in both formats and the trailer). */
function videoMiB(dir: string): string {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".mp4")) : [];
  return (files.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0) / 2 ** 20).toFixed(1);
}

/** CPU and wall seconds of rendering the run's trailer again, with and without the checkpoint's framing. */
async function rerender(kind: string, cache: string) {
  const dir = join(cache, kind);
  const state = readCheckpoint<LiveState>(join(dir, "state"))!.state;
  const segments = planTrailer(trailerPassages(state), state.transcript!.words);
  const rows = [];
  for (const framing of ["kept", "none"] as const) {
    const t0 = { wall: performance.now(), cpu: cpuNow() };
    await renderTrailer({ source: state.source!, words: state.transcript!.words, segments, knownFraming: framing === "kept" ? state.trailerFraming : undefined, outPath: join(dir, `rerender-${framing}.mp4`) });
    const cpu = cpuNow();
    rows.push({ "re-render framing": framing, "passages kept": String(framing === "kept" ? (state.trailerFraming?.length ?? 0) : 0), "wall s": ((performance.now() - t0.wall) / 1000).toFixed(1), "CPU s": (cpu.user - t0.cpu.user + cpu.sys - t0.cpu.sys).toFixed(1) });
  }
  return rows;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const runs = Number(args[args.indexOf("--runs") + 1] ?? 1) || 1;
  const cache = args.includes("--cache") ? args[args.indexOf("--cache") + 1]! : join(tmpdir(), "clipyard-bench-trailer");
  const kinds = args.filter((a) => a === "sample" || a === "pair");
  if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("warn");
  for (const kind of kinds.length ? kinds : ["sample", "pair"]) {
    for (let r = 0; r < (args.includes("--rerender-only") ? 0 : runs); r++) {
      const load = loadavg()[0]!.toFixed(1);
      const got = await runOnce(kind, cache);
      console.log(`episode ${kind}, run ${r + 1}: ${cpus().length} cores (${cpus()[0]?.model}), load ${load} at start; x264 preset ${process.env.CLIPYARD_X264_PRESET || "veryfast (default)"}; ${got.clips} clip(s), trailer ${JSON.stringify(got.trailer)}; video files ${videoMiB(join(cache, kind, "out"))} MiB`);
      console.log(table(got.rows));
    }
    if (args.includes("--rerender") || args.includes("--rerender-only")) console.log(table(await rerender(kind, cache)));
  }
  process.exit(0);
}
