/**
 * Thin adapter around ffmpeg/ffprobe: locating the native binaries (falling back to the embedded
 * WebAssembly core when there are none), running them with captured stderr, and probing media.
 * No pipeline decisions live here.
 */
import { dirname, join, resolve } from "node:path";
import { closeSync, existsSync, openSync, statSync, writeSync } from "node:fs";
import type { Captured } from "../run-command.ts";
import { loadConfig } from "../config.ts";
import { diesWithAppliance } from "../dies-with-appliance.ts";
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

/** A finished tool run: the same shape as any captured command, native or WebAssembly. */
export type RunResult = Captured;

export interface RunOptions {
  allowFailure?: boolean;
  /** An open file descriptor the tool reads as its standard input; default none. */
  stdinFd?: number;
  /** Called with each complete line of stdout as it arrives (stdout is still returned whole). */
  onStdoutLine?: (line: string) => void;
}

/** Runs a binary to completion, capturing both streams; throws with the stderr tail on failure. */
export async function runTool(bin: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const proc = Bun.spawn(diesWithAppliance([bin, ...args]), { stdout: "pipe", stderr: "pipe", stdin: opts.stdinFd ?? "ignore" });
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

/**
 * The demuxers ffmpeg may open a file with: real media containers only. Playlists and lists (HLS,
 * DASH, concat/ffconcat, SDP/RTP, image sequences, tee...) name other files or URLs and their
 * demuxers follow those references, so an uploaded "video" that is really a playlist could read any
 * file the appliance can (another organisation's source) or reach the network. Names are ffmpeg's
 * demuxer names; "mov" covers mp4/m4a/3gp, "matroska" covers webm, "aac" is ADTS. MOV's external
 * data references (dref) stay off, as they are by default.
 */
export const MEDIA_CONTAINERS = {
  mov: "MP4/MOV/M4A/3GP", matroska: "Matroska/WebM", mp3: "MP3", wav: "WAV", w64: "Wave64", flac: "FLAC", ogg: "Ogg",
  aac: "AAC (ADTS)", aiff: "AIFF", caf: "CAF", avi: "AVI", flv: "FLV", asf: "ASF/WMA/WMV", mpegts: "MPEG-TS",
} as const;
export const MEDIA_DEMUXERS = Object.keys(MEDIA_CONTAINERS) as Array<keyof typeof MEDIA_CONTAINERS>;

/**
 * The file name extensions each allowed container is usually saved with, for callers that must
 * pick media files by name before ffmpeg sees them (the watch folder). Keyed by demuxer so a new
 * container cannot be allowed without saying which files carry it.
 */
export const MEDIA_FILE_EXTENSIONS: Record<keyof typeof MEDIA_CONTAINERS, readonly string[]> = {
  mov: [".mp4", ".m4v", ".mov", ".m4a", ".3gp"], matroska: [".mkv", ".webm", ".mka"], mp3: [".mp3"], wav: [".wav"],
  w64: [".w64"], flac: [".flac"], ogg: [".ogg", ".oga", ".opus"], aac: [".aac"], aiff: [".aif", ".aiff"], caf: [".caf"],
  avi: [".avi"], flv: [".flv"], asf: [".wma", ".wmv", ".asf"], mpegts: [".ts", ".mts", ".m2ts"],
};

/**
 * Input arguments for one media file: only the file protocol, only the container demuxers above,
 * and an absolute path so the name can never be read as a protocol URL ("http:", "concat:"...).
 */
export function mediaInput(path: string): string[] {
  return [...MEDIA_INPUT_OPTIONS, "-i", resolve(path)];
}

const MEDIA_INPUT_OPTIONS = ["-protocol_whitelist", "file", "-format_whitelist", MEDIA_DEMUXERS.join(",")];

/**
 * Every input must either come through mediaInput() or name its format itself (`-f lavfi` sources
 * the appliance generates): a plain `-i` lets ffmpeg pick any demuxer from the content.
 */
export function assertInputsConfined(args: string[]): void {
  let from = 0;
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "-i") continue;
    const options = args.slice(from, i);
    if (!options.includes("-format_whitelist") && !options.includes("-f")) {
      throw new Error(`ffmpeg input ${args[i + 1]} opened without mediaInput(): any demuxer could read it`);
    }
    from = i + 2;
  }
}

/** Runs ffmpeg with the engine in use: the native binary, else the embedded WebAssembly core. */
export async function ffmpeg(args: string[], opts: FfmpegOptions = {}): Promise<RunResult> {
  assertInputsConfined(args);
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

/** A bounded run: what ffmpeg said, how many bytes it produced, and whether it was stopped for producing too many. */
export interface BoundedRun {
  code: number;
  stderr: string;
  bytes: number;
  overLimit: boolean;
}

/**
 * Runs ffmpeg whose output (the last argument is left to this function) is raw data bound for
 * `outPath`, and stops it once more than `maxBytes` have been produced, so that a small file that
 * decodes to hours cannot fill the disk or use the CPU for hours. Native ffmpeg writes to a pipe
 * and every chunk is counted as it arrives, whatever the file's timestamps say; the WebAssembly core
 * has no pipes, so there the caller's `-t` bounds the output and the file is measured afterwards.
 */
export async function ffmpegBounded(args: string[], outPath: string, maxBytes: number): Promise<BoundedRun> {
  assertInputsConfined(args);
  const native = findNativeFfmpeg();
  if (!native) {
    const r = await runWasm("ffmpeg", ["-hide_banner", ...args, outPath], { allowFailure: true });
    const bytes = existsSync(outPath) ? statSync(outPath).size : 0;
    return { code: r.code, stderr: r.stderr, bytes, overLimit: bytes > maxBytes };
  }
  const proc = Bun.spawn(diesWithAppliance([native.ffmpeg, "-hide_banner", "-nostdin", ...args, "pipe:1"]), { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const stderr = new Response(proc.stderr).text();
  const fd = openSync(outPath, "w");
  let bytes = 0;
  let overLimit = false;
  try {
    for await (const chunk of proc.stdout) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) {
        overLimit = true;
        proc.kill("SIGKILL");
        break;
      }
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  const code = await proc.exited;
  return { code, stderr: await stderr, bytes, overLimit };
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

const PROBE_ARGS = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"];

export async function ffprobeJson(path: string): Promise<ProbeResult> {
  const native = findNativeFfmpeg();
  const argv = [...PROBE_ARGS, ...mediaInput(path)];
  const { stdout } = native ? await runTool(native.ffprobe, argv) : await runWasm("ffprobe", argv);
  return JSON.parse(stdout) as ProbeResult;
}

/**
 * ffprobeJson for a file already open, never by its path: a path checked and then opened again
 * can be swapped for a symlink in between. Native ffprobe gets the descriptor as its stdin and opens
 * /dev/stdin, which on Linux reopens the same inode (seekable, with its own offset); the in-process
 * WebAssembly core reads /proc/self/fd/N, the same inode again.
 */
export async function ffprobeJsonFd(fd: number): Promise<ProbeResult> {
  const native = findNativeFfmpeg();
  const { stdout } = native
    ? await runTool(native.ffprobe, [...PROBE_ARGS, ...mediaInput("/dev/stdin")], { stdinFd: fd })
    : await runWasm("ffprobe", [...PROBE_ARGS, ...mediaInput(`/proc/self/fd/${fd}`)]);
  return JSON.parse(stdout) as ProbeResult;
}

/**
 * Fonts for captions and cards, by file: the wasm engine has no fontconfig, and naming the files
 * makes native and wasm renders identical. DejaVu comes from the fonts-dejavu-core package.
 */
export const FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/local/share/fonts/dejavu"];

export function fontFile(name: "DejaVuSans.ttf" | "DejaVuSans-Bold.ttf" | "DejaVuSerif-Bold.ttf" | "DejaVuSansMono-Bold.ttf"): string {
  for (const dir of FONT_DIRS) if (existsSync(join(dir, name))) return join(dir, name);
  throw new Error(`font ${name} not found in ${FONT_DIRS.join(", ")} (install fonts-dejavu-core)`);
}

/** Noto Sans CJK (Debian's fonts-noto-cjk): the Han, kana and Hangul that DejaVu does not draw. */
export const CJK_BOLD_FONTS = ["/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", "/usr/share/fonts/noto-cjk/NotoSansCJK-Bold.ttc"];
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Noto Sans per script (Debian's fonts-noto-core), for the scripts of languages Whisper knows that
 * neither DejaVu nor Noto Sans CJK draws: Indic, South-East Asian, Caucasian, Ethiopic, and the
 * Arabic and Hebrew that DejaVu Sans Bold lacks in part. The name is the Unicode script's and the file's.
 */
const NOTO_DIRS = ["/usr/share/fonts/truetype/noto", "/usr/share/fonts/noto"];
const NOTO_SCRIPTS = ["Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Khmer", "Myanmar", "Georgian", "Armenian", "Ethiopic", "Hebrew", "Arabic", "Thaana", "Javanese", "Sundanese"] as const;
const NOTO_SCRIPT_TESTS = NOTO_SCRIPTS.map((script) => ({ script, test: new RegExp(`\\p{Script=${script}}`, "u") }));

/**
 * The bold font a drawn text (an audiogram's title or speaker name) needs: DejaVu, or Noto Sans CJK,
 * or the Noto Sans of the text's script, when the text has characters DejaVu lacks and the font is
 * installed. drawtext has no fallback of its own (captions do: libass asks fontconfig for missing
 * glyphs), so a wrong pick would draw boxes. One font draws the whole text, so the first such script
 * found decides; Noto's script fonts have no Latin letters (Thai, Hebrew and Georgian not even digits),
 * so Latin mixed into such a title still draws as boxes (docs/pipeline/transcribe.md, Languages).
 */
export function boldFontFor(text: string, dejavu: "DejaVuSans-Bold.ttf" | "DejaVuSerif-Bold.ttf" | "DejaVuSansMono-Bold.ttf" = "DejaVuSans-Bold.ttf"): string {
  if (CJK.test(text)) for (const f of CJK_BOLD_FONTS) if (existsSync(f)) return f;
  for (const { script, test } of NOTO_SCRIPT_TESTS) {
    if (!test.test(text)) continue;
    for (const dir of NOTO_DIRS) {
      const f = join(dir, `NotoSans${script}-Bold.ttf`);
      if (existsSync(f)) return f;
    }
  }
  return fontFile(dejavu);
}

