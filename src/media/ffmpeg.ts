/**
 * Thin adapter around the native ffmpeg/ffprobe binaries: locating them, running them with
 * captured stderr, and probing media. No pipeline decisions live here.
 */
import { dirname, join } from "node:path";
import { existsSync } from "node:fs";
import { loadConfig } from "../config.ts";
import type { MediaInfo } from "../pipeline/types.ts";

export interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
}

let cachedBinaries: FfmpegBinaries | null | undefined;

/**
 * config.ffmpegPath first (its sibling ffprobe with it), then PATH. Returns null when no native
 * ffmpeg exists, so the caller can choose the embedded WebAssembly engine instead.
 */
export function findNativeFfmpeg(ffmpegPath = loadConfig().ffmpegPath): FfmpegBinaries | null {
  if (ffmpegPath === loadConfig().ffmpegPath && cachedBinaries !== undefined) return cachedBinaries;
  let found: FfmpegBinaries | null = null;
  if (ffmpegPath) {
    if (!existsSync(ffmpegPath)) throw new Error(`FFMPEG_PATH points at a missing file: ${ffmpegPath}`);
    const sibling = join(dirname(ffmpegPath), "ffprobe");
    const ffprobe = existsSync(sibling) ? sibling : Bun.which("ffprobe");
    if (!ffprobe) throw new Error(`no ffprobe next to ${ffmpegPath} or on PATH`);
    found = { ffmpeg: ffmpegPath, ffprobe };
  } else {
    const ffmpeg = Bun.which("ffmpeg");
    const ffprobe = Bun.which("ffprobe");
    found = ffmpeg && ffprobe ? { ffmpeg, ffprobe } : null;
  }
  if (ffmpegPath === loadConfig().ffmpegPath) cachedBinaries = found;
  return found;
}

export function requireNativeFfmpeg(): FfmpegBinaries {
  const b = findNativeFfmpeg();
  if (!b) throw new Error("native ffmpeg/ffprobe not found (set FFMPEG_PATH or install ffmpeg)");
  return b;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a binary to completion, capturing both streams; throws with the stderr tail on failure. */
export async function runTool(bin: string, args: string[], opts: { allowFailure?: boolean } = {}): Promise<RunResult> {
  const proc = Bun.spawn([bin, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0 && !opts.allowFailure) {
    const tail = stderr.split("\n").filter(Boolean).slice(-8).join("\n");
    throw new Error(`${bin.split("/").pop()} exited with ${code}:\n${tail}`);
  }
  return { code, stdout, stderr };
}

export async function ffmpeg(args: string[], opts: { allowFailure?: boolean } = {}): Promise<RunResult> {
  return runTool(requireNativeFfmpeg().ffmpeg, ["-hide_banner", "-nostdin", ...args], opts);
}

export interface ProbeStream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  sample_rate?: string;
  channels?: number;
  avg_frame_rate?: string;
  duration?: string;
}

export interface ProbeResult {
  format: { duration?: string; format_name?: string; size?: string };
  streams: ProbeStream[];
}

export async function ffprobeJson(path: string): Promise<ProbeResult> {
  const { stdout } = await runTool(requireNativeFfmpeg().ffprobe, [
    "-v", "error", "-print_format", "json", "-show_format", "-show_streams", path,
  ]);
  return JSON.parse(stdout) as ProbeResult;
}

function parseRate(rate: string | undefined): number | undefined {
  if (!rate) return undefined;
  const [n, d] = rate.split("/").map(Number);
  if (!n || !d) return undefined;
  return n / d;
}

export async function probeMedia(path: string): Promise<MediaInfo> {
  const p = await ffprobeJson(path);
  const video = p.streams.find((s) => s.codec_type === "video" && s.codec_name !== "mjpeg" && s.codec_name !== "png");
  const audio = p.streams.find((s) => s.codec_type === "audio");
  const durationSeconds = Number(p.format.duration ?? video?.duration ?? audio?.duration ?? NaN);
  if (!Number.isFinite(durationSeconds)) throw new Error(`ffprobe found no duration in ${path}`);
  return {
    path,
    durationSeconds,
    hasVideo: Boolean(video),
    hasAudio: Boolean(audio),
    width: video?.width,
    height: video?.height,
    fps: parseRate(video?.avg_frame_rate),
  };
}
