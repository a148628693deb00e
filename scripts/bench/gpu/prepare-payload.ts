#!/usr/bin/env bun
/**
 * Builds what the GPU scripts read (PAYLOAD_DIR), with the pipeline's own functions: the job bench's
 * 10-minute episode decoded to the 16 kHz speech WAV (speech10.flac) with its Silero speech regions
 * (regions10.json) for asr-cuda.py, and the render bench's captions (captions-linkedin.ass,
 * captions-x.ass, the bench's synthetic words) for render-nvenc.py, which also needs the shim's
 * cmds.jsonl, the shared talking heads and DejaVu fonts/ beside them.
 *
 *   bun scripts/bench/gpu/prepare-payload.ts PAYLOAD_DIR
 */
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { ffmpeg, mediaInput } from "../../../src/media/ffmpeg.ts";
import { decodeToSpeechWav } from "../../../src/media/decode-audio.ts";
import { openWav } from "../../../src/media/wav.ts";
import { resolveModel } from "../../../src/models/store.ts";
import { buildAss } from "../../../src/pipeline/render/captions.ts";
import { FORMATS } from "../../../src/pipeline/render/graph.ts";
import { speechProbabilities } from "../../../src/pipeline/transcribe/vad-engine.ts";
import { speechRegions, totalSeconds } from "../../../src/pipeline/transcribe/vad.ts";
import type { Word } from "../../../src/pipeline/types.ts";
import { SHARED_MEDIA } from "../../../test/helpers/paths.ts";

const out = process.argv[2] ?? "gpu-payload";
mkdirSync(out, { recursive: true });
const episode = join(out, "loop10.wav");
await ffmpeg(["-y", "-stream_loop", "-1", ...mediaInput(join(SHARED_MEDIA, "two_speakers_call.wav")), "-t", "600", "-c:a", "pcm_s16le", episode]);
const wav = join(out, "speech10.wav");
await decodeToSpeechWav(episode, wav);
const audio = openWav(wav);
const vad = await speechProbabilities(wav, audio, resolveModel("silero-vad"));
const regions = speechRegions(vad.probs, vad.frame_seconds, audio.length / audio.sampleRate);
await Bun.write(join(out, "regions10.json"), JSON.stringify(regions));
await ffmpeg(["-y", ...mediaInput(wav), "-c:a", "flac", join(out, "speech10.flac")]);
console.log(`${regions.length} speech regions, ${totalSeconds(regions).toFixed(0)} s of speech`);

const words: Word[] = [];
for (let t = 0.2; t < 60; t += 0.42) words.push({ word: "word", start: t, end: t + 0.35, speaker: Math.floor(t / 5) % 2 === 0 ? "Speaker 1" : "Speaker 2" });
for (const f of ["linkedin", "x"] as const) await Bun.write(join(out, `captions-${f}.ass`), buildAss(words, { frame: FORMATS[f], style: "bold", offset: 5, duration: 45 }));
