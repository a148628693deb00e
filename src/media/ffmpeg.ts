/**
 * Thin adapter around ffmpeg/ffprobe: locating the native binaries (falling back to the embedded
 * WebAssembly core when there are none), running them with captured stderr, and probing media.
 * No pipeline decisions live here.
 */
import { dirname, join } from "node:path";
import { existsSync } from "node:fs";
import { loadConfig } from "../config.ts";
import type { MediaInfo } from "../pipeline/types.ts";
import { runWasm } from "./ffmpeg-wasm.ts";

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

export interface RunOptions {
  allowFailure?: boolean;
  /** Called with each complete line of stdout as it arrives (stdout is still returned whole). */
  onStdoutLine?: (line: string) => void;
}

/** Runs a binary to completion, capturing both streams; throws with the stderr tail on failure. */
export async function runTool(bin: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const proc = Bun.spawn([bin, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([
    opts.onStdoutLine ? readLines(proc.stdout, opts.onStdoutLine) : new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0 && !opts.allowFailure) {
    const tail = stderr.split("\n").filter(Boolean).slice(-8).join("\n");
    throw new Error(`${bin.split("/").pop()} exited with ${code}:\n${tail}`);
  }
  return { code, stdout, stderr };
}

async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<string> {
  const decoder = new TextDecoder();
  let all = "";
  let pending = "";
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    all += text;
    const lines = (pending + text).split("\n");
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
  }
  if (pending) onLine(pending);
  return all;
}

export interface FfmpegOptions {
  allowFailure?: boolean;
  /**
   * Seconds of output written so far, as ffmpeg reports them (about twice a second). Native ffmpeg
   * only, and only for commands that do not write their output to stdout (the report uses it).
   */
  onProgress?: (outSeconds: number) => void;
}

/** Runs ffmpeg with the engine in use: the native binary, else the embedded WebAssembly core. */
export async function ffmpeg(args: string[], opts: FfmpegOptions = {}): Promise<RunResult> {
  const native = findNativeFfmpeg();
  if (!native) return runWasm("ffmpeg", ["-hide_banner", ...args], opts);
  const { onProgress } = opts;
  return runTool(native.ffmpeg, ["-hide_banner", "-nostdin", ...(onProgress ? ["-progress", "pipe:1"] : []), ...args], {
    allowFailure: opts.allowFailure,
    onStdoutLine: onProgress && ((line) => {
      // out_time_us is in microseconds (out_time_ms too, despite its name); N/A before the first frame.
      const m = /^out_time_us=(\d+)$/.exec(line.trim());
      if (m) onProgress(Number(m[1]) / 1e6);
    }),
  });
}

export interface ProbeStream {
  codec_type: string;
  codec_name?: string;
  width?: number;
  height?: number;
  sample_rate?: string;
  channels?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  /** Frames in the stream as the container counts them (mp4: its sample table). */
  nb_frames?: string;
  time_base?: string;
  disposition?: { attached_pic?: number };
}

export interface ProbeResult {
  format: { duration?: string; format_name?: string; size?: string };
  streams: ProbeStream[];
}

export async function ffprobeJson(path: string): Promise<ProbeResult> {
  const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"];
  const native = findNativeFfmpeg();
  const { stdout } = native ? await runTool(native.ffprobe, [...args, path]) : await runWasm("ffprobe", [...args, "-i", path]);
  return JSON.parse(stdout) as ProbeResult;
}

/**
 * Fonts for captions and cards, by file: the wasm engine has no fontconfig, and naming the files
 * makes native and wasm renders identical. DejaVu comes from the fonts-dejavu-core package.
 */
export const FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/local/share/fonts/dejavu"];

export function fontFile(name: "DejaVuSans.ttf" | "DejaVuSans-Bold.ttf"): string {
  for (const dir of FONT_DIRS) if (existsSync(join(dir, name))) return join(dir, name);
  throw new Error(`font ${name} not found in ${FONT_DIRS.join(", ")} (install fonts-dejavu-core)`);
}

