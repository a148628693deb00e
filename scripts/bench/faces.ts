#!/usr/bin/env bun
/**
 * Face analysis benchmark: the speaker-following crop's analysis (sampled frames, faces, tracks,
 * speaker assignment) on real two-person compositions, with the detector run on every sample and
 * with the samples between detector passes followed by FaceMesh alone. Prints, per case and
 * setting, the median wall time, the per-speaker mouth-motion contrast that ties faces to speakers,
 * and the share of instants where the active speaker's face is inside the 9:16 window.
 *
 *   bun scripts/bench/faces.ts [--runs 3] [--seconds 45]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir, cpus } from "node:os";
import { join } from "node:path";
import { ffmpeg } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { loadFaceDetector } from "../../src/models/face-detector.ts";
import { planSpeakerCrop } from "../../src/pipeline/crop.ts";
import { cropWindowAt } from "../../src/pipeline/crop-path.ts";
import { median } from "../../src/pipeline/vector-math.ts";
import type { MediaInfo, Word } from "../../src/pipeline/types.ts";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";

const args = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const RUNS = opt("runs", 3);
const SECONDS = opt("seconds", 45);
const TURN = 5;

/**
 * Two talking heads side by side on a 1920x1080 canvas taking TURN-second turns; the one not
 * speaking is a still frame. "moving" pans both shots too (up to 60 px either way, about 90 px/s),
 * so followed regions must keep up with the faces between detector passes.
 */
async function composition(dir: string, kind: "still" | "moving"): Promise<MediaInfo> {
  const pair = join(dir, `pair-${kind}.mp4`);
  const a = join(SHARED_MEDIA, "talking_head_a.mp4");
  const b = join(SHARED_MEDIA, "talking_head_b.mp4");
  const pan = kind === "moving" ? ",pad=760:760:60:60,crop=640:640:60+60*sin(1.5*t):60+40*sin(1.1*t)" : "";
  const shot = (i: number, pad: string) =>
    `[${i}:v]trim=0:${TURN},setpts=PTS-STARTPTS,fps=25,scale=640:640,setsar=1,tpad=${pad}_mode=clone:${pad}_duration=${TURN}${pan}`;
  await ffmpeg([
    "-y", "-i", a, "-i", b,
    "-filter_complex",
    `${shot(0, "stop")}[l];${shot(1, "start")}[r];` +
      `color=c=0x202830:s=1920x1080:r=25:d=${2 * TURN}[bg];[bg][l]overlay=160:220[bl];[bl][r]overlay=1120:220[v];` +
      `[0:a]atrim=0:${TURN},asetpts=PTS-STARTPTS,aresample=48000[a0];[1:a]atrim=0:${TURN},asetpts=PTS-STARTPTS,aresample=48000[a1];[a0][a1]concat=n=2:v=0:a=1[a]`,
    "-map", "[v]", "-map", "[a]", "-t", String(2 * TURN), "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-c:a", "aac", pair,
  ]);
  const long = join(dir, `source-${kind}.mp4`);
  await ffmpeg(["-y", "-stream_loop", String(Math.ceil(SECONDS / (2 * TURN))), "-i", pair, "-c", "copy", "-t", String(SECONDS), long]);
  return probeMedia(long);
}

function turnsWords(seconds: number): Word[] {
  const words: Word[] = [];
  for (let t = 0.2; t < seconds; t += 0.42) {
    words.push({ word: "word", start: t, end: t + 0.35, speaker: Math.floor(t / TURN) % 2 === 0 ? "Speaker 1" : "Speaker 2" });
  }
  return words;
}

const dir = await mkdtemp(join(tmpdir(), "clipyard-bench-faces-"));
try {
  await loadFaceDetector();
  const rows: string[][] = [];
  for (const kind of ["still", "moving"] as const) {
    const source = await composition(dir, kind);
    const words = turnsWords(source.durationSeconds);
    for (const [label, every] of [["detector every sample", 0], ["detector every 1 s", 1], ["detector every 2 s (default)", 2]] as const) {
      const times: number[] = [];
      let plan!: Awaited<ReturnType<typeof planSpeakerCrop>>;
      for (let r = 0; r < RUNS; r++) {
        const t0 = performance.now();
        plan = await planSpeakerCrop(source, words, 0, source.durationSeconds, { detectEverySeconds: every });
        times.push((performance.now() - t0) / 1000);
      }
      let inside = 0, total = 0;
      const left = plan.speakers.bySpeaker.get("Speaker 1");
      const right = plan.speakers.bySpeaker.get("Speaker 2");
      for (let t = 0; t < source.durationSeconds; t += 0.25) {
        const onLeft = Math.floor(t / TURN) % 2 === 0;
        // Ground truth: the shots' places on the canvas (160..800 and 1120..1760) less the pan; the
        // face is about 240 px wide in the middle of its shot.
        const faceX = (onLeft ? 480 : 1440) - (kind === "moving" ? 60 * Math.sin(1.5 * (t % (2 * TURN))) : 0);
        const [x0, x1] = cropWindowAt(plan.path, t);
        total++;
        if (faceX - 120 >= x0 && faceX + 120 <= x1) inside++;
      }
      const tracks = plan.tracks.map((tr) => tr.obs[0]!.cx < 0.5 ? "L" : "R").join("");
      const conf = ["Speaker 1", "Speaker 2"].map((s) => (plan.speakers.confidence.get(s) ?? 0).toFixed(2)).join(" / ");
      const assigned = `${left === undefined ? "-" : plan.tracks.find((t) => t.id === left)!.obs[0]!.cx < 0.5 ? "L" : "R"}${right === undefined ? "-" : plan.tracks.find((t) => t.id === right)!.obs[0]!.cx < 0.5 ? "L" : "R"}`;
      rows.push([kind, label, median(times).toFixed(2), String(plan.framesAnalysed), tracks, assigned, conf, `${Math.round((100 * inside) / total)}%`]);
      console.error(rows[rows.length - 1]!.join(" | "));
    }
  }
  console.log(`\nFace analysis, ${SECONDS} s of a 1920x1080 two-person composition, ${TURN} s turns; ${cpus().length} x ${cpus()[0]?.model}; median of ${RUNS}\n`);
  console.log("| composition | setting | seconds | samples | tracks | speakers 1/2 | contrast 1 / 2 | speaker in crop |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
