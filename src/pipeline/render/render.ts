/**
 * Clip rendering: one segment of a source into one delivery format, with framing, burned-in
 * captions and loudness normalisation in a single encode. The framing and filter-graph choices are
 * pure functions (render/graph.ts); this module runs ffmpeg.
 */
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { boldFontFor, ffmpeg, mediaInput } from "../../media/ffmpeg.ts";
import { scratchDir } from "../../scratch.ts";
import { detectEngine, videoEncoderArgs, DEFAULT_QUALITY, type EncodeQuality } from "../../media/ffmpeg-engine.ts";
import { CLIP_LOUDNESS, normalizeAudio } from "../../media/ffmpeg-loudness.ts";
import { decodeWindow } from "../../media/decode-audio.ts";
import type { CaptionStyle } from "./captions.ts";
import { FORMATS, type ClipFormat, type CropPath } from "./graph.ts";
import { planSpeakerCrop, type SpeakerCropPlan } from "./crop.ts";
import { CAPTION_FONTS, DEFAULT_LOOK, ffmpegColour, type BrandLook } from "./brand.ts";
import { ModelNotAvailableError } from "../../models/store.ts";
import { log } from "../../log.ts";
import type { AudiogramCard } from "./audiogram.ts";
import { encodeClipVideo } from "./clip-video.ts";
import { joinWithCards, type CardTiming, type ClipCards } from "./cards.ts";
import type { MediaInfo, Word } from "../types.ts";

export { FORMATS, type ClipFormat } from "./graph.ts";

export interface RenderQuality extends EncodeQuality {
  /** Output frame rate; undefined keeps the source's rate (audiograms default to 25). */
  fps?: number;
  audioBitrateKbps: number;
  audioChannels: 1 | 2;
}

/** The waveform's bars need only the loudness envelope: speech's energy is under 4 kHz. */
const WAVEFORM_SAMPLE_RATE = 8000;

export const DEFAULT_RENDER_QUALITY: RenderQuality = { ...DEFAULT_QUALITY, audioBitrateKbps: 128, audioChannels: 2 };

export interface RenderRequest {
  source: MediaInfo;
  /** Words with source timings; those inside [start, end] become captions. */
  words: Word[];
  start: number;
  end: number;
  format: ClipFormat;
  style?: CaptionStyle;
  /**
   * Framing of the 9:16 format for video sources: "speaker" (default) follows the active speaker's
   * face (planSpeakerCrop), "centre" is a fixed centre crop, or a precomputed path.
   */
  crop?: CropPath | "speaker" | "centre";
  /** Title card for audio-only sources (audiogram). */
  card?: AudiogramCard;
  outPath?: string;
  quality?: Partial<RenderQuality>;
  /** The show's brand: logo, caption font, card colours; default the appliance's own look. */
  look?: BrandLook;
  /** Intro/outro cards around the delivered file (cards.ts); a trailer's pieces have none. */
  cards?: ClipCards;
}

/** Only 9:16 output from a wider video needs a crop decision; "speaker" runs face analysis. */
export async function resolveCrop(req: RenderRequest, onPlan?: (plan: SpeakerCropPlan) => void): Promise<CropPath | undefined> {
  const { source, format } = req;
  const needsCrop = source.hasVideo && format === "linkedin" && (source.width ?? 0) / (source.height ?? 1) > (9 / 16) * 1.05;
  if (!needsCrop || req.crop === "centre") return undefined;
  if (req.crop && req.crop !== "speaker") return req.crop;
  try {
    const plan = await planSpeakerCrop(source, req.words, req.start, req.end);
    onPlan?.(plan);
    return plan.path;
  } catch (err) {
    // Face models not pulled or not verified: say so and render the centred crop rather than fail
    // the clip (`clipyard doctor` reports the same). Any other analysis failure is an error.
    if (!(err instanceof ModelNotAvailableError)) throw err;
    log.warn("face models unavailable: 9:16 uses a centred crop", { error: err.message });
    return undefined;
  }
}

export async function renderClip(req: RenderRequest): Promise<string> {
  const [out] = await renderClipFormats(req, [{ format: req.format, outPath: req.outPath }]);
  return out!;
}

export interface FormatOutput {
  format: ClipFormat;
  outPath?: string;
}

export interface RenderEvents {
  /** Share of the formats' video encoded so far, 0..1, about twice a second (native ffmpeg). */
  onProgress?: (fraction: number) => void;
  /** A format's output is written. */
  onRendered?: (format: ClipFormat, path: string) => void;
  /** The 9:16 format's face analysis, when one ran: who is where and when (a thumbnail's frame is chosen from it). */
  onCropPlan?: (plan: SpeakerCropPlan) => void;
  /** With cards: the seconds each lasts in the delivered files (whole frames; the same for every format). */
  onCards?: (timing: CardTiming) => void;
}

/**
 * One clip in several formats: the loudness-normalised audio is made once and shared, and the
 * formats' video encodes run side by side, so the 9:16 face analysis overlaps the 16:9 encode
 * instead of holding a core idle. Resolves to the output paths in the order given. Any part
 * failing fails the call, and outputs are joined only once the audio and every format's video
 * exist, so a failed encode leaves no output behind.
 */
export async function renderClipFormats(
  req: Omit<RenderRequest, "format" | "outPath">,
  outputs: FormatOutput[],
  events: RenderEvents = {},
): Promise<string[]> {
  const duration = req.end - req.start;
  if (outputs.length === 0) throw new Error("no output formats requested");
  if (!(duration > 0)) throw new Error(`clip end ${req.end} is not after start ${req.start}`);
  if (req.end > req.source.durationSeconds + 0.05) throw new Error(`clip end ${req.end} is past the source's end ${req.source.durationSeconds}`);
  if (!req.source.hasAudio) throw new Error(`source ${req.source.path} has no audio to render`);
  const engine = await detectEngine();
  const q: RenderQuality = { ...DEFAULT_RENDER_QUALITY, preset: engine.x264Preset, ...req.quality };
  const enc = videoEncoderArgs(engine.encoder, q);
  const work = await scratchDir("render");
  try {
    const window = { start: req.start, duration };
    // Audio and video are made side by side and joined at the end: the loudness passes (meter,
    // plan, encode, check the delivered AAC) run while face analysis and the video encodes do.
    // Every encode reads the source with the same input seek.
    const audioPath = join(work, "audio.m4a");
    const t0 = performance.now();
    const took: Record<string, number> = {};
    const lap = (name: string) => (took[name] = Math.round(performance.now() - t0));
    const look = req.look ?? DEFAULT_LOOK;
    const boldFont = boldFontFor(req.card ? [req.card.title, ...(req.card.speakers ?? []).map((s) => s.name)].join(" ") : "", CAPTION_FONTS[look.caption_font]);
    const card = req.card && { ...req.card, background: ffmpegColour(look.background_color), accent: ffmpegColour(look.accent_color) };
    const encoded = outputs.map(() => 0);
    const progress = (i: number, seconds: number) => {
      encoded[i] = Math.min(1, Math.max(encoded[i]!, seconds / duration));
      events.onProgress?.(encoded.reduce((a, b) => a + b, 0) / outputs.length);
    };
    // An audiogram draws its waveform from the window's audio: a low-rate mono decode (tens of ms)
    // that its video waits for, beside the loudness passes.
    const waveformAudio = req.source.hasVideo ? undefined : decodeWindow(req.source.path, window, join(work, "waveform.wav"), WAVEFORM_SAMPLE_RATE);
    // Each format's video awaits it later; a failure before then must not count as unhandled.
    waveformAudio?.catch(() => {});
    const audio = normalizeAudio(req.source.path, window, audioPath, { bitrateKbps: q.audioBitrateKbps, channels: q.audioChannels }, { target: CLIP_LOUDNESS })
      .finally(() => lap("audioMs"));
    const videos = outputs.map(async ({ format }, i) => {
      const crop = await resolveCrop({ ...req, format }, events.onCropPlan);
      if (crop) lap(`${format}FramingMs`);
      const videoPath = await encodeClipVideo({
        source: req.source, words: req.words, start: req.start, duration, format, style: req.style, look, crop, fps: q.fps, enc, work, name: `video-${i}`,
        audiogram: req.source.hasVideo ? undefined : { card, boldFont, waveform: (await waveformAudio)! },
        onProgress: events.onProgress && ((seconds) => progress(i, seconds)),
      });
      lap(`${format}VideoMs`);
      return videoPath;
    });
    // Wait for everything even when one part fails: nothing may outlive the work folder.
    const [a, ...v] = await Promise.allSettled([audio, ...videos]);
    for (const r of [...v, a]) if (r!.status === "rejected") throw r!.reason;
    const paths: string[] = [];
    for (const [i, { format, outPath }] of outputs.entries()) {
      const out = outPath ?? join(tmpdir(), `clipyard-${format}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.mp4`);
      const video = (v[i] as PromiseFulfilledResult<string>).value;
      if (req.cards) {
        const timing = await joinWithCards({ cards: req.cards, look, frame: FORMATS[format], video, audio: audioPath, enc, audioBitrateKbps: q.audioBitrateKbps, audioChannels: q.audioChannels, out });
        events.onCards?.(timing);
      } else {
        await ffmpeg([
          "-y", ...mediaInput(video), ...mediaInput(audioPath),
          "-map", "0:v:0", "-map", "1:a:0", "-c", "copy",
          "-t", duration.toFixed(3), "-movflags", "+faststart",
          out,
        ]);
      }
      paths.push(out);
      events.onRendered?.(format, out);
    }
    lap("totalMs");
    log.debug("clip rendered", { formats: outputs.map((o) => o.format), seconds: duration, ...took });
    return paths;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
