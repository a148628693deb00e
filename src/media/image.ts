/**
 * Still images sent to the appliance (a brand's logo): told apart by their first bytes, never by a
 * name or a declared type, probed and decoded by ffmpeg with the one demuxer their magic names, so a
 * file that claims to be a PNG cannot reach any other demuxer (an SVG, a playlist, an image sequence).
 */
import { ffmpeg, findNativeFfmpeg, runTool } from "./ffmpeg.ts";
import { runWasm } from "./ffmpeg-wasm.ts";
import { resolve } from "node:path";

export type ImageKind = "png" | "jpeg";

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_MAGIC = [0xff, 0xd8, 0xff];

/** PNG or JPEG by its signature; undefined for anything else (SVG, GIF, WebP, text, media). */
export function imageKind(head: Uint8Array): ImageKind | undefined {
  const starts = (magic: number[]) => magic.every((b, i) => head[i] === b);
  if (starts(PNG_MAGIC)) return "png";
  if (starts(JPEG_MAGIC)) return "jpeg";
  return undefined;
}

const DEMUXER: Record<ImageKind, string> = { png: "png_pipe", jpeg: "jpeg_pipe" };
const CODEC: Record<ImageKind, string> = { png: "png", jpeg: "mjpeg" };

/** Input arguments for an image of a known kind: the file protocol only, and that one demuxer. */
export function imageInput(path: string, kind: ImageKind): string[] {
  return ["-protocol_whitelist", "file", "-f", DEMUXER[kind], "-i", resolve(path)];
}

export interface ImageInfo {
  kind: ImageKind;
  width: number;
  height: number;
}

/** The image's size as ffprobe reads it with its own demuxer, or undefined when it does not read as that kind. */
export async function probeImage(path: string, kind: ImageKind): Promise<ImageInfo | undefined> {
  const args = ["-v", "error", "-print_format", "json", "-show_streams", ...imageInput(path, kind)];
  const native = findNativeFfmpeg();
  let out: string;
  try {
    out = (native ? await runTool(native.ffprobe, args) : await runWasm("ffprobe", args)).stdout;
  } catch {
    return undefined;
  }
  const streams = (JSON.parse(out) as { streams?: Array<{ codec_type?: string; codec_name?: string; width?: number; height?: number }> }).streams ?? [];
  const v = streams.find((s) => s.codec_type === "video" && s.codec_name === CODEC[kind]);
  return v?.width && v.height ? { kind, width: v.width, height: v.height } : undefined;
}

/**
 * Decodes the whole image and writes it again as an RGBA PNG with nothing but pixels (no metadata,
 * no colour profile chunks): a truncated or corrupt file fails here, before anything keeps it.
 */
export async function normaliseToPng(path: string, kind: ImageKind, outPath: string): Promise<void> {
  await ffmpeg(["-y", "-v", "error", "-xerror", ...imageInput(path, kind), "-frames:v", "1", "-map_metadata", "-1", "-pix_fmt", "rgba", "-f", "image2", "-c:v", "png", "-update", "1", outPath]);
}
