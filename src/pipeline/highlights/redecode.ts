/**
 * Where the recogniser's punctuation is weak — a long stretch with no sentence end that passes the
 * evidence rule, so no clip, hook or quote can start or end inside it — re-decode just those
 * windows with a bigger Whisper model, and keep its words where they give the stretch sentence
 * ends. The rest of the transcript is untouched, so the cost is proportional to the weak stretches,
 * not to the episode.
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { findModel } from "../../models/manifest.ts";
import { runWorker, SpeechWorkerError } from "../../inference/speech-runtime/worker.ts";
import { openWav } from "../../media/wav.ts";
import { resolveModel } from "../../models/store.ts";
import { chooseAsrEngine } from "../transcribe/asr-engine.ts";
import { recogniseInProcess } from "../transcribe/recognise-in-process.ts";
import { isSpokenWord } from "./sentence-edges.ts";
import { splitSentences } from "./sentences.ts";
import { transcriptSegments } from "../transcribe/segments.ts";
import type { Transcript, Word } from "../types.ts";
import type { Region } from "../transcribe/vad.ts";

/** A stretch this long with no evidenced sentence end leaves a clip nowhere to start or end. */
export const WEAK_WINDOW_SECONDS = 20;
/** The model tried when the transcript came from a smaller one. */
export const BIGGER_MODEL = "whisper-base";

/**
 * Stretches of one speaker's speech at least `minSeconds` long with no evidenced sentence end
 * before their last sentence: inside them a clip can neither start nor end.
 */
export function weakWindows(t: Transcript, minSeconds = WEAK_WINDOW_SECONDS): Region[] {
  const out: Region[] = [];
  const sentences = splitSentences(t.words, t.language);
  let from = 0;
  sentences.forEach((s, i) => {
    const next = sentences[i + 1];
    // The stretch ends at an evidenced end, a speaker change or the end of the transcript.
    if (next && !s.complete && next.speaker === s.speaker) return;
    if (s.end - sentences[from]!.start >= minSeconds) out.push([sentences[from]!.start, s.end]);
    from = i + 1;
  });
  return out;
}

const evidencedEnds = (words: Word[], language?: string) => splitSentences(words, language).filter((s) => s.complete).length;

export interface RedecodeResult {
  transcript: Transcript;
  /** Windows whose words were replaced, and those where the bigger model did not help. */
  replaced: Region[];
  kept: Region[];
  model: string;
  /** The recogniser that ran it, chosen as transcription chooses (CLIPYARD_ASR_ENGINE, or whether the speech runtime is there). */
  engine: string;
}

type RedecodedWord = { word: string; start: number; end: number; p?: number };

/** The bigger model's words for the windows, from the Python worker (CTranslate2). */
async function redecodeInWorker(wav: string, windows: Region[], model: string, language: string, signal?: AbortSignal): Promise<RedecodedWord[]> {
  const spec = findModel(model);
  const modelPath = resolveModel(model);
  let result: { words: RedecodedWord[] } | undefined;
  // The worker takes its regions in a file (beside the WAV, in the job's work folder).
  const regionsFile = `${wav}.redecode-regions.json`;
  writeFileSync(regionsFile, JSON.stringify(windows));
  await runWorker(
    ["asr", "--model", modelPath, "--audio", wav, "--regions-file", regionsFile, "--language", language, "--threads", String(Math.max(1, cpus().length)), "--beam", "1"],
    (m) => {
      if (m.result) result = m.result as typeof result;
    },
    signal,
  );
  if (!result) throw new SpeechWorkerError(`ASR worker returned no result for ${spec.name}`);
  return result.words;
}

/** The bigger model's words for the windows, from whisper.cpp in this process: no Python needed. */
async function redecodeInProcess(wav: string, windows: Region[], model: string, language: string, signal?: AbortSignal): Promise<{ words: RedecodedWord[]; ggmlModel: string }> {
  // The converted file is derived from the verified weights: they must be there first.
  resolveModel(model);
  const audio = openWav(wav);
  try {
    const r = await recogniseInProcess(model, audio, windows, { threads: Math.max(1, cpus().length), language, signal });
    return { words: r.words, ggmlModel: r.ggmlModel };
  } finally {
    audio.close();
  }
}

/**
 * Re-decodes `windows` of the 16 kHz mono WAV with `model` and splices its words in where they
 * add evidenced sentence ends. The recogniser is the one transcription would pick: CTranslate2 in
 * the speech runtime when it is installed, else whisper.cpp in-process on the converted ggml file,
 * so the single executable with no Python re-decodes too. Throws ModelNotAvailableError when the
 * model is not installed and SpeechWorkerError when the speech runtime fails; the caller keeps the
 * transcript it had.
 */
export async function redecodeWindows(t: Transcript, wav: string, windows: Region[], model = BIGGER_MODEL, signal?: AbortSignal): Promise<RedecodeResult> {
  // Each window is widened to the silence around it, up to the neighbouring words, so a word the
  // bigger model times a little earlier or later is neither lost nor doubled.
  const bounded: Region[] = windows.map(([a, b]) => {
    const before = t.words.filter((w) => w.end <= a).pop();
    const after = t.words.find((w) => w.start >= b);
    return [Math.max(before?.end ?? 0, a - 0.5), Math.min(after?.start ?? b + 0.5, b + 0.5)];
  });
  const language = model.endsWith(".en") ? "en" : t.language && t.language !== "und" ? t.language : "auto";
  const { engine: asr } = chooseAsrEngine(model);
  let redecoded: RedecodedWord[];
  let engine: string;
  if (asr === "whisper-cpp") {
    const r = await redecodeInProcess(wav, bounded, model, language, signal);
    redecoded = r.words;
    engine = `whisper.cpp ${r.ggmlModel} in-process`;
  } else {
    redecoded = await redecodeInWorker(wav, bounded, model, language, signal);
    engine = "faster-whisper/CTranslate2 in the speech runtime";
  }
  let words = t.words;
  const replaced: Region[] = [];
  const kept: Region[] = [];
  for (const [a, b] of bounded) {
    const inside = (w: { start: number; end: number }) => (w.start + w.end) / 2 > a && (w.start + w.end) / 2 < b;
    const old = words.filter(inside);
    const speaker = old.find(isSpokenWord)?.speaker ?? old[0]?.speaker ?? "Speaker 1";
    const fresh: Word[] = redecoded.filter(inside).map((w) => ({ word: w.word.trim(), start: w.start, end: w.end, ...(w.p !== undefined ? { p: w.p } : {}), speaker }));
    const first = words.findIndex(inside);
    if (first < 0 || fresh.length === 0) {
      kept.push([a, b]);
      continue;
    }
    const candidate = [...words.slice(0, first), ...fresh, ...words.slice(first + old.length)];
    if (evidencedEnds(candidate, t.language) > evidencedEnds(words, t.language)) {
      words = candidate;
      replaced.push([a, b]);
    } else kept.push([a, b]);
  }
  if (replaced.length === 0) return { transcript: t, replaced, kept, model, engine };
  return { transcript: { ...t, words, segments: transcriptSegments(words, t.speakerActivity ?? t.speakerTurns) }, replaced, kept, model, engine };
}

export interface StrengthenResult {
  transcript: Transcript;
  /** For the job's engine record, when anything was re-decoded. */
  engine?: string;
  /** When weak windows were found but could not be re-decoded (no bigger model, runtime failure). */
  warning?: string;
}

/**
 * The highlight stage's entry point: finds weak windows and re-decodes them with the bigger model
 * when the transcript came from a smaller one and the bigger one is installed. Never fails the job.
 */
export async function strengthenPunctuation(t: Transcript, wav: string, signal?: AbortSignal): Promise<StrengthenResult> {
  const windows = weakWindows(t);
  // Only a tiny model's transcript has a bigger model to ask; base and the larger ones are it or beyond it.
  if (windows.length === 0 || (t.engine !== undefined && !t.engine.includes("tiny"))) return { transcript: t };
  const seconds = Math.round(windows.reduce((n, [a, b]) => n + b - a, 0));
  try {
    const r = await redecodeWindows(t, wav, windows, BIGGER_MODEL, signal);
    return { transcript: r.transcript, engine: `${r.model} re-decoded ${windows.length} weak-punctuation window(s), ${seconds} s; ${r.replaced.length} replaced (${r.engine})` };
  } catch (e) {
    if (signal?.aborted) throw e;
    return { transcript: t, warning: `${windows.length} stretch(es) without sentence ends (${seconds} s) were not re-decoded with ${BIGGER_MODEL}: ${(e as Error).message}` };
  }
}
