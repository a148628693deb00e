/**
 * One format's picture of a clip, without sound: the framing (or the audiogram's card), the brand's
 * logo and the burned-in captions, in one encode. renderClipFormats joins it with the clip's
 * normalised audio; the trailer encodes its segments with it and crossfades them.
 */
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ffmpeg, fontFile, mediaInput } from "../../media/ffmpeg.ts";
import { detectEngine, type videoEncoderArgs } from "../../media/ffmpeg-engine.ts";
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
  /** Output frame rate (a number, or an ffmpeg rate such as "30000/1001"); undefined keeps the source's (an audiogram needs a number). */
  fps?: number | string;
  enc: VideoEncoder;
  /** Folder for the captions script and the output, named `${name}.mp4`. */
  work: string;
  name: string;
  /** Audio-only sources: the card drawn around the waveform, its bold font and the window's audio. */
  audiogram?: { card?: AudiogramCard; boldFont: string; waveform: Pcm };
  /** Seconds of the clip encoded so far (native ffmpeg). */
  onProgress?: (seconds: number) => void;
}

/** Writes the captions script and returns the filter graph from the inputs to [vout], ending in `suffix`. */
async function pictureGraph(o: Omit<ClipVideo, "enc">, suffix: string): Promise<string> {
  const frame = FORMATS[o.format];
  const look = o.look ?? DEFAULT_LOOK;
  const assPath = join(o.work, `${o.name}.ass`);
  const fontsDir = dirname(fontFile("DejaVuSans-Bold.ttf"));
  const ass = buildAss(o.words, { frame, style: o.style ?? DEFAULT_CAPTION_STYLE, offset: o.start, duration: o.duration, font: look.caption_font });
  await writeFile(assPath, ass);
  const logo = look.logo ? { look, input: "1:v" } : undefined;
  return o.audiogram
    ? audiogramFilter({
        frame, card: o.audiogram.card, logo, clipStart: o.start, fps: Number(o.fps ?? 25), duration: o.duration, audio: o.audiogram.waveform,
        assPath, captionSpans: assEventSpans(ass), fontsDir, boldFont: o.audiogram.boldFont, suffix,
      })
    : videoFilter({ source: o.source, format: o.format, crop: o.crop, clipStart: o.start, fps: o.fps, assPath, fontsDir, suffix, logo });
}

/** The source window (and the logo) as ffmpeg inputs. */
function pictureInputs(o: Pick<ClipVideo, "source" | "start" | "duration" | "look">, seconds = o.duration): string[] {
  const look = o.look ?? DEFAULT_LOOK;
  return ["-ss", o.start.toFixed(3), "-t", seconds.toFixed(3), ...mediaInput(o.source.path), ...(look.logo ? imageInput(look.logo.path, "png") : [])];
}

/** Encodes the clip's picture to `${work}/${name}.mp4` (no audio) and resolves to that path. */
export async function encodeClipVideo(o: ClipVideo): Promise<string> {
  const videoPath = join(o.work, `${o.name}.mp4`);
  const graph = await pictureGraph(o, o.enc.filterSuffix);
  await ffmpeg([
    "-y", ...o.enc.inputArgs,
    ...pictureInputs(o),
    "-filter_complex", graph, "-map", "[vout]", "-an",
    ...o.enc.args,
    "-t", o.duration.toFixed(3),
    videoPath,
  ], { onProgress: o.onProgress });
  return videoPath;
}

/** Frames [from, to) of a picture, encoded with `enc` to `${work}/${name}.mp4`. */
export interface FrameCut {
  from: number;
  to: number;
  enc: VideoEncoder;
  name: string;
}

/** A constant frame rate as a fraction (25/1, 30000/1001). */
export interface FrameRate {
  num: number;
  den: number;
}

export interface ClipVideoCuts extends Omit<ClipVideo, "enc" | "audiogram" | "onProgress" | "fps"> {
  rate: FrameRate;
  /** Exactly this many frames at `rate`: a short source window repeats its last frame, a long one is cut. */
  frames: number;
  cuts: FrameCut[];
  /** The MP4 video time base (ticks per second) of every cut, so pieces from different encodes concatenate. */
  timescale: number;
}

/**
 * One decode and one filter graph, several outputs: the picture of exactly `frames` frames is split
 * into frame ranges, each encoded as its own file (in the order of `cuts`). The trailer cuts each
 * segment into the frames it shows alone (encoded once, at the delivery settings) and the few it
 * crossfades (kept losslessly for the joint's encode).
 */
export async function encodeClipVideoCuts(o: ClipVideoCuts): Promise<string[]> {
  const graph = await pictureGraph({ ...o, fps: `${o.rate.num}/${o.rate.den}` }, "");
  const paths = o.cuts.map((c) => join(o.work, `${c.name}.mp4`));
  const encode = async (cuts: FrameCut[]) => {
    const branches = cuts.map((_, i) => `[c${i}]`).join("");
    const tails = cuts.map((c, i) => `[c${i}]trim=start_frame=${c.from}:end_frame=${c.to},setpts=PTS-STARTPTS${c.enc.filterSuffix}[o${i}]`);
    // Cloning the last frame past the window's end, then trimming, fixes the count whatever frame
    // times the source has; the window is read a frame long so the clone is rarely needed.
    const cut = `[vout]tpad=stop=-1:stop_mode=clone,trim=end_frame=${o.frames},split=${cuts.length}${branches};${tails.join(";")}`;
    await ffmpeg([
      "-y", ...(cuts.find((c) => c.enc.inputArgs.length)?.enc.inputArgs ?? []),
      ...pictureInputs(o, o.duration + o.rate.den / o.rate.num),
      "-filter_complex", `${graph};${cut}`,
      ...cuts.flatMap((c, i) => ["-map", `[o${i}]`, "-an", ...c.enc.args, "-video_track_timescale", String(o.timescale), "-f", "mp4", join(o.work, `${c.name}.mp4`)]),
    ]);
  };
  // The embedded engine brings back one output per command: there each cut decodes the window itself.
  if ((await detectEngine()).kind === "wasm") for (const c of o.cuts) await encode([c]);
  else await encode(o.cuts);
  return paths;
}
