/**
 * Builds Transcripts from text with synthetic but plausible timings, shaped like whisper.cpp output
 * (punctuation attached to words, one Word per token, segments per speaker turn). Used by the unit
 * tests and the highlights bench until real whisper transcripts are available.
 */
import { readFileSync } from "node:fs";
import type { Segment, Transcript, Word } from "../../src/pipeline/types.ts";
import { SHARED_MEDIA as SHARED_MEDIA_DIR } from "./paths.ts";

export interface Turn {
  speaker: string;
  text: string;
}

export interface SynthOptions {
  startAt?: number;
  /** Multiplies every duration; 1 ≈ 150 words per minute. */
  pace?: number;
  language?: string;
}

/** Word duration grows with its letters; pauses after commas, sentence ends and speaker changes. */
export function transcriptFromTurns(turns: Turn[], opts: SynthOptions = {}): Transcript {
  const pace = opts.pace ?? 1;
  let t = opts.startAt ?? 0;
  const words: Word[] = [];
  const segments: Segment[] = [];
  let prevSpeaker: string | null = null;
  for (const turn of turns) {
    if (prevSpeaker !== null) t += (turn.speaker === prevSpeaker ? 0.35 : 0.7) * pace;
    const first = words.length;
    for (const token of turn.text.split(/\s+/).filter(Boolean)) {
      const letters = token.replace(/[^\p{L}\p{N}]/gu, "").length;
      const dur = (0.16 + 0.045 * letters) * pace;
      words.push({ word: token, start: round(t), end: round(t + dur), speaker: turn.speaker });
      t += dur + 0.04 * pace;
      if (/[,;:]$/.test(token)) t += 0.22 * pace;
      if (/[.?!]["')]?$/.test(token)) t += 0.45 * pace;
    }
    if (words.length === first) continue;
    const last = segments[segments.length - 1];
    const ws = words.slice(first);
    if (last && last.speaker === turn.speaker) {
      last.end = ws[ws.length - 1]!.end;
      last.text += " " + turn.text.trim();
    } else {
      segments.push({ speaker: turn.speaker, start: ws[0]!.start, end: ws[ws.length - 1]!.end, text: turn.text.trim() });
    }
    prevSpeaker = turn.speaker;
  }
  return { language: opts.language ?? "en", segments, words, engine: "synthetic timings (test/helpers/synthetic-transcript.ts)" };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Parses "Name: text" lines (blank lines and "#" comments skipped), as in *.turns.txt. */
export function parseTurns(text: string): Turn[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const m = /^([^:]{1,40}):\s*(.*)$/.exec(l);
      return m ? { speaker: m[1]!.trim(), text: m[2]! } : { speaker: "SPEAKER_00", text: l };
    });
}

/** Relabels display names to diarization-style labels and records the names, like the ASR stage. */
export function withSpeakerLabels(turns: Turn[]): { turns: Turn[]; speakerNames: Record<string, string> } {
  const labels = new Map<string, string>();
  for (const t of turns) if (!labels.has(t.speaker)) labels.set(t.speaker, `SPEAKER_${String(labels.size).padStart(2, "0")}`);
  return {
    turns: turns.map((t) => ({ speaker: labels.get(t.speaker)!, text: t.text })),
    speakerNames: Object.fromEntries([...labels].map(([name, label]) => [label, name])),
  };
}

export function transcriptFromTurnsFile(path: string, opts: SynthOptions = {}): Transcript {
  const { turns, speakerNames } = withSpeakerLabels(parseTurns(readFileSync(path, "utf8")));
  return { ...transcriptFromTurns(turns, opts), speakerNames };
}

export const INTERVIEW_FIXTURE = new URL("../fixtures/interview.turns.txt", import.meta.url).pathname;
export const SHARED_MEDIA = `${SHARED_MEDIA_DIR}/`;
