#!/usr/bin/env bun
/**
 * Turns against sentences without running the recogniser again: each shared recording is transcribed
 * once with its diarizer's own word labels (no realignment) and cached in --cache DIR (words and the
 * overlap-aware speaker activity, JSON keyed by file name); then the word-label steps after the
 * diarizer run from the cache, and per file the speaker changes that fall on a sentence end, the
 * sentences split between two speakers and (on the phone call, which has a text per turn) the words
 * given to the wrong speaker are printed, the tuning and held-out splits apart (asr-diarization.ts).
 *
 *   nice bun scripts/bench/turns-sweep.ts [--cache /tmp/turns-cache] [--repeat 20]
 *
 * Variants: "raw" (the diarizer's labels as cached: since 2026-11-28 sentences said over someone are
 * already given to the voice framing them, so cache with a checkout from before that to compare it),
 * "realigned" (turns-realign.ts, what the pipeline does), "overlap+realigned" (overlapWordsToSentenceSpeaker,
 * measured and not in the pipeline, then realignment) and "framed+realigned"
 * (overlappedSentencesToFramingVoice on the cached words again, then realignment).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { overlappedSentencesToFramingVoice, overlapWordsToSentenceSpeaker } from "../../src/pipeline/transcribe/overlap-words.ts";
import { realignTurns, type EvidenceTurn } from "../../src/pipeline/transcribe/turns-realign.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { parseTurnText, turnSentenceStats, wordSpeakerErrors } from "./asr-scoring.ts";
import { HELD_OUT_SPLIT, TUNING_SPLIT } from "./asr-diarization.ts";

const SHARED = process.env.CLIPYARD_SHARED_MEDIA ?? join(import.meta.dir, "../../../shared/media");
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const cacheDir = arg("cache") ?? join(tmpdir(), "clipyard-turns-cache");
mkdirSync(cacheDir, { recursive: true });
const REPEAT = Number(arg("repeat") ?? 20);
const MODEL = arg("model") ?? "whisper-tiny.en";

const FILES: Array<{ name: string; path: string; turnText?: Array<{ speaker: string; text: string }> }> = [
  "two_speakers_call",
  "meeting_excerpt",
  ...[3, 4, 5, 6, 7, 8, 9].map((i) => `meeting_trn0${i}`),
].map((name) => ({ name, path: join(SHARED, `${name}.wav`) }));
const callTurns = parseTurnText(readFileSync(join(SHARED, "two_speakers_call.turns.txt"), "utf8"));
FILES[0]!.turnText = callTurns;
if (REPEAT > 0) {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-turns-"));
  const list = join(dir, "list.txt");
  writeFileSync(list, Array.from({ length: REPEAT }, () => `file '${join(SHARED, "two_speakers_call.wav")}'`).join("\n"));
  const long = join(dir, `two_speakers_call_x${REPEAT}.wav`);
  Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", long]);
  FILES.push({ name: `two_speakers_call x${REPEAT}`, path: long, turnText: Array(REPEAT).fill(callTurns).flat() });
}

interface Cached {
  words: Word[];
  activity: EvidenceTurn[];
}

async function raw(name: string, path: string): Promise<Cached> {
  const file = join(cacheDir, `${name.replace(/\W+/g, "_")}.${MODEL}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  const t = await transcribeFile(path, { model: MODEL, alignTurns: false });
  const c: Cached = { words: t.words, activity: t.speakerActivity ?? t.speakerTurns ?? [] };
  writeFileSync(file, JSON.stringify(c));
  return c;
}

const variants: Record<string, (c: Cached) => Word[]> = {
  raw: (c) => c.words,
  realigned: (c) => realignTurns(c.words),
  "overlap+realigned": (c) => realignTurns(overlapWordsToSentenceSpeaker(c.words, c.activity)),
  "framed+realigned": (c) => realignTurns(overlappedSentencesToFramingVoice(c.words, c.activity)),
};

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "-");
const rows = [["file", "variant", "turn ends on sentence end", "sentences split", "words to wrong speaker"]];
const pooled = new Map<string, { changes: number; at: number; sentences: number; split: number }>();
for (const f of FILES) {
  const c = await raw(f.name, f.path);
  for (const [variant, run] of Object.entries(variants)) {
    const words = run(c);
    const s = turnSentenceStats(words);
    const e = f.turnText ? wordSpeakerErrors(f.turnText, words) : undefined;
    rows.push([f.name, variant, `${pct(s.changesAtSentenceEnd, s.changes)} of ${s.changes}`, `${pct(s.splitSentences, s.sentences)} of ${s.sentences}`, e ? pct(e.wrong, e.aligned) : "-"]);
    for (const [group, names] of [["tuning split", TUNING_SPLIT], ["held-out split", HELD_OUT_SPLIT]] as const) {
      if (!names.includes(f.name)) continue;
      const key = `${group}\t${variant}`;
      const p = pooled.get(key) ?? { changes: 0, at: 0, sentences: 0, split: 0 };
      pooled.set(key, { changes: p.changes + s.changes, at: p.at + s.changesAtSentenceEnd, sentences: p.sentences + s.sentences, split: p.split + s.splitSentences });
    }
  }
}
for (const [key, p] of pooled) {
  const [group, variant] = key.split("\t");
  rows.push([`pooled, ${group}`, variant!, `${pct(p.at, p.changes)} of ${p.changes}`, `${pct(p.split, p.sentences)} of ${p.sentences}`, ""]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(widths[i]!)).join(" | ")} |`;
console.log([line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n"));
