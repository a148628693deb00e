#!/usr/bin/env bun
/**
 * Render benchmark: for a 45 s clip in each format, the full renderer (framing incl. face analysis,
 * captions, loudness) next to the floor, a plain ffmpeg re-encode of the same segment to the same
 * size with the same encoder settings. Prints a table; the target ratio is <= 1.3. The last rows
 * render one clip in both formats at once, as a live job does (renderClipFormats: one audio,
 * analysis beside the other format's encode), against the sum of the two floors. Last, the whole
 * live job on a 10-minute source, stage by stage (scripts/bench/job.ts; --job-minutes 0 skips it).
 *
 *   bun scripts/bench/render.ts [--seconds 45] [--runs 3] [--only audiogram] [--job-minutes 10]
 *
 * --runs N times floor and render in turn N times and reports the median of the per-run ratios
 * (and the fastest of each): on a shared machine a slow spell then lands on one pair rather than on
 * one side of the comparison. --only keeps the cases whose name contains the text.
 *
 * Sources are built from ../shared/media (a 1920x1080 two-person composition looped to 60 s, and
 * an audio-only track from it), so the bench needs nothing else.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir, cpus } from "node:os";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { detectEngine, videoEncoderArgs } from "../../src/media/ffmpeg-engine.ts";
import { renderClip, renderClipFormats, DEFAULT_RENDER_QUALITY } from "../../src/pipeline/render/render.ts";
import { FORMATS, framingFilter, type ClipFormat, type CropPath } from "../../src/pipeline/render/graph.ts";
import { planSpeakerCrop } from "../../src/pipeline/render/crop.ts";
import { median } from "../../src/pipeline/vector-math.ts";
import type { MediaInfo, Word } from "../../src/pipeline/types.ts";
import { loopedPair, talkingHeadsPair } from "../../test/helpers/compositions.ts";
import { benchJob, printJobBench } from "./job.ts";
import { numberFlag, stringFlag } from "./load.ts";
import { setLogLevel } from "../../src/log.ts";

const SECONDS = numberFlag("seconds", 45);
const RUNS = numberFlag("runs", 3);
/** Only the cases whose name contains this text. */
const ONLY = stringFlag("only") ?? "";
const START = 5;
const JOB_MINUTES = numberFlag("job-minutes", 10);
if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("warn");

async function buildSource(dir: string): Promise<{ video: MediaInfo; audio: MediaInfo; words: Word[] }> {
  const pair = await talkingHeadsPair(join(dir, "pair.mp4"), { crf: 18 });
  const long = await loopedPair(pair, join(dir, "source.mp4"), 60);
  const wav = join(dir, "source.wav");
  await ffmpeg(["-y", ...mediaInput(long), "-vn", "-c:a", "pcm_s16le", wav]);
  const words: Word[] = [];
  for (let t = 0.2; t < 60; t += 0.42) {
    words.push({ word: "word", start: t, end: t + 0.35, speaker: Math.floor(t / 5) % 2 === 0 ? "Speaker 1" : "Speaker 2" });
  }
  return { video: await probeMedia(long), audio: await probeMedia(wav), words };
}

/**
 * The floor: same segment, same output pixels (the same crop window, following the same path when the
 * renderer follows a speaker), same size and encoder settings; no captions, analysis or loudness.
 */
async function plainReencode(source: MediaInfo, format: ClipFormat, out: string, crop?: CropPath): Promise<void> {
  const { width: W, height: H } = FORMATS[format];
  const engine = await detectEngine();
  const enc = videoEncoderArgs(engine.encoder, DEFAULT_RENDER_QUALITY);
  const vf = source.hasVideo ? framingFilter({ source, format, crop, clipStart: START }) : null;
  const input = source.hasVideo
    ? ["-ss", String(START), "-t", String(SECONDS), ...mediaInput(source.path)]
    : ["-f", "lavfi", "-i", `color=c=black:s=${W}x${H}:r=25`, "-ss", String(START), "-t", String(SECONDS), ...mediaInput(source.path)];
  await ffmpeg([
    "-y", ...enc.inputArgs, ...input,
    ...(vf ? ["-vf", `${vf}${enc.filterSuffix}`] : ["-map", "0:v", "-map", "1:a", "-vf", `null${enc.filterSuffix}`]),
    ...enc.args, "-c:a", "aac", "-b:a", `${DEFAULT_RENDER_QUALITY.audioBitrateKbps}k`, "-ar", "48000",
    "-t", String(SECONDS), "-movflags", "+faststart", out,
  ]);
}

const seconds = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
};

/**
 * Floor and render timed in turn, RUNS times: on a shared machine a slow spell then hits a pair, not
 * one side of every pair. Reports the fastest of each and the median of the paired ratios.
 */
async function paired(floor: () => Promise<number>, render: () => Promise<unknown>): Promise<{ floor: number; full: number; ratio: number; ratios: number[] }> {
  const f: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    f.push(await floor());
    r.push(await seconds(render));
  }
  const ratios = r.map((x, i) => x / f[i]!);
  return { floor: Math.min(...f), full: Math.min(...r), ratio: median(ratios), ratios };
}

const dir = await mkdtemp(join(tmpdir(), "clipyard-bench-render-"));
try {
  const engine = await detectEngine();
  const { video, audio, words } = await buildSource(dir);
  const rows: string[][] = [];
  /** Each single-format case's floor, to time again beside the both-formats renders. */
  const floors = new Map<string, () => Promise<number>>();
  const cases: { name: string; source: MediaInfo; format: ClipFormat; crop?: "speaker" | "centre" }[] = [
    { name: "video 9:16 speaker crop", source: video, format: "linkedin", crop: "speaker" },
    { name: "video 9:16 centre crop", source: video, format: "linkedin", crop: "centre" },
    { name: "video 16:9", source: video, format: "x" },
    { name: "audiogram 9:16", source: audio, format: "linkedin" },
    { name: "audiogram 16:9", source: audio, format: "x" },
  ];
  for (const c of cases.filter((c) => c.name.includes(ONLY))) {
    // A speaker-following crop shows the talking face, which costs the encoder more than a still
    // corner of the frame: the floor encodes the same window path, planned here (and timed: that is
    // the face analysis renderClip also runs, before its encode can start).
    let path: CropPath | undefined;
    let analysis = "";
    if (c.crop === "speaker") {
      const t = performance.now();
      path = (await planSpeakerCrop(c.source, words, START, START + SECONDS)).path;
      analysis = ((performance.now() - t) / 1000).toFixed(1);
    }
    const floor = () => seconds(() => plainReencode(c.source, c.format, join(dir, "floor.mp4"), path));
    const m = await paired(
      floor,
      () => renderClip({ source: c.source, words, start: START, end: START + SECONDS, format: c.format, crop: c.crop, style: "bold", outPath: join(dir, "full.mp4") }),
    );
    floors.set(c.name, floor);
    rows.push([c.name, m.floor.toFixed(1), m.full.toFixed(1), m.ratio.toFixed(2), m.ratios.map((x) => x.toFixed(2)).join(" / "), analysis || "-"]);
  }
  const both: { name: string; source: MediaInfo; parts: string[] }[] = [
    { name: "video, both formats (9:16 speaker + 16:9)", source: video, parts: ["video 9:16 speaker crop", "video 16:9"] },
    { name: "audiogram, both formats", source: audio, parts: ["audiogram 9:16", "audiogram 16:9"] },
  ];
  for (const b of both.filter((b) => b.name.includes(ONLY) && b.parts.every((p) => floors.has(p)))) {
    const m = await paired(
      async () => (await floors.get(b.parts[0]!)!()) + (await floors.get(b.parts[1]!)!()),
      () =>
        renderClipFormats({ source: b.source, words, start: START, end: START + SECONDS, style: "bold" }, [
          { format: "linkedin", outPath: join(dir, "full-v.mp4") },
          { format: "x", outPath: join(dir, "full-h.mp4") },
        ]),
    );
    rows.push([b.name, m.floor.toFixed(1), m.full.toFixed(1), m.ratio.toFixed(2), m.ratios.map((x) => x.toFixed(2)).join(" / "), "-"]);
  }
  const header = ["case", "plain re-encode s", "renderClip s", "ratio (median)", "ratio per run", "of which face analysis s"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => "| " + r.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
  console.log(`render bench: ${SECONDS} s clip, encoder ${engine.encoder} (${DEFAULT_RENDER_QUALITY.preset}, crf ${DEFAULT_RENDER_QUALITY.crf}), ${cpus().length} cores, ${RUNS} paired run(s): fastest floor and render, median of the per-run ratios`);
  console.log(line(header));
  console.log("| " + widths.map((w) => "-".repeat(w)).join(" | ") + " |");
  for (const r of rows) console.log(line(r));
  if (JOB_MINUTES > 0) {
    console.log("");
    printJobBench(await benchJob(JOB_MINUTES));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
