/**
 * whisper.cpp in this process through the prebuilt linux-x64 addon of npm `@fugood/node-whisper-linux-x64`
 * (the binding survey in docs/pipeline.md says why this one). Not the default recogniser: on this
 * machine's figures it needs 5–9× the CPU time of CTranslate2 (docs/pipeline.md); it runs when asked
 * for (CLIPYARD_ASR_ENGINE=whisper-cpp), which needs no Python at all.
 */
import { log } from "../log.ts";

export interface WhisperCppWord {
  word: string;
  start: number;
  end: number;
}

interface Segment {
  text: string;
  /** Milliseconds. */
  t0: number;
  t1: number;
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

export type WhisperCppLoad = { ok: true; addon: Addon } | { ok: false; reason: string };

let loading: WhisperCppLoad | undefined;

export function loadWhisperCpp(): WhisperCppLoad {
  if (loading) return loading;
  if (process.platform !== "linux" || process.arch !== "x64") {
    loading = { ok: false, reason: `the whisper.cpp addon is prebuilt for linux-x64 only (this is ${process.platform}-${process.arch})` };
  } else {
    try {
      const addon = require("@fugood/node-whisper-linux-x64") as Addon;
      // Silent until a recognition routes whisper.cpp's log to ours (nativeLog): by default it prints every buffer size on stderr.
      addon.WhisperContext.toggleNativeLog(false);
      loading = { ok: true, addon };
    } catch (err) {
      loading = { ok: false, reason: `@fugood/node-whisper-linux-x64 did not load: ${(err as Error).message}` };
    }
  }
  return loading;
}

/** 16-bit PCM, which is what the addon reads; exact for audio that was decoded from 16-bit WAV. */
function toPcm16(samples: Float32Array): ArrayBuffer {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return out.buffer;
}

/**
 * With one token per segment and token timestamps, whisper.cpp's segments are tokens with times; a
 * token that does not start with a space continues the word before it.
 */
export function wordsFromTokenSegments(segments: Segment[]): WhisperCppWord[] {
  const words: WhisperCppWord[] = [];
  for (const s of segments) {
    if (!s.text.trim()) continue;
    const last = words[words.length - 1];
    if (last && !s.text.startsWith(" ")) {
      last.word += s.text;
      last.end = s.t1 / 1000;
    } else words.push({ word: s.text.trim(), start: s.t0 / 1000, end: s.t1 / 1000 });
  }
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

/** Words with times (seconds) for 16 kHz mono audio, greedy decoding like the CTranslate2 path. */
export async function recogniseWithWhisperCpp(modelPath: string, samples: Float32Array, opts: WhisperCppOptions): Promise<WhisperCppWord[]> {
  const loaded = loadWhisperCpp();
  if (!loaded.ok) throw new Error(loaded.reason);
  opts.signal?.throwIfAborted();
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
