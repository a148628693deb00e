/**
 * A clip's cover image (thumbnail), one per format: a frame where the speaker's face is clear,
 * mid-speech, framed as the clip is, with the brand's logo and the clip's title on a band of the
 * brand's colours. An audiogram's cover is a frame of its own card (title, waveform, captions).
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ffmpeg, boldFontFor, mediaInput } from "../../media/ffmpeg.ts";
import { imageInput } from "../../media/image.ts";
import { scratchDir } from "../../scratch.ts";
import { CAPTION_FONTS, ffmpegColour, logoBox, logoOverlay, type BrandLook } from "./brand.ts";
import type { SpeakerCropPlan } from "./crop.ts";
import { FORMATS, framingFilter, type ClipFormat, type CropPath } from "./graph.ts";
import type { MediaInfo, Word } from "../types.ts";

/** A face narrower than this share of the frame is too small to be "clear" at full weight. */
const CLEAR_FACE_WIDTH = 0.12;

/**
 * The source time of the cover: among the face analysis's samples, the one where a speaker's own
 * face is seen surest and largest while that speaker is saying a word, nearer the clip's middle
 * winning ties; without faces (no models, an audiogram, nobody assigned) the middle of the word
 * spoken nearest the clip's middle; with no words at all, the clip's middle.
 */
export function pickCoverTime(words: Word[], start: number, end: number, plan?: Pick<SpeakerCropPlan, "tracks" | "speakers">): number {
  const mid = (start + end) / 2;
  const half = Math.max(1e-3, (end - start) / 2);
  const spoken = words.filter((w) => w.start >= start && w.end <= end && w.end > w.start);
  if (plan) {
    let best: { t: number; score: number } | undefined;
    for (const [speaker, trackId] of plan.speakers.bySpeaker) {
      const track = plan.tracks.find((t) => t.id === trackId);
      for (const o of track?.obs ?? []) {
        if (o.t < start || o.t > end) continue;
        if (!spoken.some((w) => w.speaker === speaker && o.t >= w.start && o.t <= w.end)) continue;
        const score = o.score * Math.min(1, o.w / CLEAR_FACE_WIDTH) * (1 - 0.5 * Math.min(1, Math.abs(o.t - mid) / half));
        if (!best || score > best.score) best = { t: o.t, score };
      }
    }
    if (best) return best.t;
  }
  if (spoken.length === 0) return mid;
  const nearest = spoken.reduce((a, w) => (Math.abs((w.start + w.end) / 2 - mid) < Math.abs((a.start + a.end) / 2 - mid) ? w : a));
  return (nearest.start + nearest.end) / 2;
}

/** The title broken into lines of at most `maxChars` (a longer word stands alone), at most `maxLines` (the last ends with "…" when cut). */
export function wrapTitle(title: string, maxChars: number, maxLines = 4): string[] {
  const lines: string[] = [];
  for (const word of title.trim().split(/\s+/).filter(Boolean)) {
    const last = lines[lines.length - 1];
    if (last !== undefined && (last + " " + word).length <= maxChars) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${kept[maxLines - 1]!.replace(/[\s.,;:!?-]*$/, "")}…`;
  return kept;
}

/** The title band: a box of the brand's background with the title in its accent colour, drawn from one text file per line. */
function titleBand(format: ClipFormat, look: BrandLook, font: string, lineFiles: string[]): string {
  const { width: W, height: H } = FORMATS[format];
  const size = Math.round(Math.min(W, H) * 0.065);
  const lineH = Math.round(size * 1.3);
  const pad = Math.round(size * 0.6);
  const bandH = lineFiles.length * lineH + 2 * pad;
  let y = H > W ? Math.round(H * 0.64) : H - bandH - Math.round(H * 0.08);
  // The band keeps clear of the logo: above one in a bottom corner, below one in a top corner.
  if (look.logo) {
    const box = logoBox({ width: W, height: H }, look, look.logo);
    const gap = Math.round(Math.min(W, H) * 0.02);
    if (look.logo_position.startsWith("bottom")) y = Math.min(y, box.y - gap - bandH);
    else y = Math.max(y, box.y + box.h + gap);
  }
  const steps = [`drawbox=x=0:y=${y}:w=${W}:h=${bandH}:color=${ffmpegColour(look.background_color)}@0.92:t=fill`];
  lineFiles.forEach((file, i) => {
    steps.push(`drawtext=fontfile='${font}':expansion=none:textfile='${file}':fontsize=${size}:fontcolor=${ffmpegColour(look.accent_color)}:x=(w-text_w)/2:y=${y + pad + i * lineH}`);
  });
  return steps.join(",");
}

export interface CoverRequest {
  source: MediaInfo;
  format: ClipFormat;
  /** Source seconds of the frame (pickCoverTime). */
  time: number;
  /** The 9:16 crop the clip was rendered with, if any. */
  crop?: CropPath;
  title: string;
  look: BrandLook;
  outPath: string;
}

/** A video clip's cover as a JPEG of the format's frame size. */
export async function renderCover(req: CoverRequest): Promise<string> {
  const { width: W } = FORMATS[req.format];
  const work = await scratchDir("render");
  try {
    const font = boldFontFor(req.title, CAPTION_FONTS[req.look.caption_font]);
    const size = Math.round(Math.min(W, FORMATS[req.format].height) * 0.065);
    const lines = wrapTitle(req.title, Math.max(8, Math.floor((W * 0.84) / (size * 0.62))));
    const lineFiles = await Promise.all(lines.map(async (line, i) => {
      const file = join(work, `title-${i}.txt`);
      await writeFile(file, line);
      return file;
    }));
    const framed = `[0:v:0]${framingFilter({ source: req.source, format: req.format, crop: req.crop, clipStart: req.time })},setsar=1`;
    const graph = req.look.logo
      ? `${framed}[framed];${logoOverlay(FORMATS[req.format], req.look, "1:v", "framed", "branded")};[branded]${titleBand(req.format, req.look, font, lineFiles)}[vout]`
      : `${framed},${titleBand(req.format, req.look, font, lineFiles)}[vout]`;
    await ffmpeg([
      "-y", "-ss", req.time.toFixed(3), ...mediaInput(req.source.path),
      ...(req.look.logo ? imageInput(req.look.logo.path, "png") : []),
      "-filter_complex", graph, "-map", "[vout]", "-frames:v", "1", "-q:v", "3", "-f", "image2", "-update", "1", req.outPath,
    ]);
    return req.outPath;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** An audiogram's cover: its rendered card at `offset` seconds into the clip (title, colours and logo are already there). */
export async function audiogramCover(clipPath: string, offset: number, outPath: string): Promise<string> {
  await ffmpeg(["-y", "-ss", Math.max(0, offset).toFixed(3), ...mediaInput(clipPath), "-frames:v", "1", "-q:v", "3", "-f", "image2", "-update", "1", outPath]);
  return outPath;
}

export interface ClipCoversRequest {
  source: MediaInfo;
  words: Word[];
  start: number;
  end: number;
  title: string;
  look: BrandLook;
  /** The clip's 9:16 face analysis, when one ran (RenderEvents.onCropPlan). */
  plan?: SpeakerCropPlan;
  /** The clip's rendered files per format: an audiogram's cover is cut from them. */
  rendered: Partial<Record<ClipFormat, string>>;
  /** Seconds of intro card before the clip's first frame in the rendered files (cards.ts). */
  introSeconds?: number;
  outPath(format: ClipFormat): string;
}

/** One cover per rendered format, all from the same moment; resolves to the files written. */
export async function renderClipCovers(req: ClipCoversRequest): Promise<Partial<Record<ClipFormat, string>>> {
  const time = pickCoverTime(req.words, req.start, req.end, req.plan);
  const out: Partial<Record<ClipFormat, string>> = {};
  for (const [format, clipPath] of Object.entries(req.rendered) as Array<[ClipFormat, string]>) {
    out[format] = req.source.hasVideo
      ? await renderCover({ source: req.source, format, time, crop: format === "linkedin" ? req.plan?.path : undefined, title: req.title, look: req.look, outPath: req.outPath(format) })
      : await audiogramCover(clipPath, time - req.start + (req.introSeconds ?? 0), req.outPath(format));
  }
  return out;
}
