/**
 * Chooses and runs the diarizer: neural speaker embeddings (CAM++, in-process or in the speech
 * runtime: speaker-engine.ts) when their verified model is present, otherwise the MFCC clustering, with
 * a warning saying why. With the verified segmentation model too, its speech joins the VAD's and its
 * overlapped speech gets a second speaker.
 */
import { log } from "../../log.ts";
import { ModelNotAvailableError, resolveModel } from "../../models/store.ts";
import type { PcmSource } from "../../media/wav.ts";
import { diarizeWords } from "./diarize-mfcc.ts";
import { speakerTimeline, type SpeakerTurn } from "./speaker-turns.ts";
import { diarizeFromEmbeddings, embeddingWindows, type Window } from "./diarize-embeddings.ts";
import type { LocalFrames } from "./diarize-local.ts";
import { planSpeakerEngine, segmentationProbabilities, speakerEmbeddings, type SpeakerEngineChoice, type SpeakerEnginePlan } from "./speaker-engine.ts";
import { mergeRegions, speechRegions, type Region, type VadOptions } from "./vad.ts";
import { musicWindows } from "./music-windows.ts";
import type { FrameProbabilities } from "./word-edges.ts";

export const SPEAKER_EMBEDDING_MODEL = "campplus-zh-en";
export const SEGMENTATION_MODEL = "pyannote-segmentation-3.0";

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
  /** The same audio, read on demand (the MFCC fallback's features). */
  audio: PcmSource;
  regions: Region[];
  /** Silero's frame probabilities: a window it is sure is speech is never music (music-windows.ts). */
  voice?: FrameProbabilities;
  words: TimedWord[];
  numSpeakers?: number;
  /** Stretches that are no one's speech (diarize-embeddings.ts `notSpeech`). */
  notSpeech?: Region[];
  /** "mfcc" skips the embedding model (benchmarks compare the two). */
  diarizer?: "auto" | "mfcc";
  modelsDir?: string;
  /** Where the neural models run (default: CLIPYARD_SPEAKER_ENGINE). */
  engine?: SpeakerEngineChoice;
  signal?: AbortSignal;
  /** Wall and CPU time of each part, for benchmarks (CPU: this whole process, or the worker when the models run there). */
  onStats?: (part: SpeakerPart, usage: PartUsage) => void;
}

export type SpeakerPart = "segment" | "embed" | "cluster";

export interface PartUsage {
  wallSeconds: number;
  cpuSeconds?: number;
}

function usageSince(t0: number, cpu0: NodeJS.CpuUsage): PartUsage {
  const cpu = process.cpuUsage(cpu0);
  return { wallSeconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/** `run`'s result and its wall and process CPU seconds (the process's CPU: whatever else ran meanwhile counts too). */
export async function timed<T>(run: () => Promise<T>): Promise<{ value: T; usage: PartUsage }> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const value = await run();
  return { value, usage: usageSince(t0, cpu0) };
}

function timedSync<T>(run: () => T): { value: T; usage: PartUsage } {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const value = run();
  return { value, usage: usageSince(t0, cpu0) };
}

function mfccLabels(input: LabelSpeakersInput, warning?: string): SpeakerLabels {
  const speakers = diarizeWords(input.audio, input.regions, input.words, { numSpeakers: input.numSpeakers });
  const turns = speakerTimeline(
    input.regions,
    input.words.map((w, i) => ({ ...w, speaker: speakers[i]! })),
  );
  return { speakers, turns, activity: turns, engine: "MFCC speaker clustering", warning };
}

/** Speech and overlap from the segmentation model's frame probabilities: the VAD's hysteresis, finer pauses. */
export const SEGMENTATION_SPEECH: VadOptions = { threshold: 0.5, negThreshold: 0.4, minSilenceSeconds: 0.3, minSpeechSeconds: 0.2, padSeconds: 0.05 };
export const SEGMENTATION_OVERLAP: VadOptions = { threshold: 0.5, negThreshold: 0.4, minSilenceSeconds: 0.1, minSpeechSeconds: 0.1, padSeconds: 0 };

/**
 * Speech the segmentation model hears (trained on far-field meetings, it finds quiet speakers Silero
 * misses) and where two people talk at once; or the reason when its model is not verified.
 */
async function segment(input: SpeakerEvidenceInput, plan: SpeakerEnginePlan): Promise<{ speech: Region[]; overlaps: Region[]; local: { frames: LocalFrames; duration: number; speech: Region[] } } | { reason: string }> {
  let modelPath: string;
  try {
    modelPath = resolveModel(SEGMENTATION_MODEL, input.modelsDir);
  } catch (err) {
    if (!(err instanceof ModelNotAvailableError)) throw err;
    return { reason: err.message };
  }
  const seg = await segmentationProbabilities(plan, modelPath, input.wav, input.audio, input.signal);
  const duration = input.audio.length / input.audio.sampleRate;
  const speech = speechRegions(seg.speech, seg.frame_seconds, duration, SEGMENTATION_SPEECH);
  return {
    speech,
    overlaps: speechRegions(seg.overlap, seg.frame_seconds, duration, SEGMENTATION_OVERLAP),
    local: { frames: { chunks: seg.chunks, frameSeconds: seg.frame_seconds, firstFrameSeconds: seg.first_frame_seconds }, duration, speech },
  };
}

const fallbackWarning = (why: string) => `speaker labels from MFCC clustering, not neural speaker embeddings: ${why}`;

/**
 * What the neural speaker models say about the audio, which needs no words: the speech (VAD and
 * segmentation merged), where two voices overlap, the embedding windows and their embeddings. Or why
 * the MFCC clustering must stand in. Computed apart from the labelling so it can run while recognition
 * does (transcribe.ts).
 */
export type SpeakerEvidence =
  | { kind: "mfcc"; warning?: string }
  | { kind: "neural"; regions: Region[]; overlaps: Region[]; windows: Window[]; embeddings: number[][]; local?: { frames: LocalFrames; duration: number; speech: Region[]; music?: boolean[] }; engine: string; warning?: string };

export type SpeakerEvidenceInput = Omit<LabelSpeakersInput, "words" | "numSpeakers" | "notSpeech">;

/** The speaker models' evidence; a failing model run degrades to `mfcc` (with the reason), an abort or a fatal engine choice throws. */
export async function speakerEvidence(input: SpeakerEvidenceInput): Promise<SpeakerEvidence> {
  if (input.diarizer === "mfcc") return { kind: "mfcc" };
  let modelPath: string;
  try {
    modelPath = resolveModel(SPEAKER_EMBEDDING_MODEL, input.modelsDir);
  } catch (err) {
    if (!(err instanceof ModelNotAvailableError)) throw err;
    log.warn("speaker embedding model unavailable; using MFCC clustering", { reason: err.message });
    return { kind: "mfcc", warning: fallbackWarning(err.message) };
  }
  // Outside the fallback below: CLIPYARD_SPEAKER_ENGINE=onnxruntime that cannot load fails the job, as asked.
  const plan = await planSpeakerEngine(input.engine);
  const where = plan.engine === "onnxruntime-node" ? " in-process" : "";
  if (!where) log.info("speaker models run in the Python speech worker", { reason: plan.reason });
  try {
    const segRun = await timed(() => segment(input, plan));
    const seg = segRun.value;
    input.onStats?.("segment", segRun.usage);
    const regions = "reason" in seg ? input.regions : mergeRegions([...input.regions, ...seg.speech]);
    const overlaps = "reason" in seg ? [] : seg.overlaps;
    const windows = embeddingWindows(regions);
    const engine = `CAM++ speaker embeddings (${SPEAKER_EMBEDDING_MODEL})${where}${"reason" in seg ? "" : ` + pyannote segmentation-3.0 speech and overlap${where}`}`;
    const warning = "reason" in seg ? `overlapping speech not detected and quiet speech left to the VAD: ${seg.reason}` : undefined;
    if ("reason" in seg) log.warn("segmentation model unavailable; diarizing without overlap detection", { reason: seg.reason });
    // Music and singing the segmentation model took for speech are not confident speech (music-windows.ts).
    const local = "reason" in seg ? undefined : { ...seg.local, music: musicWindows(input.audio, windows, input.voice) };
    if (!windows.length) return { kind: "neural", regions, overlaps, windows, embeddings: [], local, engine, warning };
    const embedRun = await timed(() => speakerEmbeddings(plan, modelPath, input.wav, input.audio, windows.map((w) => [w.start, w.end]), input.signal));
    input.onStats?.("embed", embedRun.usage);
    return { kind: "neural", regions, overlaps, windows, embeddings: embedRun.value, local, engine, warning };
  } catch (err) {
    // Speaker labels are worth less than the transcript: a failing model run degrades, it does not fail the job.
    if (input.signal?.aborted) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    log.warn("speaker embedding run failed; using MFCC clustering", { reason });
    return { kind: "mfcc", warning: fallbackWarning(reason) };
  }
}

/** Speaker labels for the words from the models' evidence (or the MFCC clustering where that is all there is). */
export function labelsFromEvidence(evidence: SpeakerEvidence, input: LabelSpeakersInput): SpeakerLabels {
  if (evidence.kind === "mfcc") return mfccLabels(input, evidence.warning);
  const { regions, overlaps, windows, embeddings, local, engine, warning } = evidence;
  if (!windows.length) return { speakers: input.words.map(() => "Speaker 1"), turns: [], activity: [], engine, warning };
  try {
    const clusterRun = timedSync(() => diarizeFromEmbeddings(regions, windows, embeddings, input.words, { numSpeakers: input.numSpeakers, notSpeech: input.notSpeech }, overlaps, local));
    input.onStats?.("cluster", clusterRun.usage);
    return { ...clusterRun.value, engine, warning };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    log.warn("speaker clustering failed; using MFCC clustering", { reason });
    return mfccLabels(input, fallbackWarning(reason));
  }
}

export async function labelSpeakers(input: LabelSpeakersInput): Promise<SpeakerLabels> {
  return labelsFromEvidence(await speakerEvidence(input), input);
}
