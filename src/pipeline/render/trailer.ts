/**
 * Trailer: a vertical reel of whole sentences taken from the best clips, joined with short
 * crossfades. planTrailer is pure (which sentences, in which order); renderTrailer renders each
 * segment's picture as the clip renderer does (framing, captions, brand), cut for the crossfades
 * (trailer-cuts.ts), and joins them, with the sound cut from the source and normalised once.
 */
import { DEFAULT_LOOK, type BrandLook } from "./brand.ts";
import { joinWithCards, type ClipCards } from "./cards.ts";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../media/ffmpeg.ts";
import { scratchDir } from "../../scratch.ts";
import { probeMedia } from "../../media/probe.ts";
import { detectEngine, videoEncoderArgs, type H264Encoder } from "../../media/ffmpeg-engine.ts";
import { bandFilter, CLIP_LOUDNESS, isSilent, meterEbur128, normalizeAudio } from "../../media/ffmpeg-loudness.ts";
import { FORMATS, renderClip, DEFAULT_RENDER_QUALITY, type RenderQuality } from "./render.ts";
import { framePassages, type PassageFraming } from "./trailer-framing.ts";
import { encodeClipVideoCuts, type FrameRate, type VideoEncoder } from "./clip-video.ts";
import { frameRateOf, joinCuts, planCuts, segmentCuts, type CutPlan, type SegmentFiles } from "./trailer-cuts.ts";
import type { CropPath } from "./graph.ts";
import type { CaptionStyle } from "./captions.ts";
import type { AudiogramCard } from "./audiogram.ts";
import type { MediaInfo, Word } from "../types.ts";
import { splitSentences } from "../highlights/sentences.ts";
import { audioCrossfadeChain, joinVideoCrossfaded, videoCrossfadeChain } from "./trailer-join.ts";

export interface TrailerSegment {
  start: number;
  end: number;
  /** Rank of the clip (0 = best) the sentence came from. */
  clip: number;
}

export interface TrailerOptions {
  targetSeconds: number;
  minSeconds: number;
  maxSeconds: number;
  minSegmentSeconds: number;
  maxSegmentSeconds: number;
  crossfadeSeconds: number;
  /** Breathing room kept around each sentence's words. */
  padSeconds: number;
  /** Segment lengths are snapped to whole frames so audio and video crossfades stay aligned. */
  fps: number;
}

export const DEFAULT_TRAILER: TrailerOptions = {
  targetSeconds: 66, minSeconds: 60, maxSeconds: 90, minSegmentSeconds: 2, maxSegmentSeconds: 15,
  crossfadeSeconds: 0.3, padSeconds: 0.15, fps: 25,
};

export function trailerDuration(segments: TrailerSegment[], crossfade: number): number {
  const sum = segments.reduce((n, s) => n + (s.end - s.start), 0);
  return sum - Math.max(0, segments.length - 1) * crossfade;
}

/**
 * Round-robin over the ranked clips, taking each clip's sentences in order, until the reel reaches
 * the target length; then orders segments best clip first and chronologically within a clip.
 * Throws when the clips do not hold enough sentence material for minSeconds.
 */
export function planTrailer(clips: { start: number; end: number }[], words: Word[], opts: Partial<TrailerOptions> = {}): TrailerSegment[] {
  const o = { ...DEFAULT_TRAILER, ...opts };
  const frame = 1 / o.fps;
  // Sentences of the whole transcript, kept only when entirely inside a clip: a clip boundary
  // inside a sentence must not produce a fragment.
  // The same sentence splitter as clip selection, so trailer segments end where clips may end.
  const all = splitSentences(words);
  const pools = clips.map((c, rank) =>
    all
      .filter((s) => s.start >= c.start - 1e-6 && s.end <= c.end + 1e-6)
      .map((s) => {
        const start = Math.max(c.start, s.start - o.padSeconds);
        const rawEnd = Math.min(c.end, s.end + o.padSeconds);
        const end = start + Math.max(1, Math.round((rawEnd - start) / frame)) * frame;
        return { start, end, clip: rank };
      })
      .filter((s) => s.end - s.start >= o.minSegmentSeconds && s.end - s.start <= o.maxSegmentSeconds),
  );
  const chosen: TrailerSegment[] = [];
  let progress = true;
  while (progress && trailerDuration(chosen, o.crossfadeSeconds) < o.targetSeconds) {
    progress = false;
    for (const pool of pools) {
      const next = pool.shift();
      if (!next) continue;
      const withIt = trailerDuration([...chosen, next], o.crossfadeSeconds);
      if (withIt > o.maxSeconds) continue;
      chosen.push(next);
      progress = true;
      if (withIt >= o.targetSeconds) break;
    }
  }
  const total = trailerDuration(chosen, o.crossfadeSeconds);
  if (total < o.minSeconds) {
    throw new Error(`clips hold only ${total.toFixed(1)} s of whole sentences; a trailer needs ${o.minSeconds} s`);
  }
  return chosen.sort((a, b) => a.clip - b.clip || a.start - b.start);
}

/**
 * The whole join as one xfade/acrossfade graph over n inputs whose durations are given: the look.
 * renderTrailer renders its video piece by piece (trailer-join.ts), which holds to this graph's frames.
 */
export function crossfadeGraph(durations: number[], crossfade: number): string {
  return `${videoCrossfadeChain(durations, crossfade)};${audioCrossfadeChain(durations.length, crossfade)}`;
}

export interface TrailerRequest {
  source: MediaInfo;
  words: Word[];
  segments: TrailerSegment[];
  style?: CaptionStyle;
  /** Audio-only sources: the audiogram's card (each segment is then a clip render of its own). */
  card?: AudiogramCard;
  outPath: string;
  quality?: Partial<RenderQuality>;
  crossfadeSeconds?: number;
  /** The show's brand, on every segment. */
  look?: BrandLook;
  /** Intro/outro cards around the whole trailer (never around its pieces). */
  cards?: ClipCards;
  /**
   * The 9:16 framing already planned for a passage, by its rank (TrailerSegment.clip): a rendered
   * clip's own speaker crop (RenderEvents.onCropPlan). Its segments then need no face analysis.
   */
  passageCrops?: (CropPath | undefined)[];
  /** The framings an earlier render of this trailer used (its job's checkpoint): reused where a passage's span and speaker turns are unchanged. */
  knownFraming?: PassageFraming[];
}

/**
 * The frames a joint blends are encoded once more by the joint, so they are kept losslessly until
 * then (x264 at QP 0, its fastest preset): every frame of the trailer then goes through one lossy
 * encode. Hardware encoders cost the CPU little either way and keep their own settings.
 */
export function segmentEncoder(encoder: H264Encoder, q: RenderQuality): VideoEncoder {
  if (encoder !== "libx264") return videoEncoderArgs(encoder, q);
  return { inputArgs: [], filterSuffix: ",format=yuv420p", args: ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0"] };
}

export interface TrailerVideoEncoding {
  /** The delivery encoder: every frame of the trailer is encoded with it once. */
  enc: VideoEncoder;
  /** Keeps the frames each joint blends until it is encoded (lossless for libx264). */
  edgeEnc: VideoEncoder;
  rate: FrameRate;
  crossfade: number;
  work: string;
  out: string;
}

/**
 * The trailer's picture from a video source (trailer-cuts.ts): each segment is rendered once to its
 * planned number of frames, the frames it shows alone encoded for delivery and those it crossfades
 * kept for the joints; the joints are blended and the pieces concatenated by stream copy.
 */
export async function encodeTrailerVideo(req: TrailerRequest, crops: Map<number, CropPath | undefined>, e: TrailerVideoEncoding): Promise<CutPlan> {
  const plan = planCuts(req.segments.map((s) => s.end - s.start), e.rate, e.crossfade);
  const files: SegmentFiles[] = [];
  for (const [i, s] of req.segments.entries()) {
    const { cuts, files: named } = segmentCuts(plan, i, e.enc, e.edgeEnc);
    files.push(named(await encodeClipVideoCuts({
      source: req.source, words: req.words, start: s.start, duration: s.end - s.start, format: "linkedin", style: req.style, look: req.look,
      crop: crops.get(s.clip), rate: plan.rate, frames: plan.frames[i]!, cuts, timescale: plan.clock.timescale, work: e.work, name: `seg${i}`,
    })));
  }
  await joinCuts(plan, files, e.crossfade, e.enc, e.work, e.out);
  return plan;
}

/**
 * Each segment's gain to the delivery loudness, so that sentences from quieter and louder passages
 * play alike; the joined audio is then normalised once (limiter, target, true peak). A silent
 * segment keeps its level.
 */
async function segmentGains(req: TrailerRequest): Promise<number[]> {
  const gains: number[] = [];
  for (const s of req.segments) {
    const { integrated } = await meterEbur128(req.source.path, { window: { start: s.start, duration: s.end - s.start }, preFilter: bandFilter(), truePeak: false });
    gains.push(isSilent(integrated) ? 0 : CLIP_LOUDNESS.i - integrated);
  }
  return gains;
}

/**
 * Renders the segments' pictures (captions, framing, brand) and joins them with crossfades
 * (trailer-join.ts); the sound is cut from the source, levelled per segment, crossfaded alike and
 * normalised once.
 */
export async function renderTrailer(req: TrailerRequest): Promise<{ path: string; durationSeconds: number; framing: PassageFraming[] }> {
  if (!req.source.hasAudio) throw new Error(`source ${req.source.path} has no audio to render`);
  const engine = await detectEngine();
  const q: RenderQuality = { ...DEFAULT_RENDER_QUALITY, preset: engine.x264Preset, ...req.quality };
  const xf = req.crossfadeSeconds ?? DEFAULT_TRAILER.crossfadeSeconds;
  const work = await scratchDir("trailer");
  try {
    const enc = videoEncoderArgs(engine.encoder, q);
    const video = join(work, "video.mp4");
    let framing: PassageFraming[] = [];
    if (req.source.hasVideo) {
      const framed = await framePassages({ ...req, known: req.knownFraming });
      framing = framed.framing;
      await encodeTrailerVideo(req, framed.crops, { enc, edgeEnc: segmentEncoder(engine.encoder, q), rate: frameRateOf(q.fps ?? req.source.fps ?? DEFAULT_TRAILER.fps), crossfade: xf, work, out: video });
    } else {
      const parts: string[] = [];
      for (const [i, s] of req.segments.entries()) {
        parts.push(await renderClip({
          source: req.source, words: req.words, start: s.start, end: s.end, format: "linkedin",
          style: req.style, card: req.card, quality: q, look: req.look, outPath: join(work, `seg${i}.mp4`),
        }));
      }
      await joinVideoCrossfaded(parts, xf, enc, work, video);
    }
    // Audio is small: one graph over all segments' windows costs a few MB per minute of trailer.
    // Float, because a segment's gain may take its peaks past full scale before the limiter.
    const gains = await segmentGains(req);
    const joined = join(work, "joined.wav");
    const levelled = gains.map((g, i) => `[${i}:a]${bandFilter()},volume=${g.toFixed(2)}dB[l${i}]`).join(";");
    await ffmpeg([
      "-y", ...req.segments.flatMap((s) => ["-ss", s.start.toFixed(3), "-t", (s.end - s.start).toFixed(3), ...mediaInput(req.source.path)]),
      "-filter_complex", `${levelled};${audioCrossfadeChain(req.segments.length, xf, (i) => `[l${i}]`)}`,
      "-map", "[aout]", "-c:a", "pcm_f32le", "-ar", "48000", "-f", "wav", joined,
    ]);
    const audio = await normalizeAudio(joined, {}, join(work, "audio.m4a"), { bitrateKbps: q.audioBitrateKbps, channels: q.audioChannels }, { target: CLIP_LOUDNESS });
    if (req.cards) {
      await joinWithCards({ cards: req.cards, look: req.look ?? DEFAULT_LOOK, frame: FORMATS.linkedin, video, audio: audio.path, enc, audioBitrateKbps: q.audioBitrateKbps, audioChannels: q.audioChannels, out: req.outPath });
    } else {
      await ffmpeg([
        "-y", ...mediaInput(video), ...mediaInput(audio.path), "-map", "0:v:0", "-map", "1:a:0", "-c:v", "copy", "-c:a", "copy",
        "-movflags", "+faststart", req.outPath,
      ]);
    }
    const info = await probeMedia(req.outPath);
    return { path: req.outPath, durationSeconds: info.durationSeconds, framing };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
