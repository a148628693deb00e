import { rmSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { decodeToSpeechWav } from "../../media/decode-audio.ts";
import { openWav } from "../../media/wav.ts";
import { probeMedia } from "../../media/probe.ts";
import { findModel } from "../../models/manifest.ts";
import { resolveModel } from "../../models/store.ts";
import { log } from "../../log.ts";
import { scratchDirSync } from "../../scratch.ts";
import { speakerTimeline, turnsOfSpeakersWithWords, type SpeakerTurn } from "./speaker-turns.ts";
import { labelsFromEvidence, speakerEvidence, type SpeakerEvidence, type SpeakerPart } from "./diarize.ts";
import { castOf, type SpeakersOption } from "./cast.ts";
import { nameSpeakers } from "./speaker-names.ts";
import { transcriptSegments } from "./segments.ts";
import { realignTurns } from "./turns-realign.ts";
import { withoutLaughingVoices } from "./laughter-words.ts";
import type { Transcript, Word } from "../types.ts";
import { decodedLengthLimit } from "../decoded-length.ts";
import { speechRegions, totalSeconds, withoutRegions, type Region } from "./vad.ts";
import { labelsForGivenCount } from "./given-count.ts";
import { overlappedSentencesToFramingVoice } from "./overlap-words.ts";
import { quietSpeech, withQuietWords } from "./quiet-speech.ts";
import { musicStretches, musicWarnings } from "./music-windows.ts";
import { speechProbabilities, type VadEngine } from "./vad-engine.ts";
import { chooseAsrEngine, ggmlModelFor } from "./asr-engine.ts";
import { recogniseInProcess } from "./recognise-in-process.ts";
import { recogniseInWorker, type AsrDevice, type AsrResult } from "./recognise-worker.ts";
import { blameModelOnFailure } from "./blame-model.ts";
import { vocabularyPrompt } from "./vocabulary.ts";
import { correctNearMisses } from "./near-miss.ts";
import { doubtfulStretches } from "./confidence.ts";
import { joinElisions } from "./elisions.ts";
import { chooseAsrModel } from "./asr-model.ts";

export { DEFAULT_ASR_MODEL } from "./asr-model.ts";

const VAD_MODEL = "silero-vad";

const VAD_ENGINE_LABEL: Record<VadEngine, string> = { "onnxruntime-node": "in-process", "python-worker": "in the Python worker" };

export interface TranscribeOptions {
  /** Manifest name of the Whisper model; default CLIPYARD_ASR_MODEL (a name or auto) or whisper-base (asr-model.ts). */
  model?: string;
  /** ISO code, or "auto" to detect (multilingual models only). */
  language?: string;
  threads?: number;
  beamSize?: number;
  /** Skip speaker labelling (every word gets "Speaker 1"). */
  diarize?: boolean;
  /** Known number of speakers; otherwise it is estimated (or taken from `speakers`). */
  numSpeakers?: number;
  /** The job's `speakers` option: the number of people, or their names. */
  speakers?: SpeakersOption;
  /** "auto": neural speaker embeddings when their verified model is present, else MFCC; "mfcc": always MFCC (benchmarks). */
  diarizer?: "auto" | "mfcc";
  /** The show's names and terms (merged job and organisation lists): the recogniser's prompt, then near misses corrected. */
  vocabulary?: string[];
  /** Move speaker changes onto nearby sentence ends (default true; false keeps the diarizer's raw word labels, for comparison). */
  alignTurns?: boolean;
  onProgress?: (fraction: number) => void;
  /**
   * Run the speaker models (segmentation, CAM++ embeddings) while recognition runs, rather than after it
   * (default true): they need no words, only the clustering does. False for benchmarks that compare.
   */
  speakersBesideRecognition?: boolean;
  /** Wall and CPU time per stage, for benchmarks. */
  onStats?: (stage: "decode" | "vad" | "asr" | "diarize" | SpeakerPart | "align", usage: { wallSeconds: number; cpuSeconds?: number }) => void;
  signal?: AbortSignal;
  /** The length cap in seconds (CLIPYARD_MAX_MEDIA_SECONDS); decoding also stops at a small multiple of the claimed duration (decoded-length.ts). Default: no cap beyond that multiple. */
  maxSeconds?: number;
}

export class TranscriptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TranscriptionError";
  }
}

/**
 * Speakers numbered again by first appearance in the words, then in the timeline (a voice the recogniser
 * found no words for): a merged one-word turn can remove a speaker or change who speaks first. One
 * renaming for words, turns and activity, so "Speaker 2" is the same person in all three.
 */
export function numberedByFirstAppearance<W extends { speaker: string }>(words: W[], ...timelines: Array<SpeakerTurn[] | undefined>): { words: W[]; timelines: Array<SpeakerTurn[] | undefined> } {
  const order = [...new Set([...words.map((w) => w.speaker), ...timelines.flatMap((t) => [...(t ?? [])].sort((a, b) => a.start - b.start).map((x) => x.speaker))])];
  const rename = new Map(order.map((s, i) => [s, `Speaker ${i + 1}`]));
  const renamed = <T extends { speaker: string }>(x: T): T => (rename.get(x.speaker) === x.speaker ? x : { ...x, speaker: rename.get(x.speaker)! });
  return { words: words.map(renamed), timelines: timelines.map((t) => t?.map(renamed)) };
}

/**
 * Realigned words, except that a speaker whose every word realignment moved to others (a voice heard
 * only in short cut-off turns) keeps its own: with a count the caller gave, each voice found stays.
 */
export function keepingEverySpeaker(labelled: Word[], aligned: Word[]): Word[] {
  const lost = new Set(labelled.map((w) => w.speaker));
  for (const w of aligned) lost.delete(w.speaker);
  return lost.size ? aligned.map((w, i) => (lost.has(labelled[i]!.speaker) ? { ...w, speaker: labelled[i]!.speaker } : w)) : aligned;
}

/** Voice this long without a word, after a prompted run, means the prompt probably made Whisper skip it. */
export const UNHEARD_SPEECH_SECONDS = 4;

/**
 * The longest stretch of voice activity (seconds) that no word covers, each word taken to cover a
 * second either side of it (pauses, breaths and word-time slack are not "unheard").
 */
export function longestUnheardSpeech(words: ReadonlyArray<{ start: number; end: number }>, regions: Region[]): number {
  const covered = [...words].sort((a, b) => a.start - b.start).map((w) => [w.start - 1, w.end + 1] as const);
  let longest = 0;
  let k = 0;
  for (const [a, b] of regions) {
    let cursor = a;
    while (k < covered.length && covered[k]![1] <= a) k++;
    for (let j = k; j < covered.length && covered[j]![0] < b; j++) {
      if (covered[j]![0] > cursor) longest = Math.max(longest, covered[j]![0] - cursor);
      cursor = Math.max(cursor, covered[j]![1]);
    }
    if (b > cursor) longest = Math.max(longest, b - cursor);
  }
  return longest;
}

/** What is left of a region once music is cut out of it, under this, is not worth a recogniser's look. */
const MIN_RECOGNISED_SECONDS = 0.25;

/** `regions` less `music`, without the slivers the cut leaves. */
const lessMusic = (regions: Region[], music: Region[]): Region[] => (music.length ? withoutRegions(regions, music).filter(([a, b]) => b - a >= MIN_RECOGNISED_SECONDS) : regions);

const withWarnings = (warnings: string[]) => (warnings.length ? { warnings } : {});

/** Decode → Silero VAD → Whisper with word timings → speaker labels → speaker-turn segments. */
export async function transcribeFile(path: string, opts: TranscribeOptions = {}): Promise<Transcript> {
  const progress = (f: number) => opts.onProgress?.(Math.max(0, Math.min(1, f)));
  const modelName = opts.model ?? chooseAsrModel().model;
  const model = findModel(modelName);
  const modelPath = resolveModel(modelName);
  const vadPath = resolveModel(VAD_MODEL);
  const englishOnly = modelName.endsWith(".en");
  const language = englishOnly ? "en" : (opts.language ?? "auto");
  if (englishOnly && opts.language && !["auto", "en"].includes(opts.language)) {
    throw new TranscriptionError(`model ${modelName} only recognises English; pick a multilingual model (e.g. whisper-base) for '${opts.language}'`);
  }

  const { engine, reason: engineReason } = chooseAsrEngine(modelName);
  log.debug("speech recogniser", { engine, reason: engineReason });
  // Fail before decoding when whisper.cpp has no converted model for this one.
  const ggmlModel = engine === "whisper-cpp" ? ggmlModelFor(modelName) : undefined;

  const claimed = (await probeMedia(path, { requireAudio: true })).durationSeconds;
  const decodeLimit = decodedLengthLimit(claimed, opts.maxSeconds ?? Number.POSITIVE_INFINITY);
  const work = scratchDirSync("asr");
  let audio: ReturnType<typeof openWav> | undefined;
  // Stops the speaker models when the job is cancelled or recognition fails while they still run.
  const speakerWork = new AbortController();
  const stopSpeakerWork = () => speakerWork.abort(opts.signal?.reason);
  opts.signal?.addEventListener("abort", stopSpeakerWork, { once: true });
  let evidence: Promise<SpeakerEvidence> | undefined;
  try {
    const wav = join(work, "speech.wav");
    let t0 = performance.now();
    const lap = () => {
      const s = (performance.now() - t0) / 1000;
      t0 = performance.now();
      return s;
    };
    const { gainDb, seconds } = await decodeToSpeechWav(path, wav, { maxSeconds: decodeLimit });
    opts.onStats?.("decode", { wallSeconds: lap() });
    log.debug("speech level", { gainDb: Number(gainDb.toFixed(1)) });
    progress(0.03);

    // Read from disk a window at a time (VAD, diarization): the samples of a long episode never sit in memory.
    audio = openWav(wav);
    const vad = await blameModelOnFailure(VAD_MODEL, opts.signal, () => speechProbabilities(wav, audio!, vadPath, opts.signal));
    opts.onStats?.("vad", vad.usage);
    const duration = audio.length / audio.sampleRate;
    const regions: Region[] = speechRegions(vad.probs, vad.frame_seconds, duration);
    progress(0.08);
    log.debug("speech regions", { count: regions.length, speechSeconds: totalSeconds(regions), duration });
    // Long stretches of music are not given to the recogniser (music-windows.ts): it writes lyrics or
    // invents words there, takes the language from them and garbles the talk that follows. The speaker
    // models still read them, to know the music for what it is.
    const voice = { probs: vad.probs, frameSeconds: vad.frame_seconds };
    const music = musicStretches(audio, regions, { voice });
    const spoken = lessMusic(regions, music);
    if (music.length) log.info("music not recognised", { stretches: music.length, seconds: totalSeconds(music) });

    const evidenceInput = { wav, audio, regions, voice, diarizer: opts.diarizer, signal: speakerWork.signal, onStats: opts.onStats };
    const startEvidence = () => (opts.diarize === false ? undefined : speakerEvidence(evidenceInput));
    if (opts.speakersBesideRecognition !== false) {
      evidence = startEvidence();
      // Awaited after recognition; a failure meanwhile must not count as unhandled.
      evidence?.catch(() => {});
    }

    let device: AsrDevice = { device: "cpu", compute_type: "int8" };
    const threads = opts.threads ?? Math.max(1, cpus().length);
    // The first pass reads Silero's regions in the language asked for; the quiet-speech pass its own stretches in the one found.
    const recognise = async (prompt: string | undefined, report: (f: number) => void, stretches = spoken, lang = language): Promise<AsrResult | undefined> => {
      let result: AsrResult | undefined;
      if (stretches.length && engine === "whisper-cpp") {
        const r = await recogniseInProcess(modelName, audio!, stretches, { threads, language: lang, prompt, onProgress: report, signal: opts.signal, voice });
        result = { language: r.language, language_probability: 1, duration, words: r.words };
        log.debug("in-process word times", { from: r.wordTimes });
        opts.onStats?.("asr", r.usage);
      } else if (stretches.length) {
        result = await recogniseInWorker(modelName, modelPath, wav, stretches, {
          workDir: work,
          threads,
          language: lang,
          beamSize: opts.beamSize,
          prompt,
          onProgress: report,
          onDevice: (d) => (device = d),
          onUsage: (usage) => opts.onStats?.("asr", usage),
          signal: opts.signal,
        });
      }
      return result;
    };
    const prompt = vocabularyPrompt(opts.vocabulary ?? []);
    let result = await recognise(prompt, (f) => progress(0.08 + 0.8 * f));
    const promptWarnings: string[] = [];
    if (prompt && result) {
      // A prompt sometimes makes Whisper skip speech (a 30 s call lost 20 s to "Sheilah, Dianne."):
      // where it left a long stretch of voice without words, the words come from a run without it.
      const unheard = longestUnheardSpeech(result.words, spoken);
      if (unheard >= UNHEARD_SPEECH_SECONDS) {
        const plain = await recognise(undefined, () => {});
        const plainUnheard = plain ? longestUnheardSpeech(plain.words, spoken) : Infinity;
        log.warn("the vocabulary prompt left speech without words; recognised again without it", { unheard, plainUnheard });
        if (plain && plainUnheard < unheard) {
          result = plain;
          promptWarnings.push(`the recogniser skipped ${unheard.toFixed(0)} s of speech when prompted with the vocabulary, so these words come from a run without the prompt (near misses of the vocabulary are still corrected)`);
        }
      }
    }
    progress(0.88);

    const recognisedLanguage = result?.language ?? (language === "auto" ? "und" : language);
    lap();
    evidence ??= startEvidence();
    const found = await evidence;
    // A job cancelled after its last worker finished still ends here, not with a transcript.
    opts.signal?.throwIfAborted();
    // Speech the segmentation model heard where Silero did not (quiet-speech.ts), now the speaker models are done.
    const heardOnlyThere = result && found?.kind === "neural" ? quietSpeech(regions, found.regions) : [];
    // (A tune the segmentation model alone heard is no more recognised than one Silero heard.)
    const quiet = lessMusic(heardOnlyThere, musicStretches(audio, heardOnlyThere, { maxShare: 1, voice }));
    if (result && quiet.length) {
      // Without the vocabulary prompt: on a second or two of quiet speech it is what Whisper would write.
      const again = await recognise(undefined, () => {}, quiet, result.language);
      log.debug("quiet speech recognised again", { stretches: quiet.length, seconds: totalSeconds(quiet), words: again?.words.length ?? 0 });
      if (again) result = { ...result, words: withQuietWords(result.words, quiet, again.words) };
    }
    const heard = joinElisions((result?.words ?? []).map((w) => ({ word: w.word, start: w.start, end: w.end, p: w.p })), recognisedLanguage);
    const { words: rawWords, corrections } = correctNearMisses(heard, opts.vocabulary ?? []);
    if (corrections.length) log.debug("vocabulary corrections", { corrections });
    const cast = castOf(opts.speakers);
    const given = opts.numSpeakers ?? cast?.count;
    const label = (numSpeakers?: number, notSpeech?: Region[]) => {
      const diarized = found && labelsFromEvidence(found, { ...evidenceInput, words: rawWords, numSpeakers, notSpeech });
      const speakers = diarized?.speakers ?? rawWords.map(() => "Speaker 1");
      // Sentences said over someone go to the voice whose turn they are (overlap-words.ts); a voice that
      // only laughs is someone's laugh, not a person (laughter-words.ts).
      const heardAs = rawWords.map((w, i) => ({ ...w, speaker: speakers[i]! }));
      return { diarized, labelled: withoutLaughingVoices(overlappedSentencesToFramingVoice(heardAs, diarized?.activity)) as Word[] };
    };
    // A given count is of people who say something (given-count.ts).
    const { diarized, labelled } = given && found?.kind === "neural" ? labelsForGivenCount(given, label) : label(given);
    opts.onStats?.("diarize", { wallSeconds: lap() });
    const aligned = opts.alignTurns === false ? labelled : realignTurns(labelled);
    const numbered = numberedByFirstAppearance(cast ? keepingEverySpeaker(labelled, aligned) : aligned, diarized?.turns, diarized?.activity);
    const words = numbered.words;
    const [diarizedTurns, diarizedActivity] = numbered.timelines;
    const segments = transcriptSegments(words, diarizedActivity ?? diarizedTurns);
    const naming = nameSpeakers(segments, { cast: cast?.names });
    opts.onStats?.("align", { wallSeconds: lap() });
    progress(1);
    return {
      language: recognisedLanguage,
      durationSeconds: seconds,
      segments,
      words,
      speakerNames: Object.keys(naming.names).length ? naming.names : undefined,
      speakerNameEvidence: naming.evidence.length ? naming.evidence : undefined,
      speakerTurns: turnsOfSpeakersWithWords(diarizedTurns, words) ?? speakerTimeline(regions, words),
      speakerActivity: diarizedActivity,
      engine: `${ggmlModel ? `whisper.cpp ${ggmlModel} in-process` : `faster-whisper/CTranslate2 ${model.name} ${device.compute_type}${device.device === "cuda" ? " on CUDA" : ""}`} + silero-vad v5 ${VAD_ENGINE_LABEL[vad.engine]}${diarized ? ` + ${diarized.engine}` : ""}`,
      ...withWarnings([...(diarized?.warning ? [diarized.warning] : []), ...promptWarnings, ...musicWarnings(music), ...doubtfulStretches(words)]),
    };
  } finally {
    speakerWork.abort();
    opts.signal?.removeEventListener("abort", stopSpeakerWork);
    // The speaker models read the audio: it closes once they have stopped.
    await evidence?.catch(() => {});
    audio?.close();
    rmSync(work, { recursive: true, force: true });
  }
}
