#!/usr/bin/env bun
/**
 * One recognition in its own process, so the parent can read its CPU time and peak memory the same way
 * as for the Python worker: `bun scripts/bench/asr-engines-child.ts GGML WAV THREADS` prints {"words": [...]}.
 */
import { readWav } from "../../src/media/wav.ts";
import { recogniseWithWhisperCpp } from "../../src/inference/whisper-cpp.ts";

const [model, wav, threads] = process.argv.slice(2);
const audio = readWav(wav!);
const words = await recogniseWithWhisperCpp(model!, audio.samples, { threads: Number(threads), language: "en" });
process.stdout.write(JSON.stringify({ words }) + "\n");
