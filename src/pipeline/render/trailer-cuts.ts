/**
 * The trailer's video with one lossy encode per frame and no second pass over the segments. The
 * crossfade plan (planJoin) is made before anything is rendered, from the frame count each segment
 * is rendered to, so each segment's render can cut its frames three ways in the same ffmpeg: the
 * head it blends with the segment before, the body it shows alone and the tail it blends with the
 * segment after. Bodies are encoded at the delivery settings and are final; heads and tails (a
 * crossfade's worth of frames, kept losslessly) are blended and encoded as the joints; the pieces
 * are then concatenated by stream copy. Before, every segment was encoded losslessly whole and the
 * join decoded and encoded every frame again (docs/benchmarks/render.md).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../media/ffmpeg.ts";
import type { FrameCut, FrameRate, VideoEncoder } from "./clip-video.ts";
import { pieceGraph, planJoin, type FrameClock, type JoinPiece } from "./trailer-join.ts";

/** Frames [from, to) of one segment. */
export type FrameRange = [number, number];

/** Where one segment's frames go: blended at the joint before, shown alone, blended at the joint after. */
export interface SegmentCuts {
  head?: FrameRange;
  body?: FrameRange;
  tail?: FrameRange;
}

export interface CutPlan {
  rate: FrameRate;
  clock: FrameClock;
  /** Frames each segment is rendered to. */
  frames: number[];
  pieces: JoinPiece[];
  cuts: SegmentCuts[];
}

/** The source's frame rate as a fraction: whole rates, the NTSC 1000/1001 family, else to a thousandth. */
export function frameRateOf(fps: number): FrameRate {
  if (!(fps > 0)) throw new Error(`no frame rate to render the trailer at (got ${fps})`);
  if (Math.abs(fps - Math.round(fps)) < 0.01) return { num: Math.round(fps), den: 1 };
  const ntsc = fps * 1.001;
  if (Math.abs(ntsc - Math.round(ntsc)) < 0.01) return { num: Math.round(ntsc) * 1000, den: 1001 };
  return { num: Math.round(fps * 1000), den: 1000 };
}

/**
 * The MP4 time base every piece is written in: what ffmpeg's muxer picks for the rate by itself
 * (25 fps: 12800 ticks a second, 512 a frame), pinned so that pieces of different encodes agree.
 */
export function clockOf(rate: FrameRate): FrameClock {
  return rate.den === 1 ? { timescale: rate.num * 512, frameTicks: 512 } : { timescale: rate.num, frameTicks: rate.den };
}

/**
 * The crossfade plan of segments lasting `durations` seconds (their sound's length), each rendered
 * to the nearest whole number of frames at `rate`: the same pieces the one-graph xfade chain would
 * blend (planJoin), and each segment's share of them.
 */
export function planCuts(durations: number[], rate: FrameRate, crossfade: number): CutPlan {
  const clock = clockOf(rate);
  const frames = durations.map((d) => Math.max(1, Math.round((d * rate.num) / rate.den)));
  const pieces = planJoin(frames.map((n, i) => ({ frames: n, duration: durations[i]! })), crossfade, clock);
  const cuts: SegmentCuts[] = frames.map(() => ({}));
  for (const p of pieces) {
    if (p.kind === "body") {
      cuts[p.seg]!.body = [p.from, p.to];
    } else {
      cuts[p.seg - 1]!.tail = [p.from, frames[p.seg - 1]!];
      cuts[p.seg]!.head = [0, p.frames];
    }
  }
  return { rate, clock, frames, pieces, cuts };
}

/** Frames of the joined trailer: the bodies, and each joint's lead frame and blended frames. */
export function joinedFrames(plan: CutPlan): number {
  return plan.pieces.reduce((n, p) => n + (p.kind === "body" ? p.to - p.from : p.frames + 1), 0);
}

/** Rendered cuts of one segment. */
export interface SegmentFiles {
  head?: string;
  body?: string;
  tail?: string;
}

/** The FrameCuts a segment's render makes: bodies with the delivery encoder, heads and tails with the lossless one. */
export function segmentCuts(plan: CutPlan, seg: number, enc: VideoEncoder, edgeEnc: VideoEncoder): { cuts: FrameCut[]; files: (paths: string[]) => SegmentFiles } {
  const c = plan.cuts[seg]!;
  const which = (["head", "body", "tail"] as const).filter((k) => c[k]);
  const cuts = which.map((k) => ({ from: c[k]![0], to: c[k]![1], enc: k === "body" ? enc : edgeEnc, name: `seg${seg}-${k}` }));
  return { cuts, files: (paths) => Object.fromEntries(which.map((k, i) => [k, paths[i]!])) as SegmentFiles };
}

/**
 * Encodes each joint from the tail and head it blends, and concatenates bodies and joints in order
 * by stream copy into `out` (video only). Every ffmpeg here holds at most two short edges.
 */
export async function joinCuts(plan: CutPlan, files: SegmentFiles[], crossfade: number, enc: VideoEncoder, work: string, out: string): Promise<void> {
  const names: string[] = [];
  for (const [i, p] of plan.pieces.entries()) {
    if (p.kind === "body") {
      names.push(files[p.seg]!.body!);
      continue;
    }
    // The tail starts at the joint's first frame, so the piece's frame numbers start at 0 there.
    const { graph } = pieceGraph({ ...p, from: 0 }, crossfade, plan.clock, enc.filterSuffix);
    const name = join(work, `joint${String(i).padStart(3, "0")}.mp4`);
    await ffmpeg([
      "-y", ...enc.inputArgs, ...mediaInput(files[p.seg - 1]!.tail!), ...mediaInput(files[p.seg]!.head!),
      "-filter_complex", graph, "-map", "[v]", "-an", ...enc.args, "-video_track_timescale", String(plan.clock.timescale), "-f", "mp4", name,
    ]);
    names.push(name);
  }
  // The list is written here from our own file names, all in `work`, so the concat demuxer's safe mode suffices.
  const list = join(work, "cuts.txt");
  await writeFile(list, names.map((n) => `file '${n.slice(work.length + 1)}'\n`).join(""));
  await ffmpeg(["-y", "-f", "concat", "-safe", "1", "-i", list, "-map", "0:v:0", "-c", "copy", "-f", "mp4", out]);
}
