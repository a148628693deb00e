/**
 * Recognition without Python: whisper.cpp in this process on the ggml file derived from the verified
 * CTranslate2 weights. Like the Python worker, only the speech regions are recognised (cut out and
 * joined, so silence costs nothing) and word times are mapped back to the original timeline, a word
 * never spanning the silence cut out between two regions.
 */
import type { PcmSource } from "../../media/wav.ts";
import { ensureDerived } from "../../models/derived.ts";
import { recogniseWithWhisperCpp, type WhisperCppWord } from "../../inference/whisper-cpp.ts";
import { ggmlModelFor } from "./asr-engine.ts";
import type { Region } from "./vad.ts";
import { trimToVoice, type FrameProbabilities } from "./word-edges.ts";

interface Span {
  joinedStart: number;
  originalStart: number;
  length: number;
}

/** The regions' samples joined, and where each piece came from (seconds). */
export function joinRegions(audio: PcmSource, regions: Region[]): { samples: Float32Array; spans: Span[] } {
  const sr = audio.sampleRate;
  const duration = audio.length / sr;
  const pieces: Float32Array[] = [];
  const spans: Span[] = [];
  let cursor = 0;
  for (const [start, end] of regions) {
    const a = Math.trunc(Math.max(0, start) * sr);
    const b = Math.trunc(Math.min(duration, end) * sr);
    if (b <= a) continue;
    pieces.push(audio.read(a, b - a));
    spans.push({ joinedStart: cursor, originalStart: a / sr, length: (b - a) / sr });
    cursor += (b - a) / sr;
  }
  const samples = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of pieces) {
    samples.set(p, off);
    off += p.length;
  }
  return { samples, spans };
}

/**
 * Joined-timeline words back on the original timeline. A word belongs to the piece that holds its
 * midpoint, not its start (as the CTranslate2 worker's piece_of does): whisper.cpp's word times come
 * from token timestamps that often start a word a little early, so a word opening the next stretch of
 * speech began just before the seam and was placed at the end of the previous stretch, before the
 * silence between them, which moved a sentence start across a pause (seen on a shared meeting).
 */
export function wordsToOriginal(words: WhisperCppWord[], spans: Span[]): WhisperCppWord[] {
  const pieceOf = (t: number) => {
    // A time exactly on a seam belongs to the piece it starts.
    const i = spans.findIndex((s) => t < s.joinedStart + s.length - 1e-6);
    return i < 0 ? spans.length - 1 : i;
  };
  const toOriginal = (t: number, s: Span) => s.originalStart + Math.min(Math.max(t - s.joinedStart, 0), s.length);
  const round = (t: number) => Math.round(t * 1000) / 1000;
  return words.map((w) => {
    const span = spans[pieceOf((w.start + Math.max(w.start, w.end)) / 2)]!;
    const start = toOriginal(w.start, span);
    const placed: WhisperCppWord = { word: w.word, start: round(start), end: round(Math.max(start, toOriginal(w.end, span))) };
    if (w.p !== undefined) placed.p = w.p;
    return placed;
  });
}

export interface InProcessRecognition {
  words: WhisperCppWord[];
  /** The derived model that ran, for the transcript's engine line. */
  ggmlModel: string;
  /** The language given, or the one whisper.cpp detected ("und" when it said none). */
  language: string;
  usage: { wallSeconds: number; cpuSeconds: number };
}

export async function recogniseInProcess(
  model: string,
  audio: PcmSource,
  regions: Region[],
  opts: {
    threads: number;
    language: string;
    prompt?: string;
    onProgress?: (fraction: number) => void;
    signal?: AbortSignal;
    /** The VAD's frame probabilities on the original timeline: word edges it hears as silence are trimmed (word-edges.ts). */
    voice?: FrameProbabilities;
  },
): Promise<InProcessRecognition> {
  const ggmlModel = ggmlModelFor(model);
  const ggml = await ensureDerived(ggmlModel);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const { samples, spans } = joinRegions(audio, regions);
  let language = opts.language === "auto" ? "und" : opts.language;
  const joined = spans.length ? await recogniseWithWhisperCpp(ggml, samples, { ...opts, onLanguage: (code) => (language = code) }) : [];
  const cpu = process.cpuUsage(cpu0);
  const words = wordsToOriginal(joined, spans);
  return { words: opts.voice ? trimToVoice(words, opts.voice) : words, ggmlModel, language, usage: { wallSeconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 } };
}
