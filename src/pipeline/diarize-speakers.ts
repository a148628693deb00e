/**
 * Chooses and runs the diarizer: neural speaker embeddings (CAM++ in the speech runtime) when their
 * verified model is present, otherwise the MFCC clustering, with a warning saying why.
 */
import { log } from "../log.ts";
import { runWorker } from "../models/speech-runtime.ts";
import { ModelNotAvailableError, resolveModel } from "../models/store.ts";
import { diarizeWords, speakerTimeline, type SpeakerTurn } from "./diarize.ts";
import { diarizeFromEmbeddings, embeddingWindows } from "./diarize-embeddings.ts";
import type { Region } from "./vad.ts";

export const SPEAKER_EMBEDDING_MODEL = "campplus-zh-en";

export interface SpeakerLabels {
  speakers: string[];
  turns: SpeakerTurn[];
  /** Like turns, but where two voices share the speech both are listed (turns may overlap in time). */
  activity: SpeakerTurn[];
  /** What labelled the speakers, for the transcript's engine line. */
  engine: string;
  /** Set when the embedding model could not be used and the MFCC clustering stood in. */
  warning?: string;
}

interface TimedWord {
  start: number;
  end: number;
}

export interface LabelSpeakersInput {
  /** The 16 kHz mono WAV the worker reads. */
  wav: string;
  samples: Float32Array;
  sampleRate: number;
  regions: Region[];
  words: TimedWord[];
  numSpeakers?: number;
  /** "mfcc" skips the embedding model (benchmarks compare the two). */
  diarizer?: "auto" | "mfcc";
  modelsDir?: string;
  signal?: AbortSignal;
}

function mfccLabels(input: LabelSpeakersInput, warning?: string): SpeakerLabels {
  const speakers = diarizeWords(input.samples, input.sampleRate, input.regions, input.words, { numSpeakers: input.numSpeakers });
  const turns = speakerTimeline(
    input.regions,
    input.words.map((w, i) => ({ ...w, speaker: speakers[i]! })),
  );
  return { speakers, turns, activity: turns, engine: "MFCC speaker clustering", warning };
}

export async function labelSpeakers(input: LabelSpeakersInput): Promise<SpeakerLabels> {
  if (input.diarizer === "mfcc") return mfccLabels(input);
  let modelPath: string;
  try {
    modelPath = resolveModel(SPEAKER_EMBEDDING_MODEL, input.modelsDir);
  } catch (err) {
    if (!(err instanceof ModelNotAvailableError)) throw err;
    const warning = `speaker labels from MFCC clustering, not neural speaker embeddings: ${err.message}`;
    log.warn("speaker embedding model unavailable; using MFCC clustering", { reason: err.message });
    return mfccLabels(input, warning);
  }
  const windows = embeddingWindows(input.regions);
  if (!windows.length) return { speakers: input.words.map(() => "Speaker 1"), turns: [], activity: [], engine: "CAM++ speaker embeddings" };
  let embeddings: number[][] | undefined;
  try {
    await runWorker(
      ["speakers", "--model", modelPath, "--audio", input.wav, "--windows", JSON.stringify(windows.map((w) => [w.start, w.end]))],
      (m) => {
        if (Array.isArray(m.embeddings)) embeddings = m.embeddings as number[][];
      },
      input.signal,
    );
    if (!embeddings || embeddings.length !== windows.length) throw new Error(`speaker worker returned ${embeddings?.length ?? 0} embeddings for ${windows.length} windows`);
  } catch (err) {
    // Speaker labels are worth less than the transcript: a failing embedding run degrades, it does not fail the job.
    if (input.signal?.aborted) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    log.warn("speaker embedding run failed; using MFCC clustering", { reason });
    return mfccLabels(input, `speaker labels from MFCC clustering, not neural speaker embeddings: ${reason}`);
  }
  const r = diarizeFromEmbeddings(input.regions, windows, embeddings, input.words, { numSpeakers: input.numSpeakers });
  return { ...r, engine: `CAM++ speaker embeddings (${SPEAKER_EMBEDDING_MODEL})` };
}
