/**
 * Real recogniser output of the shared recordings (clipyard transcribe --json, whisper-tiny.en +
 * silero-vad), committed under test/fixtures/asr so the editorial rules are tested on what the
 * ASR stage really produces: its punctuation, its timings and its token splits. "rooftop-hours" is
 * the first demo sample (espeak-ng), "rooftop-hours-piper" the current one (Piper's Joe voice).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Transcript } from "../../src/pipeline/types.ts";

export const ASR_FIXTURES = ["rooftop-hours", "rooftop-hours-piper", "meeting_trn03", "meeting_trn06", "meeting_trn08", "meeting_trn09", "two_speakers_call"] as const;

export function asrTranscript(name: (typeof ASR_FIXTURES)[number]): Transcript {
  return JSON.parse(readFileSync(join(import.meta.dir, "../fixtures/asr", `${name}.json`), "utf8")) as Transcript;
}
