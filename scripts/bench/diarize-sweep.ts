#!/usr/bin/env bun
/**
 * Speaker counting without the recogniser: for each shared recording with an RTTM reference, the
 * speech regions, segmentation chunks and window embeddings are computed once (cached in
 * --cache DIR as JSON, keyed by file name), then the clustering runs from them with the settings
 * given, and DER and the speaker count are printed per file, the tuning split and the held-out split
 * apart (asr-diarization.ts). Words are not needed: DER scores the frame-level activity. With
 * --words DIR (turns-sweep.ts's cache of the recogniser's words, `<file>.<model>.json`) the words are
 * labelled too, realigned as the pipeline does, and the share of speaker changes on a sentence end is
 * printed beside DER.
 *
 *   nice bun scripts/bench/diarize-sweep.ts [--cache /tmp/diarize-cache] [--threshold 0.65] [--min-speech 0]
 *     [--min-share 0.05] [--min-windows 2] [--min-voice 0.5]
 *     [--speakers N | --speakers ref]   (a given count: N for every file, or each file's reference count)
 *     [--links on | --links off | --links SHARE,SECONDS]   (the local speakers' cannot-links; off by default)
 *     [--count threshold | eigengap | vbx] [--eigengap '{"minP":3}'] [--vb '{"fa":0.3,"fb":17}'] [--vb-init 0.5]
 *     (how the count is read: spectral-count.ts, vb-resegment.ts)
 *     [--words /tmp/clipyard-turns-cache] [--model whisper-tiny.en]
 *     [--joined]   (also the ten AMI openings end to end as one 300 s recording, scored on its own row:
 *                   a long file, where rules that count windows or their share behave as on an episode)
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { openWav } from "../../src/media/wav.ts";
import { resolveModel } from "../../src/models/store.ts";
import { diarizeFromEmbeddings, type EmbeddingDiarizeOptions } from "../../src/pipeline/transcribe/diarize-embeddings.ts";
import { speechProbabilities } from "../../src/pipeline/transcribe/vad-engine.ts";
import { meanVoice, musicWindows } from "../../src/pipeline/transcribe/music-windows.ts";
import { diarizationErrorRate, parseRttm, parseUem, turnSentenceStats } from "./asr-scoring.ts";
import { diarizerFeatures, type DiarizerFeatures } from "./diarizer-features.ts";
import { diarizationSummary, type ScoredFile } from "./asr-diarization.ts";
import { realignTurns } from "../../src/pipeline/transcribe/turns-realign.ts";
import { segmentsFromWords } from "../../src/pipeline/transcribe/segments.ts";
import type { Word } from "../../src/pipeline/types.ts";

const SHARED = process.env.CLIPYARD_SHARED_MEDIA ?? join(import.meta.dir, "../../../shared/media");
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const cacheDir = arg("cache") ?? join(tmpdir(), "clipyard-diarize-cache");
mkdirSync(cacheDir, { recursive: true });
const FILES = ["two_speakers_call", "meeting_excerpt", ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `meeting_trn0${i}`)];

/** The features, and whether the music flags were read with Silero's probabilities (caches from before that are read again). */
type Cached = Partial<Pick<DiarizerFeatures, "music" | "voice">> & Omit<DiarizerFeatures, "music" | "voice"> & { musicVoiced?: boolean };

/** Where a file's recording and references are: the shared media, or the folder the joined file is made in. */
const mediaDir = new Map<string, string>();
const JOINED = "ami_openings_joined";
if (process.argv.includes("--joined")) {
  // The openings one after another (the concat filter over the inputs: the shared files are 16 kHz mono
  // WAV), their references shifted by 30 s each; AMI speaker ids are per person, so someone in two
  // openings is one speaker in the joined reference.
  const parts = ["meeting_excerpt", ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `meeting_trn0${i}`)];
  const dir = join(cacheDir, "joined");
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, `${JOINED}.wav`))) {
    await ffmpeg(["-y", ...parts.flatMap((p) => mediaInput(join(SHARED, `${p}.wav`))), "-filter_complex", `concat=n=${parts.length}:v=0:a=1`, "-ar", "16000", "-ac", "1", join(dir, `${JOINED}.wav`)]);
  }
  const rttm = parts.flatMap((p, i) =>
    parseRttm(readFileSync(join(SHARED, `${p}.rttm`), "utf8")).map((t) => `SPEAKER ${JOINED} 1 ${(t.start + 30 * i).toFixed(3)} ${(t.end - t.start).toFixed(3)} <NA> <NA> ${t.speaker} <NA> <NA>`),
  );
  writeFileSync(join(dir, `${JOINED}.rttm`), rttm.join("\n") + "\n");
  writeFileSync(join(dir, `${JOINED}.uem`), `${JOINED} 1 0.000 ${(30 * parts.length).toFixed(3)}\n`);
  mediaDir.set(JOINED, dir);
  FILES.push(JOINED);
}
const media = (name: string) => mediaDir.get(name) ?? SHARED;

/** `read` on the file's speech WAV (decoded as the pipeline decodes it), removed afterwards. */
async function withSpeechWav<T>(name: string, read: (wav: string, audio: ReturnType<typeof openWav>) => Promise<T>): Promise<T> {
  const wav = join(cacheDir, `${name}.wav`);
  await decodeToSpeechWav(join(media(name), `${name}.wav`), wav);
  const audio = openWav(wav);
  try {
    return await read(wav, audio);
  } finally {
    audio.close();
    rmSync(wav, { force: true });
  }
}

/** Silero's frame probabilities, as the pipeline gives them to the music flags. */
async function sileroVoice(wav: string, audio: ReturnType<typeof openWav>) {
  const vad = await speechProbabilities(wav, audio, resolveModel("silero-vad"));
  return { probs: vad.probs, frameSeconds: vad.frame_seconds };
}

async function features(name: string): Promise<Cached> {
  const path = join(cacheDir, `${name}.json`);
  if (existsSync(path)) {
    const c: Cached = JSON.parse(readFileSync(path, "utf8"));
    if (c.music && c.musicVoiced && c.voice) return c;
    // A cache from before music-windows.ts, its Silero gate or --min-voice: the windows' music flags and Silero means again.
    await withSpeechWav(name, async (wav, audio) => {
      const voice = await sileroVoice(wav, audio);
      c.music = musicWindows(audio, c.windows, voice);
      c.voice = c.windows.map((w) => meanVoice(voice, w));
    });
    c.musicVoiced = true;
    writeFileSync(path, JSON.stringify(c));
    return c;
  }
  const c: Cached = { ...(await withSpeechWav(name, (wav, audio) => diarizerFeatures(wav, audio))), musicVoiced: true };
  writeFileSync(path, JSON.stringify(c));
  return c;
}

const opts: EmbeddingDiarizeOptions = {};
if (arg("threshold")) opts.threshold = Number(arg("threshold"));
if (arg("min-speech")) opts.minSpeakerSeconds = Number(arg("min-speech"));
if (arg("min-share")) opts.minClusterShare = Number(arg("min-share"));
if (arg("min-windows")) opts.minClusterWindows = Number(arg("min-windows"));
if (arg("min-voice")) opts.minVoice = Number(arg("min-voice"));
// A number gives every file that count; "ref" gives each file its reference's count (a known cast).
const speakersArg = arg("speakers");
if (speakersArg && speakersArg !== "ref") opts.numSpeakers = Number(speakersArg);
if (arg("eigengap")) opts.eigengap = JSON.parse(arg("eigengap")!);
if (arg("vb")) opts.vb = JSON.parse(arg("vb")!);
if (arg("vb-init")) opts.vbInitThreshold = Number(arg("vb-init"));
if (arg("count")) opts.countEstimator = arg("count") as EmbeddingDiarizeOptions["countEstimator"];
if (arg("links") === "off") opts.links = false;
else if (arg("links") === "on") opts.links = true;
else if (arg("links")) {
  const [minSoloShare, minSoloSeconds] = arg("links")!.split(",").map(Number);
  opts.links = { minSoloShare, minSoloSeconds };
}
const wordsDir = arg("words");
const model = arg("model") ?? "whisper-tiny.en";
/** The recogniser's words for a file from turns-sweep.ts's cache, when there are any. */
function cachedWords(name: string): Word[] {
  const path = wordsDir && join(wordsDir, `${name}.${model}.json`);
  return path && existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as { words: Word[] }).words : [];
}
const scored: ScoredFile[] = [];
for (const name of FILES) {
  const c = await features(name);
  const words = cachedWords(name);
  const reference = parseRttm(readFileSync(join(media(name), `${name}.rttm`), "utf8"));
  const fileOpts = speakersArg === "ref" ? { ...opts, numSpeakers: new Set(reference.map((t) => t.speaker)).size } : opts;
  const r = diarizeFromEmbeddings(c.regions, c.windows, c.embeddings, words, fileOpts, c.overlap, { frames: c.frames, duration: c.duration, speech: c.speech, music: c.music, voice: c.voice });
  let turns: ScoredFile["turns"];
  let shownSpeakers: number | undefined;
  let transcriptDer: number | undefined;
  const uem = join(media(name), `${name}.uem`);
  const scoredRegions = existsSync(uem) ? parseUem(readFileSync(uem, "utf8")) : undefined;
  if (words.length) {
    const realigned = realignTurns(words.map((w, i) => ({ ...w, speaker: r.speakers[i]! })));
    const t = turnSentenceStats(realigned);
    turns = { changes: t.changes, atSentenceEnd: t.changesAtSentenceEnd };
    shownSpeakers = new Set(realigned.map((w) => w.speaker)).size;
    transcriptDer = diarizationErrorRate(reference, segmentsFromWords(realigned), scoredRegions).der;
  }
  const der = diarizationErrorRate(reference, r.activity, scoredRegions);
  scored.push({ name, der, engine: `cached features, ${JSON.stringify(opts)}`, turns, shownSpeakers, transcriptDer });
}
console.log(diarizationSummary(scored));
