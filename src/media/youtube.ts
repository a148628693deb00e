import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { diesWithAppliance } from "../dies-with-appliance.ts";
import { ROOT_DIR } from "../config.ts";

export class YoutubeError extends Error {}

/** Where scripts/setup/youtube.sh installs the current yt-dlp release from PyPI. */
export const VENDORED_YTDLP = join(ROOT_DIR, ".vendor", "python");

export function ytdlpCommand(configured?: string): string[] {
  if (configured) return [configured];
  if (existsSync(join(VENDORED_YTDLP, "yt_dlp"))) return ["python3", "-m", "yt_dlp"];
  return ["yt-dlp"];
}

export interface YoutubeOptions {
  ytdlpPath?: string;
  ffmpegPath?: string;
  maxBytes: number;
  maxSeconds: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Downloads a video-site URL with yt-dlp into `dir` and returns the file. yt-dlp's own downloader is
 * forced (`--downloader native`), so ffmpeg is only used to merge local files, never to fetch. Any
 * failure (private, region-locked, deleted, bot check, offline) is a YoutubeError with yt-dlp's reason.
 */
export async function downloadYoutube(url: string, dir: string, opts: YoutubeOptions): Promise<string> {
  const cmd = [
    ...ytdlpCommand(opts.ytdlpPath),
    "--no-playlist",
    "--no-progress",
    "--no-warnings",
    "--downloader", "native",
    "--socket-timeout", "20",
    "--retries", "2",
    "-f", "bv*[height<=1080]+ba/b[height<=1080]/b",
    "--merge-output-format", "mp4",
    "--max-filesize", String(opts.maxBytes),
    "--match-filter", `duration <= ${Math.floor(opts.maxSeconds)}`,
    ...(opts.ffmpegPath ? ["--ffmpeg-location", opts.ffmpegPath] : []),
    "-o", join(dir, "source.%(ext)s"),
    "--", url,
  ];
  const env = { ...process.env, PYTHONPATH: [VENDORED_YTDLP, process.env.PYTHONPATH].filter(Boolean).join(":") };
  let proc;
  try {
    proc = Bun.spawn(diesWithAppliance(cmd), { env, stdout: "pipe", stderr: "pipe" });
  } catch (err) {
    throw new YoutubeError(`yt-dlp is not installed (${(err as Error).message}); run scripts/setup.sh or set YTDLP_PATH`);
  }
  const kill = () => proc.kill();
  opts.signal?.addEventListener("abort", kill);
  const timer = setTimeout(kill, opts.timeoutMs ?? 15 * 60_000);
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  opts.signal?.removeEventListener("abort", kill);
  const produced = readdirSync(dir).find((f) => f.startsWith("source.") && !f.endsWith(".part") && !f.includes(".f"));
  if (code !== 0 || !produced) {
    const reason = stderr.split("\n").filter((l) => l.includes("ERROR")).join(" ").trim() || stderr.trim().split("\n").at(-1) || `exit code ${code}`;
    throw new YoutubeError(`the video could not be downloaded: ${reason.slice(0, 500)}`);
  }
  return join(dir, produced);
}
