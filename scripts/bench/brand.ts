#!/usr/bin/env bun
/**
 * What a brand costs a render: the same clip rendered without a brand and with a logo, in turn RUNS
 * times, for a 16:9 video clip and a 9:16 audiogram; then what the covers cost (one per format, from
 * the face analysis the 9:16 render ran). Reported as the CPU seconds of the ffmpeg processes (this
 * process's reaped children, /proc/self/stat), which a busy shared machine disturbs far less than
 * wall time, and wall time beside it.
 * Without a brand the filter graph is the one renders always had (test/unit/pipeline/render/brand.test.ts), so
 * an unbranded job pays only for its covers.
 *
 *   bun scripts/bench/brand.ts [--seconds 15] [--runs 3]
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir, cpus } from "node:os";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { renderClipFormats, type ClipFormat } from "../../src/pipeline/render/render.ts";
import { renderClipCovers } from "../../src/pipeline/render/cover.ts";
import type { SpeakerCropPlan } from "../../src/pipeline/render/crop.ts";
import type { BrandLook } from "../../src/pipeline/render/brand.ts";
import { median } from "../../src/pipeline/vector-math.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { talkingHeadsPair } from "../../test/helpers/compositions.ts";
import { numberFlag } from "./load.ts";
import { setLogLevel } from "../../src/log.ts";

const SECONDS = numberFlag("seconds", 15);
const RUNS = numberFlag("runs", 3);
if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("warn");

const dir = await mkdtemp(join(tmpdir(), "clipyard-bench-brand-"));
try {
  const pair = await talkingHeadsPair(join(dir, "pair.mp4"), { crf: 18 });
  const src = join(dir, "source.mp4");
  await ffmpeg(["-y", "-stream_loop", "3", ...mediaInput(pair), "-c", "copy", "-t", String(SECONDS + 2), src]);
  const wav = join(dir, "source.wav");
  await ffmpeg(["-y", ...mediaInput(src), "-vn", "-c:a", "pcm_s16le", wav]);
  const video = await probeMedia(src);
  const audio = await probeMedia(wav);
  const words: Word[] = [];
  for (let t = 0.2; t < SECONDS; t += 0.42) words.push({ word: "word", start: t, end: t + 0.35, speaker: Math.floor(t / 5) % 2 === 0 ? "Speaker 1" : "Speaker 2" });
  const logo = join(dir, "logo.png");
  await ffmpeg(["-y", "-f", "lavfi", "-i", "color=c=0xFF00FF:s=400x160:d=1", "-frames:v", "1", logo]);
  const look: BrandLook = { logo: { path: logo, width: 400, height: 160 }, logo_position: "top-right", logo_scale: 0.15, accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Sans" };
  /** Children's user + system CPU seconds so far (fields 16 and 17 of /proc/self/stat, in clock ticks of 1/100 s). */
  const childCpu = () => {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  };
  const time = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    const c = childCpu();
    await fn();
    return { wall: (performance.now() - t) / 1000, cpu: childCpu() - c };
  };
  const rows: string[][] = [];
  const cases: Array<{ name: string; source: typeof video; format: ClipFormat }> = [
    { name: "video 16:9", source: video, format: "x" },
    { name: "audiogram 9:16", source: audio, format: "linkedin" },
  ];
  for (const c of cases) {
    const plain: Array<{ wall: number; cpu: number }> = [];
    const branded: Array<{ wall: number; cpu: number }> = [];
    const render = (withLook: boolean) => renderClipFormats({ source: c.source, words, start: 0, end: SECONDS, style: "bold", card: c.source.hasVideo ? undefined : { title: "A clip title" }, ...(withLook ? { look } : {}) }, [{ format: c.format, outPath: join(dir, `${c.format}-${withLook}.mp4`) }]);
    for (let i = 0; i < RUNS; i++) {
      plain.push(await time(() => render(false)));
      branded.push(await time(() => render(true)));
    }
    const cpu = (xs: typeof plain) => median(xs.map((x) => x.cpu));
    const wall = (xs: typeof plain) => Math.min(...xs.map((x) => x.wall));
    rows.push([c.name, `${cpu(plain).toFixed(2)} / ${wall(plain).toFixed(1)}`, `${cpu(branded).toFixed(2)} / ${wall(branded).toFixed(1)}`, (cpu(branded) / cpu(plain)).toFixed(3)]);
  }
  // Covers of a clip rendered in both formats, with the 9:16 face analysis the render ran.
  let plan: SpeakerCropPlan | undefined;
  const outs = await renderClipFormats({ source: video, words, start: 0, end: SECONDS, look }, [{ format: "linkedin", outPath: join(dir, "l.mp4") }, { format: "x", outPath: join(dir, "x.mp4") }], { onCropPlan: (p) => (plan = p) });
  const covers: Array<{ wall: number; cpu: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    covers.push(await time(() => renderClipCovers({ source: video, words, start: 0, end: SECONDS, title: "Bees on the Roof Above the Bus Stop", look, plan, rendered: { linkedin: outs[0]!, x: outs[1]! }, outPath: (f) => join(dir, `cover-${f}.jpg`) })));
  }
  console.log(`brand bench: ${SECONDS} s clips, ${RUNS} runs, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})`);
  console.log("| case | no brand: ffmpeg CPU s (median) / wall s (fastest) | logo: CPU / wall | logo / none, CPU |\n|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  console.log(`| covers, both formats | | ${median(covers.map((x) => x.cpu)).toFixed(2)} / ${Math.min(...covers.map((x) => x.wall)).toFixed(1)} | |`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
