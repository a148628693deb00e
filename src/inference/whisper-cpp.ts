/**
 * whisper.cpp in this process. Two addons, tried in this order:
 *
 * - the one built here from source (whisper-cpp-built.ts, scripts/setup/whisper-cpp.sh): AVX2 and
 *   each token's probability, so its words carry `p` like the CTranslate2 engine's;
 * - the prebuilt linux-x64 addon of npm `@fugood/node-whisper-linux-x64` (the binding survey in
 *   docs/benchmarks/in-process.md says why this one): SSE only and no probabilities, used where the first is not
 *   built or the CPU lacks its instructions, with the reason in `clipyard doctor`.
 *
 * `CLIPYARD_WHISPER_CPP_ADDON` (auto, built, prebuilt) forces one; a forced addon that cannot load is
 * an error, never a silent switch. Not the default recogniser: CTranslate2 runs whenever the Python
 * speech runtime is installed (asr-engine.ts); this runs without Python.
 */
import { cpus } from "node:os";
import { COMPILED } from "../config.ts";
import { log } from "../log.ts";
import { cpuCannotRun, findBuiltAddon } from "./whisper-cpp-built.ts";

export interface WhisperCppWord {
  word: string;
  start: number;
  end: number;
  /** The word's probability (wordProbability), where the addon reports token probabilities. */
  p?: number;
  /**
   * The word's tokens with their DTW times, where the built addon ran with the model's alignment heads
   * (recognition's `alignmentHeads`) and aligned every one of them; start and end are still the
   * token-timestamp heuristic's. The pipeline turns these into word times (dtw-word-times.ts).
   */
  aligned?: AlignedToken[];
}

/**
 * A token and its DTW time (seconds): whisper.cpp's t_dtw, the audio frame where the alignment path
 * moves on to the decoder step that reads this token, i.e. where the model has heard it. In OpenAI's
 * timing.py terms that is the token's end (its start is the previous token's time), which is what
 * whisper.cpp's own loop gives each text token (whisper_exp_compute_token_level_timestamps_dtw).
 */
export interface AlignedToken {
  text: string;
  at: number;
}

/** One token's text and probability. */
export interface TokenProbability {
  text: string;
  p: number;
  /** Its DTW time in seconds, where the built addon computed one. */
  dtw?: number;
}

interface Segment {
  text: string;
  /** Milliseconds. */
  t0: number;
  t1: number;
  /** The segment's text tokens with their probabilities (the built addon only). */
  tokens?: TokenProbability[];
}

interface NativeContext {
  transcribeData(pcm16: ArrayBuffer, options: Record<string, unknown>): { stop: () => Promise<void>; promise: Promise<{ segments: Segment[]; isAborted: boolean; language?: string }> };
  release(): Promise<void>;
}

interface Addon {
  WhisperContext: (new (options: { filePath: string; useGpu?: boolean }) => NativeContext) & {
    toggleNativeLog(enable: boolean, callback?: (level: string, text: string) => void): void;
  };
}

/** smart-whisper's binding (src/binding/*.cc in its package), as built by setup. */
interface BuiltToken {
  text: string;
  id: number;
  p: number;
  /** Milliseconds, with token_timestamps. */
  from?: number;
  to?: number;
  /** Milliseconds: the token's DTW time, where the model was loaded with alignment heads and this window was aligned. */
  dtw?: number;
}
interface BuiltSegment {
  from: number;
  to: number;
  text: string;
  lang?: string;
  tokens?: BuiltToken[];
}
interface BuiltModel {
  readonly handle: unknown;
  free(): Promise<void>;
}
interface BuiltBinding {
  /** `alignmentHeads`: a whisper_alignment_heads_preset, which turns DTW token times on (the patched binding). */
  WhisperModel: { load(path: string, gpu: boolean, alignmentHeads?: number): Promise<BuiltModel> };
  transcribe(handle: unknown, pcm: Float32Array, params: Record<string, unknown>, done: (result: BuiltSegment[] | Error) => void, progress: (segment: { to: number }) => void): void;
}

/** Which addon runs, in words for `clipyard doctor`: what it is and why this one. */
export interface WhisperCppAddonChoice {
  kind: "built" | "prebuilt";
  label: string;
  reason: string;
  /** Whether its words carry probabilities. */
  probabilities: boolean;
}

export type WhisperCppLoad =
  | ({ ok: true } & WhisperCppAddonChoice & ({ kind: "prebuilt"; addon: Addon } | { kind: "built"; binding: BuiltBinding }))
  | { ok: false; reason: string };

export type WhisperCppAddonSetting = "auto" | "built" | "prebuilt";

export function whisperCppAddonSetting(env: Record<string, string | undefined> = process.env): WhisperCppAddonSetting {
  const v = env.CLIPYARD_WHISPER_CPP_ADDON ?? "auto";
  if (v === "auto" || v === "built" || v === "prebuilt") return v;
  throw new Error(`CLIPYARD_WHISPER_CPP_ADDON must be auto, built or prebuilt (got '${v}')`);
}

let loading: WhisperCppLoad | undefined;

function loadBuilt(): WhisperCppLoad {
  const found = findBuiltAddon();
  if (!found.ok) return found;
  const cpu = cpuCannotRun(found.info);
  if (cpu) return { ok: false, reason: cpu };
  // The binding turns whisper.cpp's own log (model sizes, progress, per-run timings on stderr) off only
  // when it loads under NODE_ENV=production.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    const binding = require(found.path) as BuiltBinding;
    return {
      ok: true,
      kind: "built",
      binding,
      label: `whisper.cpp built from ${found.info.source} for ${found.info.march}`,
      reason: `${COMPILED ? "it is embedded in this executable" : `it is built (${found.path})`} and this CPU has ${found.info.cpuFlags.join(", ")}`,
      probabilities: true,
    };
  } catch (err) {
    return { ok: false, reason: `the source-built addon ${found.path} did not load: ${(err as Error).message}` };
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

function loadPrebuilt(why: string): WhisperCppLoad {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return { ok: false, reason: `the whisper.cpp addon is prebuilt for linux-x64 only (this is ${process.platform}-${process.arch})` };
  }
  try {
    const addon = require("@fugood/node-whisper-linux-x64") as Addon;
    // Silent until a recognition routes whisper.cpp's log to ours (nativeLog): by default it prints every buffer size on stderr.
    addon.WhisperContext.toggleNativeLog(false);
    return { ok: true, kind: "prebuilt", addon, label: "@fugood/node-whisper-linux-x64 (prebuilt, SSE only, no word probabilities)", reason: why, probabilities: false };
  } catch (err) {
    return { ok: false, reason: `@fugood/node-whisper-linux-x64 did not load: ${(err as Error).message}` };
  }
}

export function loadWhisperCpp(env: Record<string, string | undefined> = process.env): WhisperCppLoad {
  if (loading) return loading;
  let setting: WhisperCppAddonSetting;
  try {
    setting = whisperCppAddonSetting(env);
  } catch (err) {
    return (loading = { ok: false, reason: (err as Error).message });
  }
  if (setting === "prebuilt") return (loading = loadPrebuilt("CLIPYARD_WHISPER_CPP_ADDON=prebuilt"));
  const built = loadBuilt();
  if (built.ok || setting === "built") return (loading = built.ok ? built : { ok: false, reason: `CLIPYARD_WHISPER_CPP_ADDON=built but ${built.reason}` });
  const prebuilt = loadPrebuilt(`the source-built addon is not used: ${built.reason}`);
  if (prebuilt.ok) log.info("whisper.cpp: the prebuilt addon runs (no word probabilities, SSE only)", { why: built.reason });
  return (loading = prebuilt);
}

/** 16-bit PCM, which is what the addon reads; exact for audio that was decoded from 16-bit WAV. */
function toPcm16(samples: Float32Array): ArrayBuffer {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return out.buffer;
}

/** Tokens that are punctuation only: faster-whisper joins them to a word after taking its probability. */
const PUNCTUATION_ONLY = /^[\p{P}\p{S}\s]+$/u;

/**
 * A word's probability from its tokens', as the CTranslate2 engine (faster-whisper's find_alignment, as
 * whisperX) takes it: the mean of the word's token probabilities, leaving out punctuation-only tokens
 * (faster-whisper merges punctuation into the neighbouring word after its probability is taken), unless
 * the word is nothing else; rounded to 3 places as the Python worker rounds. None without tokens.
 */
export function wordProbability(tokens: readonly TokenProbability[]): number | undefined {
  if (!tokens.length) return undefined;
  const spoken = tokens.filter((t) => !PUNCTUATION_ONLY.test(t.text));
  const counted = spoken.length ? spoken : tokens;
  return Math.round((counted.reduce((sum, t) => sum + t.p, 0) / counted.length) * 1000) / 1000;
}

/**
 * With one token per segment and token timestamps, whisper.cpp's segments are tokens with times; a
 * token that does not start with a space continues the word before it. Where the segments carry their
 * tokens' probabilities, each word gets `p` from its tokens (wordProbability).
 */
export function wordsFromTokenSegments(segments: Segment[]): WhisperCppWord[] {
  const words: WhisperCppWord[] = [];
  const tokens: TokenProbability[][] = [];
  for (const s of segments) {
    if (!s.text.trim()) continue;
    const last = words[words.length - 1];
    if (last && !s.text.startsWith(" ")) {
      last.word += s.text;
      last.end = s.t1 / 1000;
      tokens[tokens.length - 1]!.push(...(s.tokens ?? []));
    } else {
      words.push({ word: s.text.trim(), start: s.t0 / 1000, end: s.t1 / 1000 });
      tokens.push([...(s.tokens ?? [])]);
    }
  }
  words.forEach((w, i) => {
    const p = wordProbability(tokens[i]!);
    if (p !== undefined) w.p = p;
    // DTW times only where every token of the word has one (a window too short to align has none).
    const own = tokens[i]!;
    if (own.length && own.every((t) => t.dtw !== undefined)) w.aligned = own.map((t) => ({ text: t.text, at: t.dtw! }));
  });
  return words;
}

export interface WhisperCppOptions {
  threads: number;
  language: string;
  /** Initial prompt: the show's vocabulary, which biases the first window's spellings towards it. */
  prompt?: string;
  /** 0..1 as the addon reports it. */
  onProgress?: (fraction: number) => void;
  /** The language whisper.cpp detected (language "auto"), from its result or its log line. */
  onLanguage?: (code: string) => void;
  signal?: AbortSignal;
  /**
   * The model's alignment heads (alignmentHeadsFor): the built addon then times each token by DTW
   * over those heads' cross-attention, as faster-whisper does, and the words carry `aligned`. The
   * prebuilt addon cannot, and ignores it.
   */
  alignmentHeads?: number;
}

/**
 * whisper.h's whisper_alignment_heads_preset for each Whisper model: the decoder's cross-attention
 * heads OpenAI found to follow the audio (the same heads faster-whisper aligns with). large-v3-turbo has
 * none in this whisper.cpp (its 4 decoder layers are not large-v3's 32), so it keeps token timestamps.
 */
const ALIGNMENT_HEADS: Record<string, number> = {
  "whisper-tiny.en": 3,
  "whisper-tiny": 4,
  "whisper-base.en": 5,
  "whisper-base": 6,
  "whisper-small.en": 7,
  "whisper-small": 8,
  "whisper-medium.en": 9,
  "whisper-medium": 10,
  "whisper-large-v1": 11,
  "whisper-large-v2": 12,
  "whisper-large-v3": 13,
};

/** The alignment heads preset for a Whisper model id (models/manifest.json's name), if whisper.cpp has one. */
export function alignmentHeadsFor(model: string): number | undefined {
  return ALIGNMENT_HEADS[model];
}

/** What the addon is asked for: one token per segment with its times, greedy, and the prompt if any. */
export function addonOptions(opts: WhisperCppOptions): Record<string, unknown> {
  return {
    language: opts.language,
    maxThreads: opts.threads,
    tokenTimestamps: true,
    maxLen: 1,
    beamSize: 1,
    temperature: 0,
    ...(opts.prompt ? { prompt: opts.prompt } : {}),
    ...(opts.onProgress ? { onProgress: (percent: number) => opts.onProgress!(percent / 100) } : {}),
  };
}

/** The built binding's parameters (whisper_full_params' names): the same decoding as addonOptions asks of the prebuilt one. */
export function builtAddonParams(opts: WhisperCppOptions): Record<string, unknown> {
  return {
    strategy: 0, // WHISPER_SAMPLING_GREEDY
    n_threads: opts.threads,
    language: opts.language,
    token_timestamps: true,
    max_len: 1,
    temperature: 0,
    print_progress: false,
    format: "detail",
    ...(opts.prompt ? { initial_prompt: opts.prompt } : {}),
  };
}

/** whisper.cpp's special tokens ([_BEG_], [_TT_150], [_EOT_] …): no text, no place in a word's probability. */
const SPECIAL_TOKEN = /^\[_.*\]$/;

/** The built binding's segments as the word join reads them: times in ms, text tokens with their probabilities. */
export function segmentsFromBuilt(segments: readonly BuiltSegment[]): Segment[] {
  return segments.map((s) => ({
    text: s.text,
    t0: s.from,
    t1: s.to,
    tokens: (s.tokens ?? [])
      .filter((t) => !SPECIAL_TOKEN.test(t.text))
      .map((t) => (typeof t.dtw === "number" && t.dtw >= 0 ? { text: t.text, p: t.p, dtw: t.dtw / 1000 } : { text: t.text, p: t.p })),
  }));
}

/**
 * Threads for the built addon: half the cores, at least one. Its ggml (whisper.cpp of late 2024) waits
 * at every barrier between operations by spinning, never sleeping, so when another process (the speaker
 * models beside recognition, a second job) takes a core, its threads burn CPU waiting for a peer that is
 * not running: on the 2-core VM at load 7, the phone call with tiny.en took 56.7 s of CPU with 2 threads
 * against 7.0 s with 1 (docs/pipeline/transcribe.md, "In-process recognition").
 */
export function builtAddonThreads(requested: number, cores: number): number {
  return Math.max(1, Math.min(requested, Math.floor(cores / 2)));
}

let warnedNoDtw = false;

/**
 * The model, with its alignment heads where asked. An addon built before the DTW patch (setup not rerun
 * since) rejects the third argument ("Wrong number of arguments"): it then loads without, and the words
 * keep the token-timestamp heuristic's times, with a warning to rebuild.
 */
async function loadBuiltModel(binding: BuiltBinding, modelPath: string, alignmentHeads: number | undefined): Promise<BuiltModel> {
  if (alignmentHeads === undefined) return binding.WhisperModel.load(modelPath, false);
  try {
    return await binding.WhisperModel.load(modelPath, false, alignmentHeads);
  } catch (err) {
    if (!(err instanceof TypeError) || !/Wrong number of arguments/.test(err.message)) throw err;
    if (!warnedNoDtw) log.warn("whisper.cpp: the built addon predates DTW word times; `npm run setup` rebuilds it (token-timestamp times meanwhile)");
    warnedNoDtw = true;
    return binding.WhisperModel.load(modelPath, false);
  }
}

/**
 * A cancelled job stops the built addon within one graph computation: the patched binding
 * (scripts/setup/whisper-cpp.patch) hands whisper.cpp an abort callback that reads `abort[0]`, which
 * the signal sets; whisper_full then fails and the promise rejects with the signal's reason.
 */
async function recogniseBuilt(binding: BuiltBinding, modelPath: string, samples: Float32Array, opts: WhisperCppOptions): Promise<WhisperCppWord[]> {
  const model = await loadBuiltModel(binding, modelPath, opts.alignmentHeads);
  // Shared memory: read by whisper.cpp's worker thread while this thread may write it.
  const abort = new Int32Array(new SharedArrayBuffer(4));
  const stop = () => Atomics.store(abort, 0, 1);
  opts.signal?.addEventListener("abort", stop);
  try {
    opts.signal?.throwIfAborted();
    const totalMs = (samples.length / 16_000) * 1000;
    const segments = await new Promise<BuiltSegment[]>((resolve, reject) => {
      binding.transcribe(
        model.handle,
        samples,
        { ...builtAddonParams({ ...opts, threads: builtAddonThreads(opts.threads, cpus().length) }), abort },
        (result) => (result instanceof Error ? reject(opts.signal?.aborted ? opts.signal.reason : result) : resolve(result)),
        (segment) => opts.onProgress?.(Math.min(1, Math.max(0, segment.to / totalMs))),
      );
    });
    opts.signal?.throwIfAborted();
    const language = segments.find((s) => s.lang)?.lang;
    if (language && /^[a-z]{2,3}$/.test(language)) opts.onLanguage?.(language);
    return wordsFromTokenSegments(segmentsFromBuilt(segments));
  } finally {
    opts.signal?.removeEventListener("abort", stop);
    await model.free();
  }
}

/** Words with times (seconds) for 16 kHz mono audio, greedy decoding like the CTranslate2 path. */
export async function recogniseWithWhisperCpp(modelPath: string, samples: Float32Array, opts: WhisperCppOptions): Promise<WhisperCppWord[]> {
  const loaded = loadWhisperCpp();
  if (!loaded.ok) throw new Error(loaded.reason);
  opts.signal?.throwIfAborted();
  if (loaded.kind === "built") return recogniseBuilt(loaded.binding, modelPath, samples, opts);
  const { WhisperContext } = loaded.addon;
  // whisper.cpp's log goes to ours, errors above debug; only while recognising, because the
  // addon's log callback keeps the event loop alive for as long as it is installed.
  WhisperContext.toggleNativeLog(true, (level, text) => {
    const detected = /auto-detected language: ([a-z]{2,3})\b/.exec(text)?.[1];
    if (detected) opts.onLanguage?.(detected);
    (level === "error" ? log.warn : log.debug)("whisper.cpp", { text: text.trim() });
  });
  const ctx = new WhisperContext({ filePath: modelPath, useGpu: false });
  try {
    const job = ctx.transcribeData(toPcm16(samples), addonOptions(opts));
    const stop = () => void job.stop();
    opts.signal?.addEventListener("abort", stop);
    try {
      const r = await job.promise;
      opts.signal?.throwIfAborted();
      if (typeof r.language === "string" && /^[a-z]{2,3}$/.test(r.language)) opts.onLanguage?.(r.language);
      return wordsFromTokenSegments(r.segments);
    } finally {
      opts.signal?.removeEventListener("abort", stop);
    }
  } finally {
    await ctx.release();
    WhisperContext.toggleNativeLog(false);
  }
}
