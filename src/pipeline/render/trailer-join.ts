/**
 * Joining trailer segments with crossfades in bounded memory. One ffmpeg graph chaining `xfade`
 * over every segment (crossfadeGraph) opens them all at once and queues the decoded frames of the
 * later ones until their turn: gigabytes at 1080x1920. Here each segment's middle and each joint's
 * crossfade are encoded as separate short pieces, then concatenated by stream copy, so no ffmpeg
 * ever holds more than two segments. The pieces reproduce the chain's frames exactly (same
 * frames blended, same blend weights); the tests hold them to it.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ffmpeg, ffprobeJson, mediaInput } from "../../media/ffmpeg.ts";
import { videoEncoderArgs } from "../../media/ffmpeg-engine.ts";

export interface SegmentFrames {
  /** Decoded video frames in the segment. */
  frames: number;
  /** Seconds the chain uses for the segment (its audio stream's duration). */
  duration: number;
}

/** One piece of the joined video: frames [from, to) of segment `seg`, or a crossfade of two. */
export type JoinPiece =
  | { kind: "body"; seg: number; from: number; to: number }
  | { kind: "joint"; seg: number; from: number; frames: number; offsetTicks: number };

/** Segment frame times, in ticks of the stream time base, for a constant frame rate. */
export interface FrameClock {
  /** Ticks per second of the video streams' time base (e.g. 12800). */
  timescale: number;
  /** Ticks per frame (e.g. 512 at 25 fps). */
  frameTicks: number;
}

/** av_rescale_q's rounding: to nearest, halves away from zero. */
const rescale = (us: number, timescale: number) => Math.round((us * timescale) / 1e6);

/**
 * Where the xfade chain of crossfadeGraph(durations, crossfade) blends, in frames. Joint k (k >= 1)
 * starts at the first frame of the accumulated stream whose time reaches the chain's offset, and
 * blends the last c frames of segment k-1 with the first c of segment k, frame by frame, until
 * segment k-1 ends; segment k then continues from its frame c. A joint piece carries one lead frame
 * of segment k-1 before the blend so that its own xfade offset stays positive.
 */
export function planJoin(segs: SegmentFrames[], crossfade: number, clock: FrameClock): JoinPiece[] {
  const { timescale, frameTicks } = clock;
  const out: JoinPiece[] = [];
  // Frame index, on the accumulated stream, of each segment's first frame.
  let base = 0;
  let offsetSeconds = 0;
  let from = 0;
  for (let k = 1; k < segs.length; k++) {
    const prev = segs[k - 1]!;
    offsetSeconds += prev.duration - crossfade;
    // The chain's offset goes through its text form (4 decimals) and AV_TIME_BASE microseconds.
    const offsetTicks = rescale(Math.round(Number(offsetSeconds.toFixed(4)) * 1e6), timescale);
    const first = Math.max(0, Math.ceil(offsetTicks / frameTicks - base - 1e-9));
    const blended = prev.frames - first;
    if (blended <= 0 || first - 1 < from) throw new Error(`trailer segment ${k - 1} is too short for a ${crossfade} s crossfade`);
    out.push({ kind: "body", seg: k - 1, from, to: first - 1 });
    out.push({ kind: "joint", seg: k, from: first - 1, frames: blended, offsetTicks: offsetTicks - (base + first - 1) * frameTicks });
    base += prev.frames - blended;
    from = blended;
  }
  const last = segs.length - 1;
  out.push({ kind: "body", seg: last, from, to: segs[last]!.frames });
  return out.filter((p) => p.kind === "joint" || p.to > p.from);
}

/** The look: one xfade chain over the inputs' video, ending in `out`. */
export function videoCrossfadeChain(durations: number[], crossfade: number, out = "[vout]"): string {
  if (durations.length === 1) return `[0:v]null${out}`;
  const parts: string[] = [];
  let offset = 0;
  let v = "[0:v]";
  for (let i = 1; i < durations.length; i++) {
    offset += durations[i - 1]! - crossfade;
    const vo = i === durations.length - 1 ? out : `[v${i}]`;
    parts.push(`${v}[${i}:v]xfade=transition=fade:duration=${crossfade}:offset=${offset.toFixed(4)}${vo}`);
    v = vo;
  }
  return parts.join(";");
}

/** acrossfade chain over n inputs' audio (labelled by `input`, default the inputs' own audio), ending in [aout]. */
export function audioCrossfadeChain(n: number, crossfade: number, input = (i: number) => `[${i}:a]`): string {
  if (n === 1) return `${input(0)}anull[aout]`;
  const parts: string[] = [];
  let a = input(0);
  for (let i = 1; i < n; i++) {
    const ao = i === n - 1 ? "[aout]" : `[a${i}]`;
    parts.push(`${a}${input(i)}acrossfade=d=${crossfade}:c1=tri:c2=tri${ao}`);
    a = ao;
  }
  return parts.join(";");
}

/**
 * xfade blends in 4:4:4 (ffmpeg 5.1 offers it no 4:2:0), so in the single chain every frame went
 * through 4:4:4 on its way to the encoder, crossfaded or not; the pieces do the same.
 */
const BLEND_FORMAT = "format=yuv444p";

/** Filter graph (ending in [v]) and inputs of one piece. */
export function pieceGraph(p: JoinPiece, crossfade: number, clock: FrameClock, filterSuffix: string): { inputs: number[]; graph: string } {
  if (p.kind === "body") {
    return { inputs: [p.seg], graph: `[0:v]trim=start_frame=${p.from}:end_frame=${p.to},setpts=PTS-STARTPTS,${BLEND_FORMAT}${filterSuffix}[v]` };
  }
  // The offset in microseconds that xfade turns back into exactly offsetTicks.
  const offsetUs = Math.round((p.offsetTicks * 1e6) / clock.timescale);
  return {
    inputs: [p.seg - 1, p.seg],
    graph:
      `[0:v]trim=start_frame=${p.from},setpts=PTS-STARTPTS,${BLEND_FORMAT}[a];[1:v]trim=end_frame=${p.frames},setpts=PTS-STARTPTS,${BLEND_FORMAT}[b];` +
      `[a][b]xfade=transition=fade:duration=${crossfade}:offset=${(offsetUs / 1e6).toFixed(6)}${filterSuffix}[v]`,
  };
}

/** Frame counts, chain durations and the frame clock of rendered segments. */
export async function probeSegments(paths: string[]): Promise<{ segs: SegmentFrames[]; clock: FrameClock }> {
  const segs: SegmentFrames[] = [];
  let clock: FrameClock | undefined;
  for (const p of paths) {
    const probe = await ffprobeJson(p);
    const v = probe.streams.find((s) => s.codec_type === "video");
    const a = probe.streams.find((s) => s.codec_type === "audio");
    if (!v?.nb_frames || !v.time_base || !v.avg_frame_rate) throw new Error(`${p}: no video frame count`);
    const [num, den] = v.avg_frame_rate.split("/").map(Number);
    const timescale = Number(v.time_base.split("/")[1]);
    const frameTicks = Math.round((timescale * den!) / num!);
    clock ??= { timescale, frameTicks };
    if (clock.timescale !== timescale || clock.frameTicks !== frameTicks) throw new Error(`${p}: frame rate or time base differs from the other segments`);
    segs.push({ frames: Number(v.nb_frames), duration: Number(a?.duration ?? probe.format.duration) });
  }
  return { segs, clock: clock! };
}

/**
 * Video of the segments joined with crossfades, encoded piece by piece and concatenated by stream
 * copy into `out` (no audio); memory is that of one two-segment ffmpeg, whatever the number of segments.
 */
export async function joinVideoCrossfaded(
  parts: string[], crossfade: number, enc: ReturnType<typeof videoEncoderArgs>, work: string, out: string,
): Promise<void> {
  const { segs, clock } = await probeSegments(parts);
  const pieces = planJoin(segs, crossfade, clock);
  const names: string[] = [];
  for (const [i, p] of pieces.entries()) {
    const { inputs, graph } = pieceGraph(p, crossfade, clock, enc.filterSuffix);
    const name = `piece${String(i).padStart(3, "0")}.mp4`;
    await ffmpeg([
      "-y", ...enc.inputArgs, ...inputs.flatMap((s) => mediaInput(parts[s]!)),
      "-filter_complex", graph, "-map", "[v]", "-an", ...enc.args, "-f", "mp4", join(work, name),
    ]);
    names.push(name);
  }
  // The list is written here from our own piece names, so the concat demuxer's safe mode suffices.
  const list = join(work, "pieces.txt");
  await writeFile(list, names.map((n) => `file '${n}'\n`).join(""));
  await ffmpeg(["-y", "-f", "concat", "-safe", "1", "-i", list, "-map", "0:v:0", "-c", "copy", "-f", "mp4", out]);
}
