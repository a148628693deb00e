#!/usr/bin/env bun
/**
 * Recognition engines side by side on every shared recording: CTranslate2 (faster-whisper in the Python
 * worker, int8 on the CPU) against whisper.cpp in-process (the ggml files converted from the same
 * verified weights, float16 and q8_0). Same audio (the whole file, no VAD cut), greedy decoding, same threads;
 * each recognition runs in its own process, model load included, so CPU time and peak memory compare.
 * DER uses the pipeline's own VAD regions and diarization on each engine's words.
 *
 *   bun scripts/bench/asr-engines.ts [--threads 2] [--runs 1]
 *
 * Recordings: every one in ../shared/media (WER where a reference transcript exists, DER where an RTTM does).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { pcmSource, readWav } from "../../src/media/wav.ts";
import { ensureDerived } from "../../src/models/derived.ts";
import { speechPython } from "../../src/inference/speech-runtime/runtime.ts";
import { workerEnv, workerScript } from "../../src/inference/speech-runtime/worker.ts";
import { resolveModel } from "../../src/models/store.ts";
import { diarizeWords } from "../../src/pipeline/transcribe/diarize-mfcc.ts";
import { speakerTimeline } from "../../src/pipeline/transcribe/speaker-turns.ts";
import { speechRegions } from "../../src/pipeline/transcribe/vad.ts";
import { speechProbabilities } from "../../src/pipeline/transcribe/vad-engine.ts";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { diarizationErrorRate, parseRttm, wordErrorRate } from "./asr-scoring.ts";
import { numberFlag, table } from "./load.ts";

const threads = numberFlag("threads", 2);
/** Every engine runs with the bench's thread count in its OpenMP pool. */
const threadEnv = { ...process.env, OMP_NUM_THREADS: String(threads) };
const runs = numberFlag("runs", 1);
const work = mkdtempSync(join(tmpdir(), "clipyard-bench-engines-"));

interface Word {
  word: string;
  start: number;
  end: number;
}
interface Run {
  words: Word[];
  wallSeconds: number;
  cpuSeconds: number;
  peakRssMb: number;
}

/**
 * Peak memory comes from GNU time around the command: a spawned child's own rusage counts the pages it
 * shared with this (large) process before exec, so it would report this process's size.
 */
const GNU_TIME = "/usr/bin/time";

async function measure(command: string[], parse: (out: string) => Word[], env: NodeJS.ProcessEnv): Promise<Run> {
  const rssFile = join(work, "peak-rss.txt");
  const cmd = existsSync(GNU_TIME) ? [GNU_TIME, "-f", "%M", "-o", rssFile, ...command] : command;
  const t0 = performance.now();
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", env });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`${command.slice(0, 2).join(" ")} failed: ${err.trim().split("\n").slice(-3).join(" | ")}`);
  const ru = proc.resourceUsage()!;
  return {
    words: parse(out),
    wallSeconds: (performance.now() - t0) / 1000,
    cpuSeconds: Number(ru.cpuTime.user + ru.cpuTime.system) / 1e6,
    peakRssMb: existsSync(GNU_TIME) ? Number(readFileSync(rssFile, "utf8").trim()) / 1024 : NaN, // GNU time prints kilobytes
  };
}

const ct2Dir = resolveModel("whisper-tiny.en");
/** The worker takes its regions in a file: here the whole recording as one region. */
function regionsFile(wav: string, duration: number): string {
  const path = `${wav}.regions.json`;
  writeFileSync(path, JSON.stringify([[0, duration]]));
  return path;
}
const ggml = await ensureDerived("whisper-tiny.en-ggml");
const ggmlQ8 = await ensureDerived("whisper-tiny.en-ggml-q8_0");
const whisperCpp = (model: string) => (wav: string) =>
  measure(["bun", join(import.meta.dir, "asr-engines-child.ts"), model, wav, String(threads)], (out) => (JSON.parse(out.trim()) as { words: Word[] }).words, threadEnv);
const engines: Record<string, (wav: string, duration: number) => Promise<Run>> = {
  "CTranslate2 int8 (Python worker)": (wav, duration) =>
    measure(
      [speechPython(), workerScript(), "asr", "--model", ct2Dir, "--audio", wav, "--regions-file", regionsFile(wav, duration), "--language", "en", "--threads", String(threads), "--beam", "1", "--device", "cpu"],
      (out) => (JSON.parse(out.trim().split("\n").pop()!) as { result: { words: Word[] } }).result.words,
      // The environment jobs give the worker (workerEnv), with the bench's thread count.
      workerEnv(threadEnv),
    ),
  "whisper.cpp f16 (in-process addon)": whisperCpp(ggml),
  "whisper.cpp q8_0 (in-process addon)": whisperCpp(ggmlQ8),
};

const rows: Record<string, string | number>[] = [];
// Every shared recording; the f16 file (twice q8_0's CPU for the same words) only on the two with a
// reference transcript, where its words are compared.
const MEETINGS = ["meeting_excerpt", ...Array.from({ length: 9 }, (_, i) => `meeting_trn0${i + 1}`)];
for (const name of ["jfk", "two_speakers_call", ...MEETINGS]) {
  const wav = join(work, `${name}.wav`);
  await decodeToSpeechWav(join(SHARED_MEDIA, `${name}.wav`), wav);
  const audio = pcmSource(readWav(wav));
  const duration = audio.length / audio.sampleRate;
  const refPath = join(SHARED_MEDIA, `${name}.ref.txt`);
  const ref = existsSync(refPath) ? readFileSync(refPath, "utf8") : undefined;
  const vad = await speechProbabilities(wav, audio, resolveModel("silero-vad"));
  const regions = speechRegions(vad.probs, vad.frame_seconds, duration);
  let rttm: string | undefined;
  try {
    rttm = readFileSync(join(SHARED_MEDIA, `${name}.rttm`), "utf8");
  } catch {
    // no diarization reference for this recording
  }
  for (const [engine, run] of Object.entries(engines)) {
    if (!ref && engine.includes("f16")) continue;
    const all: Run[] = [];
    for (let i = 0; i < runs; i++) all.push(await run(wav, duration));
    const best = all.reduce((a, b) => (b.cpuSeconds < a.cpuSeconds ? b : a));
    const hyp = best.words.map((w) => w.word).join(" ");
    let der = "";
    if (rttm && best.words.length) {
      const speakers = diarizeWords(audio, regions, best.words);
      const turns = speakerTimeline(regions, best.words.map((w, i) => ({ ...w, speaker: speakers[i]! })));
      der = `${(100 * diarizationErrorRate(parseRttm(rttm), turns).der).toFixed(1)} %`;
    }
    rows.push({
      recording: `${name} (${duration.toFixed(1)} s)`,
      engine,
      "WER": ref ? `${(100 * wordErrorRate(ref, hyp).wer).toFixed(1)} %` : "",
      words: best.words.length,
      DER: der,
      "RTF cpu": (best.cpuSeconds / duration).toFixed(3),
      "RTF wall": (best.wallSeconds / duration).toFixed(3),
      "cpu s": best.cpuSeconds.toFixed(2),
      "peak RSS MB": best.peakRssMb.toFixed(0),
    });
  }
}
rmSync(work, { recursive: true, force: true });
console.log(`recognition engines — ${threads} threads, best of ${runs} by CPU time, load average ${loadavg()[0]!.toFixed(1)} at end`);
console.log(table(rows));
