import type { MediaInfo } from "./media-info.ts";
import { ffprobeJson, ffprobeJsonFd, MEDIA_DEMUXERS, type ProbeResult } from "./ffmpeg.ts";

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

type ProbeJson = Partial<ProbeResult>;

const rate = (r?: string): number | undefined => {
  if (!r) return undefined;
  const [n, d] = r.split("/").map(Number);
  const v = d ? n! / d : n!;
  return Number.isFinite(v) && v > 0 ? v : undefined;
};

/** Pure: ffprobe's JSON to MediaInfo. Cover art (attached pictures) does not count as video. */
export function parseProbe(path: string, json: ProbeJson): MediaInfo {
  const streams = json.streams ?? [];
  const video = streams.find((s) => s.codec_type === "video" && !s.disposition?.attached_pic && s.codec_name !== "mjpeg" && s.codec_name !== "png");
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

/** Probes with the engine in use (native ffprobe, or the embedded WebAssembly one). */
export async function probeMedia(path: string, opts: { requireAudio?: boolean } = {}): Promise<MediaInfo> {
  return probed(path, () => ffprobeJson(path), opts);
}

/** probeMedia for an open file (ffprobeJsonFd): `name` only labels it in messages and the result. */
export async function probeOpenMedia(fd: number, name: string, opts: { requireAudio?: boolean } = {}): Promise<MediaInfo> {
  return probed(name, () => ffprobeJsonFd(fd), opts);
}

async function probed(path: string, probe: () => Promise<ProbeJson>, opts: { requireAudio?: boolean }): Promise<MediaInfo> {
  let json: ProbeJson;
  try {
    json = await probe();
  } catch (err) {
    throw new MediaProbeError(`ffprobe could not read ${path}: ${(err as Error).message.split("\n").filter(Boolean).pop()}`);
  }
  // ffprobe already refuses other demuxers (mediaInput's whitelist); checked again on what it
  // reports, so a build that ignored the whitelist still could not hand a playlist onwards.
  const demuxer = json.format?.format_name ?? "";
  if (!demuxer.split(",").some((name) => (MEDIA_DEMUXERS as readonly string[]).includes(name))) {
    throw new MediaProbeError(`${path} is not a media file in an accepted container (found ${demuxer || "nothing"})`);
  }
  const info = parseProbe(path, json);
  if (opts.requireAudio && !info.hasAudio) throw new NoAudioStreamError(path);
  return info;
}
