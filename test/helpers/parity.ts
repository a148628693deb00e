/**
 * The single executable against the source checkout (issue #33): `clipyard process` on the same
 * recording from the compiled binary in an empty folder with no Python on PATH (so whisper.cpp
 * in-process), and from the source with the speech runtime (CTranslate2), each summed up the same way
 * so the two can be held equal. Used by test/e2e/binary-parity.test.ts and scripts/bench/parity.ts.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { modelDir } from "../../src/models/store.ts";

export const ROOT = resolve(import.meta.dir, "../..");

/** Every model the default pipeline uses (what `clipyard models pull` fetches), linked, never copied. */
export const DEFAULT_MODELS = ["whisper-base", "silero-vad", "human-face", "all-minilm-l6-v2", "campplus-zh-en", "pyannote-segmentation-3.0"];

/**
 * The executable, built as scripts/build-binary.sh does, copied into `dir` (an empty folder). Under
 * `npm test`, which builds it from this checkout before the tests start (for the conformance runs) and
 * names it in CLIPYARD_TEST_BINARY, that build is copied rather than the same code compiled again.
 * Run alone, a file builds its own.
 */
export function buildBinaryInto(work: string, dir: string): string {
  const prebuilt = process.env.CLIPYARD_TEST_BINARY;
  const built = prebuilt && existsSync(prebuilt) ? prebuilt : join(work, "build", "clipyard");
  if (built !== prebuilt) {
    const build = Bun.spawnSync(["bash", "scripts/build-binary.sh", "bun-linux-x64", built], { cwd: ROOT });
    if (build.exitCode !== 0) throw new Error(`build-binary.sh failed: ${build.stderr.toString().slice(-2000)}`);
  }
  mkdirSync(dir, { recursive: true });
  copyFileSync(built, join(dir, "clipyard"));
  return join(dir, "clipyard");
}

/**
 * A models folder for the binary holding the verified default set, linked from the checkout's; the
 * derived whisper.cpp file too when the checkout already converted it (its bytes are checked against
 * the manifest either way), else the binary converts it on first use.
 */
export function linkModels(models: string): void {
  mkdirSync(models, { recursive: true });
  for (const m of [...DEFAULT_MODELS, "whisper-base-ggml-q8_0"]) {
    if (existsSync(modelDir(m))) symlinkSync(modelDir(m), join(models, m), "dir");
  }
}

/** Folders of PATH that hold no python or python3, plus one with only ffmpeg and ffprobe. */
export function pathWithoutPython(work: string): string {
  const tools = join(work, "tools");
  mkdirSync(tools, { recursive: true });
  for (const t of ["ffmpeg", "ffprobe"]) if (!existsSync(join(tools, t))) symlinkSync(Bun.which(t)!, join(tools, t));
  const rest = (process.env.PATH ?? "").split(delimiter).filter((d) => d && !["python", "python3"].some((p) => existsSync(join(d, p))));
  return [tools, ...rest].join(delimiter);
}

/**
 * The executable's environment in a parity run: no Python on PATH, the linked models, and the render
 * settings the source run inherits (scripts/test.sh's x264 preset), so both encode alike.
 */
export function binaryEnv(work: string, home: string, models: string): Record<string, string | undefined> {
  return { PATH: pathWithoutPython(work), HOME: home, CLIPYARD_MODELS_DIR: models, CLIPYARD_LOG_LEVEL: "error", CLIPYARD_X264_PRESET: process.env.CLIPYARD_X264_PRESET };
}

export interface ProcessRun {
  code: number;
  stderr: string;
  seconds: number;
  /** What job.json and transcript.json say; absent when the run failed. */
  clips?: number;
  speakers?: number;
  language?: string;
  engine?: Record<string, string>;
  warnings?: string[];
  /** The transcript's words joined, for WER. */
  text?: string;
}

export const PROCESS_ARGS = ["--min-seconds", "5", "--max-seconds", "20"];

/** Runs `cmd process FILE --out OUT …` and sums up what it wrote. */
export async function runProcess(cmd: string[], file: string, out: string, opts: { cwd: string; env: Record<string, string | undefined>; args?: string[] }): Promise<ProcessRun> {
  const t0 = performance.now();
  const proc = Bun.spawn([...cmd, "process", file, "--out", out, ...(opts.args ?? PROCESS_ARGS)], { cwd: opts.cwd, env: opts.env, stdout: "ignore", stderr: "pipe" });
  const stderr = await new Response(proc.stderr).text();
  const code = await proc.exited;
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) return { code, stderr, seconds };
  return summariseRun(out, { code, stderr, seconds });
}

/** What a finished `process` wrote to `out`, summed up (also for a run kept from an earlier bench). */
export function summariseRun(out: string, run: { code: number; stderr: string; seconds: number }): ProcessRun {
  const { code, stderr, seconds } = run;
  const job = JSON.parse(readFileSync(join(out, "job.json"), "utf8"));
  const transcript = JSON.parse(readFileSync(join(out, "transcript.json"), "utf8")) as { language: string; words: Array<{ word: string; speaker: string }> };
  return {
    code,
    stderr,
    seconds,
    clips: job.clips.length,
    speakers: new Set(transcript.words.map((w) => w.speaker)).size,
    language: transcript.language,
    engine: job.engine,
    warnings: job.warnings ?? [],
    text: transcript.words.map((w) => w.word).join(" "),
  };
}

/**
 * The engines with the recogniser named the same: the one documented difference between the paths
 * (whisper.cpp on the converted q8_0 file in the binary, CTranslate2 int8 in the speech runtime);
 * voice activity, speakers, highlights and ffmpeg must read the same.
 */
export function enginesBesidesRecogniser(engine: Record<string, string>): Record<string, string> {
  const same = (s: string) =>
    s
      .replace(/^whisper\.cpp (\S+?)-ggml-q8_0 in-process/, "RECOGNISER $1")
      .replace(/^faster-whisper\/CTranslate2 (\S+) \S+( on CUDA)?/, "RECOGNISER $1")
      .replace(/\((?:whisper\.cpp \S+ in-process|faster-whisper\/CTranslate2 in the speech runtime)\)$/, "(RECOGNISER)");
  return Object.fromEntries(Object.entries(engine).map(([k, v]) => [k, same(v)]));
}

/**
 * Warnings less those an engine difference explains (docs/pipeline/transcribe.md): the least-sure stretches
 * come from word probabilities, which CTranslate2 reports and whisper.cpp's addon does not.
 */
export function warningsBesidesEngine(warnings: string[]): string[] {
  return warnings.filter((w) => !w.startsWith("the recogniser was least sure of "));
}
