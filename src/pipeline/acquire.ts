import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import type { Config } from "../config.ts";
import { DownloadError, downloadToFile } from "../media/download.ts";
import { MEDIA_CONTAINERS } from "../media/ffmpeg.ts";
import { MediaProbeError, NoAudioStreamError, probeMedia } from "../media/probe.ts";
import { downloadYoutube } from "../media/youtube.ts";
import { uploadInfoKey, uploadKey, type ObjectStore } from "../storage/index.ts";
import { PipelineError } from "./stage.ts";
import type { MediaInfo } from "./types.ts";

/** The downloaded source's name inside the job's source folder. */
export const SOURCE_FILE = "source.media";

const NOT_MEDIA = `the media is not audio or video in an accepted container (${Object.values(MEDIA_CONTAINERS).join(", ")}); playlists, concat lists and other files that refer to further files are refused`;

/** Where POST /v1/uploads keeps uploaded media (tus keeps a metadata file beside each). */
export const uploadsDir = (dataDir: string): string => join(dataDir, "uploads");
export const uploadFilePath = (dataDir: string, uploadId: string): string => join(uploadsDir(dataDir), uploadId);

/** The tus metadata file beside an upload (the raw-body route writes the same shape). */
export const uploadInfoPath = (dataDir: string, uploadId: string): string => `${uploadFilePath(dataDir, uploadId)}.json`;

/**
 * The file name the client gave (tus metadata `filename`), reduced to a safe base name: shown to
 * editors (the timeline's media reference), never used to name or open the file.
 */
export function uploadedFileName(dataDir: string, uploadId: string): string | undefined {
  try {
    return fileNameFromUploadInfo(readFileSync(uploadInfoPath(dataDir, uploadId), "utf8"));
  } catch {
    return undefined;
  }
}

/** uploadedFileName for the upload's metadata as text (from shared storage). */
export function fileNameFromUploadInfo(text: string): string | undefined {
  try {
    const info = JSON.parse(text) as { metadata?: Record<string, string | null> };
    const name = basename(info.metadata?.filename ?? "").replace(/[^\p{L}\p{N}._ -]/gu, "_").slice(-120);
    return /^[^.]/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The upload becomes the job's own file: a hard link where the
 * data directory allows it (instant, no second copy on disk), else a copy, so the upload can expire
 * or serve another job independently.
 */
function takeUpload(dataDir: string, uploadId: string, dir: string): string {
  const from = uploadFilePath(dataDir, uploadId);
  if (!existsSync(from)) throw new PipelineError("media_fetch_failed", `upload ${uploadId} no longer exists (it expired before the job started)`);
  // Named by the appliance like every source: the client's file name must not steer the demuxer choice.
  const dest = join(dir, SOURCE_FILE);
  rmSync(dest, { force: true });
  try {
    linkSync(from, dest);
  } catch {
    copyFileSync(from, dest);
  }
  return dest;
}

/** The upload, from the bucket: an API node on another machine received it (CLIPYARD_STORAGE_URL). */
async function fetchUpload(store: ObjectStore, uploadId: string, dir: string): Promise<string> {
  const dest = join(dir, SOURCE_FILE);
  if (!(await store.download(uploadKey(uploadId), dest))) throw new PipelineError("media_fetch_failed", `upload ${uploadId} no longer exists (it expired before the job started)`);
  return dest;
}

/** The client's file name of an upload kept in shared storage. */
export async function sharedUploadFileName(store: ObjectStore, uploadId: string): Promise<string | undefined> {
  const text = await store.getText(uploadInfoKey(uploadId));
  return text === undefined ? undefined : fileNameFromUploadInfo(text);
}

/**
 * Acquisition: the source becomes a probed local file. video_url goes through the SSRF-safe
 * downloader; youtube_url through yt-dlp; "upload" (POST /v1/uploads, the source's url holds the
 * upload id) is linked in from the uploads folder; "file" (the CLI's `process`) is already local.
 * Either way ffmpeg only ever reads a local file, and only as one of the accepted containers (mediaInput): the
 * probe below refuses playlists, lists and anything else that would make ffmpeg open other files.
 */
export async function acquire(
  source: { type: string; url: string },
  dir: string,
  config: Config,
  opts: { signal?: AbortSignal; onProgress?(fraction: number): void; store?: ObjectStore } = {},
): Promise<MediaInfo> {
  mkdirSync(dir, { recursive: true });
  let path: string;
  if (source.type === "file") {
    path = source.url;
  } else if (source.type === "upload") {
    path = opts.store?.shared ? await fetchUpload(opts.store, source.url, dir) : takeUpload(config.dataDir, source.url, dir);
  } else if (source.type === "youtube_url") {
    try {
      path = await downloadYoutube(source.url, dir, {
        ytdlpPath: config.ytdlpPath,
        ffmpegPath: config.ffmpegPath,
        maxBytes: config.maxMediaBytes,
        maxSeconds: config.maxMediaSeconds,
        signal: opts.signal,
      });
    } catch (err) {
      throw new PipelineError("youtube_ingestion_failed", (err as Error).message, { cause: err });
    }
  } else {
    // Named by the appliance, never by the URL: the extension must not steer ffmpeg's demuxer choice.
    path = join(dir, SOURCE_FILE);
    try {
      await downloadToFile(source.url, path, {
        policy: { allowPrivateNetwork: config.allowPrivateNetwork, allowHttp: config.allowHttp },
        maxBytes: config.maxMediaBytes,
        stallMs: config.downloadStallSeconds * 1000,
        signal: opts.signal,
        onProgress: (bytes, total) => total && opts.onProgress?.(bytes / total),
      });
    } catch (err) {
      if (err instanceof DownloadError) throw new PipelineError("media_fetch_failed", (err as Error).message, { cause: err });
      throw err;
    }
  }
  let info: MediaInfo;
  try {
    info = await probeMedia(path, { requireAudio: true });
  } catch (err) {
    if (err instanceof NoAudioStreamError) throw new PipelineError("media_fetch_failed", "the media has no audio stream: there is nothing to transcribe", { cause: err });
    if (err instanceof MediaProbeError) throw new PipelineError("media_fetch_failed", NOT_MEDIA, { cause: err });
    throw err;
  }
  if (info.durationSeconds > config.maxMediaSeconds) {
    throw new PipelineError("media_fetch_failed", `the media lasts ${Math.round(info.durationSeconds)} s, over the ${config.maxMediaSeconds}-s limit (CLIPYARD_MAX_MEDIA_SECONDS)`);
  }
  return info;
}
