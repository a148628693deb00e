#!/usr/bin/env bun
/**
 * Speakers on worse sound: each shared recording with an RTTM reference, as it is and degraded the ways
 * real recordings are (quieter, room noise, a low-bitrate MP3, a telephone band, a reverberant room),
 * through the diarizer alone (the speech regions, segmentation and embeddings, then the clustering, as
 * the pipeline runs them; no recogniser) — per variant the count exact, the mean absolute count error
 * and DER, the tuning and held-out splits apart. A rule that holds only on the clean files shows here.
 * The degradations were chosen before measuring and are not tuned: each is one ffmpeg filter chain.
 *
 *   nice bun scripts/bench/degraded.ts [--variants clean,quiet,noise,mp3,phone,reverb] [--files a,b] [--verbose]
 *     [--threshold 0.65] [--min-speech 1] [--min-share 0.01] [--count threshold|eigengap|vbx]
 *     [--window 1.5,0.75]   (the embedding windows' length and hop, seconds)
 *     [--transcript [--model whisper-base]]   (the whole transcription instead: the speakers owning words, the transcript's DER)
 *
 * The models' output per file and variant is cached (JSON under the system temp folder, clipyard-degraded/),
 * so settings of the clustering are compared in seconds.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { openWav } from "../../src/media/wav.ts";
import { diarizeFromEmbeddings, type EmbeddingDiarizeOptions } from "../../src/pipeline/transcribe/diarize-embeddings.ts";
import { diarizerFeatures, type DiarizerFeatures } from "./diarizer-features.ts";
import { diarizationErrorRate, parseRttm, parseUem } from "./asr-scoring.ts";
import { AMI_OPENINGS, HELD_OUT_SPLIT, TUNING_SPLIT } from "./asr-diarization.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { SHARED } from "./mix-sources.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const verbose = process.argv.includes("--verbose");
/** The whole transcription (`transcribeFile`, this recogniser) instead of the diarizer alone: the speakers the transcript shows and its DER. */
const transcriptModel = process.argv.includes("--transcript") ? (arg("model") ?? "whisper-base") : undefined;

/**
 * One ffmpeg chain per degradation, applied to the 16 kHz mono source (the pipeline's own decode
 * follows): a filter, output arguments and extension, or pink noise mixed in at an SNR.
 */
const VARIANTS: Record<string, { what: string; filter?: string; out?: string[]; ext?: string; noiseSnrDb?: number }> = {
  clean: { what: "as recorded" },
  quiet: { what: "30 dB quieter", filter: "volume=-30dB" },
  noise: { what: "pink noise 15 dB under the recording's mean level", noiseSnrDb: 15 },
  mp3: { what: "MP3 at 24 kbit/s, 16 kHz mono", out: ["-c:a", "libmp3lame", "-b:a", "24k", "-ar", "16000"], ext: "mp3" },
  phone: { what: "300-3400 Hz at 8 kHz, mu-law", filter: "highpass=f=300,lowpass=f=3400,aresample=8000", out: ["-c:a", "pcm_mulaw"] },
  reverb: { what: "a room: echoes at 40, 70, 110 ms", filter: "aecho=0.8:0.7:40|70|110:0.4|0.3|0.2" },
};
const variants = (arg("variants") ?? Object.keys(VARIANTS).join(",")).split(",");
const files = (arg("files") ?? ["two_speakers_call", ...AMI_OPENINGS].join(",")).split(",");
const work = join(tmpdir(), "clipyard-degraded");
mkdirSync(work, { recursive: true });

async function meanVolumeDb(path: string): Promise<number> {
  const { stderr } = await ffmpeg([...mediaInput(path), "-af", "volumedetect", "-f", "null", "-"]);
  const m = /mean_volume: (-?[\d.]+) dB/.exec(String(stderr));
  if (!m) throw new Error(`ffmpeg's volumedetect gave no mean volume for ${path}`);
  return Number(m[1]);
}

/** The degraded recording, written once per variant. */
async function degraded(name: string, variant: string): Promise<string> {
  const src = join(SHARED, `${name}.wav`);
  const v = VARIANTS[variant]!;
  if (variant === "clean") return src;
  const out = join(work, `${name}.${variant}.${v.ext ?? "wav"}`);
  if (existsSync(out)) return out;
  if (v.noiseSnrDb !== undefined) {
    const level = await meanVolumeDb(src);
    // anoisesrc's amplitude is a peak; its pink noise's mean level sits 14 dB under it (volumedetect, seed 7).
    const amp = Math.pow(10, (level - v.noiseSnrDb + 14) / 20);
    await ffmpeg(["-y", ...mediaInput(src), "-f", "lavfi", "-i", `anoisesrc=c=pink:r=16000:a=${amp.toFixed(5)}:seed=7`, "-filter_complex", "[0:a][1:a]amix=inputs=2:duration=first:normalize=0", "-ac", "1", "-ar", "16000", out]);
  } else {
    await ffmpeg(["-y", ...mediaInput(src), ...(v.filter ? ["-af", v.filter] : []), "-ac", "1", ...(v.out ?? []), out]);
  }
  return out;
}

/** The models' view of a recording (speech regions, segmentation, window embeddings), computed once per file and variant. */
async function features(input: string, cache: string): Promise<DiarizerFeatures> {
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, "utf8"));
  const wav = join(work, "speech.wav");
  await decodeToSpeechWav(input, wav);
  const audio = openWav(wav);
  try {
    const f = await diarizerFeatures(wav, audio, windowing);
    writeFileSync(cache, JSON.stringify(f));
    return f;
  } finally {
    audio.close();
    rmSync(wav, { force: true });
  }
}

/** `--window LENGTH,HOP`: the embedding windows (seconds), 1.5,0.75 as the pipeline has them. */
const windowing = (arg("window") ?? "1.5,0.75").split(",").map(Number) as [number, number];
const windowKey = windowing.join("x") === "1.5x0.75" ? "" : `.w${windowing.join("x")}`;
const opts: EmbeddingDiarizeOptions = {};
if (arg("threshold")) opts.threshold = Number(arg("threshold"));
if (arg("min-speech")) opts.minSpeakerSeconds = Number(arg("min-speech"));
if (arg("min-share")) opts.minClusterShare = Number(arg("min-share"));
if (arg("count")) opts.countEstimator = arg("count") as EmbeddingDiarizeOptions["countEstimator"];

interface Row { name: string; variant: string; der: number; hyp: number; ref: number }
const rows: Row[] = [];
for (const variant of variants) {
  for (const name of files) {
    const reference = parseRttm(readFileSync(join(SHARED, `${name}.rttm`), "utf8"));
    const uem = join(SHARED, `${name}.uem`);
    const input = await degraded(name, variant);
    let hypothesis: Array<{ speaker: string; start: number; end: number }>;
    if (transcriptModel) {
      const t = await transcribeFile(input, { model: transcriptModel });
      hypothesis = t.segments;
    } else {
      const f = await features(input, join(work, `${name}.${variant}${windowKey}.json`));
      hypothesis = diarizeFromEmbeddings(f.regions, f.windows, f.embeddings, [], opts, f.overlap, { frames: f.frames, duration: f.duration, speech: f.speech, music: f.music, voice: f.voice }).activity;
    }
    const der = diarizationErrorRate(reference, hypothesis, existsSync(uem) ? parseUem(readFileSync(uem, "utf8")) : undefined).der;
    const row = { name, variant, der, hyp: new Set(hypothesis.map((t) => t.speaker)).size, ref: new Set(reference.map((t) => t.speaker)).size };
    rows.push(row);
    if (verbose) console.error(`${variant.padEnd(7)} ${name.padEnd(18)} DER ${(100 * der).toFixed(1)}% speakers ${row.hyp}/${row.ref}`);
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
function group(rs: Row[]): string {
  if (!rs.length) return "-";
  const der = rs.reduce((s, r) => s + r.der, 0) / rs.length;
  const exact = rs.filter((r) => r.hyp === r.ref).length;
  const err = rs.reduce((s, r) => s + Math.abs(r.hyp - r.ref), 0) / rs.length;
  return `${pct(der)}, ${exact}/${rs.length} exact, |err| ${err.toFixed(2)}`;
}
console.log(transcriptModel ? `transcripts on degraded sound (${transcriptModel}; the transcript's DER, the speakers owning words), ${files.length} files` : `diarizer on degraded sound (activity DER, speaker count), ${files.length} files`);
console.log("| variant | what | AMI openings | tuning split | held-out split | per file: speakers hyp/ref |");
console.log("|---|---|---|---|---|---|");
for (const variant of variants) {
  const rs = rows.filter((r) => r.variant === variant);
  const pick = (names: readonly string[]) => rs.filter((r) => names.includes(r.name));
  console.log(`| ${variant} | ${VARIANTS[variant]!.what} | ${group(pick(AMI_OPENINGS))} | ${group(pick(TUNING_SPLIT))} | ${group(pick(HELD_OUT_SPLIT))} | ${rs.map((r) => `${r.hyp}/${r.ref}`).join(" ")} |`);
}
{
  const pick = (names: readonly string[]) => rows.filter((r) => names.includes(r.name));
  console.log(`| all ${variants.length} | every variant together | ${group(pick(AMI_OPENINGS))} | ${group(pick(TUNING_SPLIT))} | ${group(pick(HELD_OUT_SPLIT))} | |`);
}

