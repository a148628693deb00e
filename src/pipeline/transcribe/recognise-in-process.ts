/**
 * Recognition without Python: whisper.cpp in this process on the ggml file derived from the verified
 * CTranslate2 weights. Like the Python worker, only the speech regions are recognised (cut out and
 * joined, so silence costs nothing) and word times are mapped back to the original timeline, a word
 * never spanning the silence cut out between two regions. Where the built addon aligns tokens by DTW
 * (the model has alignment heads), word times come from that alignment as on the CTranslate2 engine
 * (dtw-word-times.ts); otherwise from whisper.cpp's token-timestamp heuristic.
 */
import type { PcmSource } from "../../media/wav.ts";
import { ensureDerived } from "../../models/derived.ts";
import { alignmentHeadsFor, recogniseWithWhisperCpp, type WhisperCppWord } from "../../inference/whisper-cpp.ts";
import { ggmlModelFor } from "./asr-engine.ts";
import type { Region } from "./vad.ts";
import { trimToVoice, type FrameProbabilities } from "./word-edges.ts";
import { wordTimesFromDtw } from "./dtw-word-times.ts";

/** How in-process word times are made: `dtw` (the default) where the addon and model can, or whisper.cpp's token-timestamp `heuristic`. */
export type WordTimesSetting = "dtw" | "heuristic";

export function wordTimesSetting(env: Record<string, string | undefined> = process.env): WordTimesSetting {
  const v = env.CLIPYARD_WHISPER_CPP_WORD_TIMES ?? "dtw";
  if (v === "dtw" || v === "heuristic") return v;
  throw new Error(`CLIPYARD_WHISPER_CPP_WORD_TIMES must be dtw or heuristic (got '${v}')`);
}

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
export function wordsToOriginal(words: WhisperCppWord[], spans: Span[], placeBy: "midpoint" | "start" = "midpoint"): WhisperCppWord[] {
  const pieceOf = (t: number) => {
    // A time exactly on a seam belongs to the piece it starts.
    const i = spans.findIndex((s) => t < s.joinedStart + s.length - 1e-6);
    return i < 0 ? spans.length - 1 : i;
  };
  const toOriginal = (t: number, s: Span) => s.originalStart + Math.min(Math.max(t - s.joinedStart, 0), s.length);
  const round = (t: number) => Math.round(t * 1000) / 1000;
  return words.map((w) => {
    const span = spans[pieceOf(placeBy === "start" ? w.start : (w.start + Math.max(w.start, w.end)) / 2)]!;
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
  /** Where the word times came from: DTW over the alignment heads, or the token-timestamp heuristic. */
  wordTimes: "dtw" | "token timestamps";
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
  const alignmentHeads = wordTimesSetting() === "dtw" ? alignmentHeadsFor(model) : undefined;
  const recognised = spans.length ? await recogniseWithWhisperCpp(ggml, samples, { ...opts, alignmentHeads, onLanguage: (code) => (language = code) }) : [];
  const cpu = process.cpuUsage(cpu0);
  const aligned = recognised.some((w) => w.aligned);
  // Aligned words are timed as the CTranslate2 engine times its words, so they are placed as its worker
  // places them (by start) and not trimmed: their starts do not run early, and their pauses are
  // measured (the trim and the midpoint rule make up for the heuristic's tiling; on aligned words they
  // moved times away from CTranslate2's, measured in docs/benchmarks/parity.md).
  const words = aligned ? wordsToOriginal(wordTimesFromDtw(recognised), spans, "start") : wordsToOriginal(recognised, spans);
  return {
    words: opts.voice && !aligned ? trimToVoice(words, opts.voice) : words,
    ggmlModel,
    language,
    wordTimes: aligned ? "dtw" : "token timestamps",
    usage: { wallSeconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 },
  };
}
