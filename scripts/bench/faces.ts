#!/usr/bin/env bun
/**
 * Face analysis benchmark: the speaker-following crop's analysis (sampled frames, faces, tracks,
 * speaker assignment) on real two-person compositions, with the detector run on every sample and
 * with the samples between detector passes followed by FaceMesh alone. Prints, per case and
 * setting, the median wall time, the per-speaker mouth-motion contrast that ties faces to speakers,
 * and the share of instants where the active speaker's face is inside the 9:16 window (the eased
 * move at each change of speaker, every 5 s here, counts as missed, so about 95% is the ceiling).
 * Compositions: the listener a still frame ("still"), both shots panning ("moving"), and a listener
 * who moves: their own video slowed to 2/3 speed and muted ("listener 0.67x"), or to half speed
 * with both shots panning ("listener 0.5x, pan").
 *
 *   bun scripts/bench/faces.ts [--runs 3] [--seconds 45] [--settings default] [--kinds still,"listener 0.8x"]
 *
 * `--settings default` measures the default detector cadence only.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir, cpus } from "node:os";
import { join } from "node:path";
import { probeMedia } from "../../src/media/probe.ts";
import { loadFaceDetector } from "../../src/inference/face-detector.ts";
import { planSpeakerCrop } from "../../src/pipeline/render/crop.ts";
import { cropWindowAt } from "../../src/pipeline/render/crop-path.ts";
import { median } from "../../src/pipeline/vector-math.ts";
import type { MediaInfo, Word } from "../../src/pipeline/types.ts";
import { loopedPair, PAIR_SHOTS, pairPan, talkingHeadsPair } from "../../test/helpers/compositions.ts";
import { numberFlag, stringFlag } from "./load.ts";

const RUNS = numberFlag("runs", 3);
const SECONDS = numberFlag("seconds", 45);
const TURN = 5;
const DEFAULT_ONLY = stringFlag("settings") === "default";

const KINDS = {
  still: { pan: false },
  moving: { pan: true },
  "listener 0.67x": { pan: false, listener: "moving", listenerSpeed: 0.67 },
  "listener 0.5x, pan": { pan: true, listener: "moving", listenerSpeed: 0.5 },
  "listener 0.8x": { pan: false, listener: "moving", listenerSpeed: 0.8 },
  "listener 0.9x, pan": { pan: true, listener: "moving", listenerSpeed: 0.9 },
} as const;
type Kind = keyof typeof KINDS;

async function composition(dir: string, kind: Kind): Promise<MediaInfo> {
  const name = kind.replace(/[^a-z0-9]+/g, "-");
  const pair = await talkingHeadsPair(join(dir, `pair-${name}.mp4`), { turn: TURN, crf: 18, ...KINDS[kind] });
  const long = await loopedPair(pair, join(dir, `source-${name}.mp4`), SECONDS, { turn: TURN });
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
  const only = stringFlag("kinds")?.split(",");
  for (const kind of (Object.keys(KINDS) as Kind[]).filter((k) => !only || only.some((o) => k.startsWith(o)))) {
    const source = await composition(dir, kind);
    const words = turnsWords(source.durationSeconds);
    const settings = [["detector every sample", 0], ["detector every 1 s", 1], ["detector every 2 s (default)", 2]] as const;
    for (const [label, every] of DEFAULT_ONLY ? settings.slice(2) : settings) {
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
        // Ground truth: the shots' places on the canvas plus the pan; the face is about 240 px wide
        // in the middle of its shot.
        const shot = (onLeft ? PAIR_SHOTS.left : PAIR_SHOTS.right) + PAIR_SHOTS.size / 2;
        const faceX = shot + (KINDS[kind].pan ? pairPan(t % (2 * TURN)) : 0);
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
