/**
 * Recognition in the Python speech worker: faster-whisper on CTranslate2 (int8 on the CPU, float16 on
 * a CUDA GPU). The worker cuts out and joins the speech regions and maps word times back, as
 * recognise-in-process.ts does for whisper.cpp.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { asrDevice, runWorker, SpeechWorkerError, type WorkerUsage } from "../../inference/speech-runtime/worker.ts";
import { assertModelIntact } from "../../models/store.ts";
import { log } from "../../log.ts";
import { blameModelOnFailure } from "./blame-model.ts";
import { totalSeconds, type Region } from "./vad.ts";

/**
 * Speech runs at two to three words a second; under one word per ten seconds of what the VAD calls
 * voice, over a stretch long enough to judge, the recogniser more likely failed than the speaker.
 */
export function implausiblyFewWords(words: number, speechSeconds: number): boolean {
  return speechSeconds >= 5 && words < speechSeconds * 0.1;
}

/** Where the worker loaded the model (float16 on a CUDA GPU, else int8 on the CPU), and why it fell back. */
export interface AsrDevice {
  device: "cpu" | "cuda";
  compute_type: string;
  warning?: string;
}

export interface AsrResult {
  language: string;
  language_probability: number;
  duration: number;
  words: Array<{ word: string; start: number; end: number; p?: number }>;
}

/** The worker's prompt arguments: none without a prompt, so its command line is unchanged. */
export function promptArgs(prompt: string | undefined): string[] {
  return prompt ? ["--initial-prompt", prompt] : [];
}

export interface WorkerRecognitionOptions {
  /** A scratch folder for the regions file. */
  workDir: string;
  threads: number;
  language: string;
  beamSize?: number;
  prompt?: string;
  onProgress: (fraction: number) => void;
  /** Told as soon as the worker says where the model loaded, before the words come. */
  onDevice: (device: AsrDevice) => void;
  /** The worker's wall and CPU time, told before the words are checked. */
  onUsage?: (usage: WorkerUsage) => void;
  signal?: AbortSignal;
}

/** `model` is the manifest name (for the integrity checks), `modelPath` its verified folder. */
export async function recogniseInWorker(model: string, modelPath: string, wav: string, regions: Region[], opts: WorkerRecognitionOptions): Promise<AsrResult> {
  let result: AsrResult | undefined;
  // A file, not an argument: hours of regions outgrow the kernel's limit on one argument (128 KiB).
  const regionsFile = join(opts.workDir, "regions.json");
  writeFileSync(regionsFile, JSON.stringify(regions));
  const usage = await blameModelOnFailure(model, opts.signal, () => runWorker(
    ["asr", "--model", modelPath, "--audio", wav, "--regions-file", regionsFile, "--language", opts.language, "--threads", String(opts.threads), "--beam", String(opts.beamSize ?? 1), "--device", asrDevice(), ...promptArgs(opts.prompt)],
    (m) => {
      if (typeof m.progress === "number") opts.onProgress(m.progress);
      if (m.device) {
        const device = m.device as AsrDevice;
        opts.onDevice(device);
        if (device.warning) log.warn("speech recognition falls back to the CPU", { reason: device.warning });
      }
      if (m.result) result = m.result as AsrResult;
    },
    opts.signal,
  ));
  if (!result) throw new SpeechWorkerError("ASR worker returned no result");
  opts.onUsage?.(usage);
  const speechSeconds = totalSeconds(regions);
  if (implausiblyFewWords(result.words.length, speechSeconds)) {
    // A model whose bytes changed in place still loads and decodes, but hears nothing: check
    // its checksum before calling the media silent.
    await assertModelIntact(model);
    log.warn("few words for the voice activity found; the model is intact", { model, words: result.words.length, speechSeconds });
  }
  return result;
}
