/**
 * Trailer: a vertical reel of whole sentences taken from the best clips, joined with short
 * crossfades. planTrailer is pure (which sentences, in which order); renderTrailer renders each
 * segment with the clip renderer (captions, loudness) and joins them (trailer-join.ts).
 */
import { DEFAULT_LOOK, type BrandLook } from "./brand.ts";
import { joinWithCards, type ClipCards } from "./cards.ts";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { ffmpeg, ffprobeJson, mediaInput } from "../../media/ffmpeg.ts";
import { scratchDir } from "../../scratch.ts";
import { probeMedia } from "../../media/probe.ts";
import { detectEngine, videoEncoderArgs } from "../../media/ffmpeg-engine.ts";
import { CLIP_LOUDNESS, normalizeAudio } from "../../media/ffmpeg-loudness.ts";
import { FORMATS, renderClip, DEFAULT_RENDER_QUALITY, type RenderQuality } from "./render.ts";
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
  card?: AudiogramCard;
  outPath: string;
  quality?: Partial<RenderQuality>;
  crossfadeSeconds?: number;
  /** The show's brand, on every segment. */
  look?: BrandLook;
  /** Intro/outro cards around the whole trailer (never around its pieces). */
  cards?: ClipCards;
}

export async function renderTrailer(req: TrailerRequest): Promise<{ path: string; durationSeconds: number }> {
  const q: RenderQuality = { ...DEFAULT_RENDER_QUALITY, ...req.quality };
  const xf = req.crossfadeSeconds ?? DEFAULT_TRAILER.crossfadeSeconds;
  const work = await scratchDir("trailer");
  try {
    const parts: string[] = [];
    for (const [i, s] of req.segments.entries()) {
      parts.push(await renderClip({
        source: req.source, words: req.words, start: s.start, end: s.end, format: "linkedin",
        style: req.style, card: req.card, quality: q, look: req.look, outPath: join(work, `seg${i}.mp4`),
      }));
    }
    const engine = await detectEngine();
    const enc = videoEncoderArgs(engine.encoder, q);
    const video = join(work, "video.mp4");
    await joinVideoCrossfaded(parts, xf, enc, work, video);
    // Audio is small: one graph over all segments costs a few MB per minute of trailer.
    const joined = join(work, "joined.wav");
    await ffmpeg([
      "-y", ...parts.flatMap((p) => mediaInput(p)), "-filter_complex", audioCrossfadeChain(parts.length, xf),
      "-map", "[aout]", "-c:a", "pcm_s16le", "-ar", "48000", "-f", "wav", joined,
    ]);
    // Crossfades change the programme loudness a little; one more normalisation on audio only.
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
    return { path: req.outPath, durationSeconds: info.durationSeconds };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
