/**
 * One format's picture of a clip, without sound: the framing (or the audiogram's card), the brand's
 * logo and the burned-in captions, in one encode. renderClipFormats joins it with the clip's
 * normalised audio; the trailer encodes its segments with it and crossfades them.
 */
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ffmpeg, fontFile, mediaInput } from "../../media/ffmpeg.ts";
import type { videoEncoderArgs } from "../../media/ffmpeg-engine.ts";
import type { Pcm } from "../../media/wav.ts";
import { imageInput } from "../../media/image.ts";
import { assEventSpans, buildAss, DEFAULT_CAPTION_STYLE, type CaptionStyle } from "./captions.ts";
import { FORMATS, videoFilter, type ClipFormat, type CropPath } from "./graph.ts";
import { DEFAULT_LOOK, type BrandLook } from "./brand.ts";
import { audiogramFilter, type AudiogramCard } from "./audiogram.ts";
import type { MediaInfo, Word } from "../types.ts";

export type VideoEncoder = ReturnType<typeof videoEncoderArgs>;

export interface ClipVideo {
  source: MediaInfo;
  /** Words with source timings; those inside [start, start + duration] become captions. */
  words: Word[];
  start: number;
  duration: number;
  format: ClipFormat;
  style?: CaptionStyle;
  look?: BrandLook;
  /** The 9:16 framing over a wider video (resolved by the caller); undefined is the centred crop or a fit. */
  crop?: CropPath;
  /** Output frame rate; undefined keeps the source's (an audiogram needs one). */
  fps?: number;
  enc: VideoEncoder;
  /** Folder for the captions script and the output, named `${name}.mp4`. */
  work: string;
  name: string;
  /** Audio-only sources: the card drawn around the waveform, its bold font and the window's audio. */
  audiogram?: { card?: AudiogramCard; boldFont: string; waveform: Pcm };
  /** Seconds of the clip encoded so far (native ffmpeg). */
  onProgress?: (seconds: number) => void;
}

/** Encodes the clip's picture to `${work}/${name}.mp4` (no audio) and resolves to that path. */
export async function encodeClipVideo(o: ClipVideo): Promise<string> {
  const frame = FORMATS[o.format];
  const look = o.look ?? DEFAULT_LOOK;
  const assPath = join(o.work, `${o.name}.ass`);
  const videoPath = join(o.work, `${o.name}.mp4`);
  const fontsDir = dirname(fontFile("DejaVuSans-Bold.ttf"));
  const ass = buildAss(o.words, { frame, style: o.style ?? DEFAULT_CAPTION_STYLE, offset: o.start, duration: o.duration, font: look.caption_font });
  await writeFile(assPath, ass);
  const logo = look.logo ? { look, input: "1:v" } : undefined;
  const graph = o.audiogram
    ? audiogramFilter({
        frame, card: o.audiogram.card, logo, clipStart: o.start, fps: o.fps ?? 25, duration: o.duration, audio: o.audiogram.waveform,
        assPath, captionSpans: assEventSpans(ass), fontsDir, boldFont: o.audiogram.boldFont, suffix: o.enc.filterSuffix,
      })
    : videoFilter({ source: o.source, format: o.format, crop: o.crop, clipStart: o.start, fps: o.fps, assPath, fontsDir, suffix: o.enc.filterSuffix, logo });
  await ffmpeg([
    "-y", ...o.enc.inputArgs,
    "-ss", o.start.toFixed(3), "-t", o.duration.toFixed(3), ...mediaInput(o.source.path),
    ...(look.logo ? imageInput(look.logo.path, "png") : []),
    "-filter_complex", graph, "-map", "[vout]", "-an",
    ...o.enc.args,
    "-t", o.duration.toFixed(3),
    videoPath,
  ], { onProgress: o.onProgress });
  return videoPath;
}
