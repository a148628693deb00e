import type { MediaInfo } from "../pipeline/types.ts";
import { loadConfig } from "../config.ts";

export class MediaProbeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MediaProbeError";
  }
}

export class NoAudioStreamError extends MediaProbeError {
  constructor(path: string) {
    super(`${path} has no audio stream: there is nothing to transcribe`);
    this.name = "NoAudioStreamError";
  }
}

/** ffprobe sits next to ffmpeg when FFMPEG_PATH points at one. */
export function ffprobePath(): string {
  const ff = loadConfig().ffmpegPath;
  return ff ? ff.replace(/ffmpeg(\.exe)?$/, "ffprobe$1") : "ffprobe";
}

interface ProbeJson {
  streams?: Array<{ codec_type?: string; width?: number; height?: number; avg_frame_rate?: string; r_frame_rate?: string; duration?: string; disposition?: { attached_pic?: number } }>;
  format?: { duration?: string };
}

const rate = (r?: string): number | undefined => {
  if (!r) return undefined;
  const [n, d] = r.split("/").map(Number);
  const v = d ? n! / d : n!;
  return Number.isFinite(v) && v > 0 ? v : undefined;
};

/** Pure: ffprobe's JSON to MediaInfo. Cover art (attached pictures) does not count as video. */
export function parseProbe(path: string, json: ProbeJson): MediaInfo {
  const streams = json.streams ?? [];
  const video = streams.find((s) => s.codec_type === "video" && !s.disposition?.attached_pic);
  const audio = streams.find((s) => s.codec_type === "audio");
  const duration = Number(json.format?.duration ?? audio?.duration ?? video?.duration ?? NaN);
  return {
    path,
    durationSeconds: Number.isFinite(duration) ? duration : 0,
    hasVideo: !!video,
    hasAudio: !!audio,
    width: video?.width,
    height: video?.height,
    fps: rate(video?.avg_frame_rate) ?? rate(video?.r_frame_rate),
  };
}

export async function probeMedia(path: string, opts: { requireAudio?: boolean } = {}): Promise<MediaInfo> {
  const proc = Bun.spawn([ffprobePath(), "-v", "error", "-print_format", "json", "-show_format", "-show_streams", path], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new MediaProbeError(`ffprobe could not read ${path}: ${err.trim().split("\n").pop() || `exit ${code}`}`);
  const info = parseProbe(path, JSON.parse(out) as ProbeJson);
  if (opts.requireAudio && !info.hasAudio) throw new NoAudioStreamError(path);
  return info;
}
