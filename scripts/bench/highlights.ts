#!/usr/bin/env bun
/**
 * Highlights bench: clip boundaries, overlap, duration spread and time taken on transcripts of the
 * real recordings' human references (/work/shared/media, synthetic word timings), the LibriVox
 * references from Debian's pocketsphinx-testdata (unpunctuated), a written interview, and a long
 * episode assembled from all of them. Later: re-run on real whisper transcripts (--transcript).
 *
 *   bun scripts/bench/highlights.ts [--embeddings [--threads 2]] [--minutes 60] [--transcript file.json ...]
 *
 * The "whisper-like" rows damage the punctuation (dropped full stops, lower-cased sentence starts,
 * punctuation as separate tokens) and score clips against the clean reference's sentences.
 *
 * Boundary check is independent of the sentence splitter: a clip starts well when its first word is
 * the first of the transcript, follows a word ending in . ? ! or follows a speaker change; it ends
 * well when its last word ends in . ? ! or is followed by a speaker change or the end. In
 * unpunctuated input a boundary at a pause ≥ 0.3 s is counted separately as "pause".
 */
import { existsSync, readFileSync } from "node:fs";
import { loadConfig } from "../../src/config.ts";
import { tryLoadEmbedder, type Embedder } from "../../src/models/embedder.ts";
import { NoClipsError } from "../../src/pipeline/highlights.ts";
import { planHighlights } from "../../src/pipeline/highlights-plan.ts";
import { overlapFraction } from "../../src/pipeline/rank.ts";
import { isAnnotation, splitSentences } from "../../src/pipeline/sentences.ts";
import type { ClipPlan, Transcript, Word } from "../../src/pipeline/types.ts";
import { INTERVIEW_FIXTURE, SHARED_MEDIA, parseTurns, transcriptFromTurns, withSpeakerLabels, type Turn } from "../../test/helpers/synthetic-transcript.ts";

const args = process.argv.slice(2);
const useEmbeddings = args.includes("--embeddings");
const minutes = Number(args[args.indexOf("--minutes") + 1]) || 60;
const threads = args.includes("--threads") ? Number(args[args.indexOf("--threads") + 1]) : 1;
const extra = args.flatMap((a, i) => (args[i - 1] === "--transcript" ? [a] : []));

const LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox/transcription";

function librivoxTurns(): Turn[] {
  if (!existsSync(LIBRIVOX)) return [];
  return readFileSync(LIBRIVOX, "utf8")
    .split("\n")
    .map((l) => l.replace(/<\/?s>/g, "").replace(/\(.*\)\s*$/, "").trim())
    .filter(Boolean)
    .map((text) => ({ speaker: "Reader", text }));
}

function turnsOf(path: string): Turn[] {
  return parseTurns(readFileSync(path, "utf8"));
}

interface Input {
  name: string;
  transcript: Transcript;
  source: string;
  /** Word start/end times of the reference's sentence boundaries, when the input was made noisy. */
  ref?: { starts: Set<number>; ends: Set<number> };
}

/** Deterministic PRNG (mulberry32) so the noisy variants are the same on every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Whisper-like damage to a clean transcript: 15 % of sentence-final punctuation dropped, the next
 * word sometimes lower-cased, 10 % of punctuation emitted as its own token, leading spaces on words.
 * The reference boundaries are kept as times, so clips are scored against the clean sentences.
 */
function whisperLike(t: Transcript, seed: number): { transcript: Transcript; ref: { starts: Set<number>; ends: Set<number> } } {
  const r = rng(seed);
  const ws = t.words;
  const starts = new Set<number>();
  const ends = new Set<number>();
  ws.forEach((w, i) => {
    const prev = ws[i - 1];
    if (!prev || prev.speaker !== w.speaker || /[.?!]$/.test(prev.word)) starts.add(w.start);
    const next = ws[i + 1];
    if (!next || next.speaker !== w.speaker || /[.?!]$/.test(w.word)) ends.add(w.end);
  });
  const out: Word[] = [];
  let lowerNext = false;
  for (const w of ws) {
    let word = w.word;
    if (lowerNext) word = word.charAt(0).toLowerCase() + word.slice(1);
    lowerNext = false;
    const m = /^(.*?)([.?!,])$/.exec(word);
    if (m && /[.?!]/.test(m[2]!) && r() < 0.15) {
      word = m[1]!;
      lowerNext = r() < 0.5;
      out.push({ ...w, word: " " + word });
    } else if (m && r() < 0.1) {
      out.push({ ...w, word: " " + m[1]! });
      out.push({ ...w, word: m[2]!, start: w.end, end: w.end });
    } else out.push({ ...w, word: " " + word });
  }
  return { transcript: { ...t, words: out, engine: "reference with whisper-like punctuation damage" }, ref: { starts, ends } };
}

function build(turns: Turn[], engine: string): Transcript {
  const { turns: labelled, speakerNames } = withSpeakerLabels(turns);
  return { ...transcriptFromTurns(labelled), speakerNames, engine };
}

function inputs(): Input[] {
  const list: Input[] = [];
  const jfk = [{ speaker: "JFK", text: readFileSync(SHARED_MEDIA + "jfk.ref.txt", "utf8").trim() }];
  const call = turnsOf(SHARED_MEDIA + "two_speakers_call.turns.txt");
  const interview = turnsOf(INTERVIEW_FIXTURE);
  const libri = librivoxTurns();
  list.push({ name: "jfk (ref)", transcript: build(jfk, "ref"), source: "jfk.ref.txt, 1 speaker" });
  list.push({ name: "two_speakers_call (ref)", transcript: build(call, "ref"), source: "two_speakers_call.turns.txt" });
  if (libri.length) list.push({ name: "librivox (ref, no punct.)", transcript: build(libri, "ref"), source: "pocketsphinx-testdata transcription" });
  list.push({ name: "interview (written)", transcript: build(interview, "fixture"), source: "test/fixtures/interview.turns.txt" });
  // Long episode: the pieces above in rotation until the target length, separated by a short gap.
  const blocks = [interview, call, libri, jfk, interview.slice(20), call.slice(3)].filter((b) => b.length);
  const long: Turn[] = [];
  let approxSeconds = 0;
  for (let i = 0; approxSeconds < minutes * 60; i++) {
    const b = blocks[i % blocks.length]!;
    long.push(...b);
    approxSeconds += b.reduce((s, t) => s + t.text.split(/\s+/).length, 0) / 2.0;
  }
  const longT = build(long, "assembled");
  list.push({ name: `assembled episode (~${minutes} min)`, transcript: longT, source: "all of the above, repeated" });
  const noisyInterview = whisperLike(build(interview, "fixture"), 7);
  list.push({ name: "interview, whisper-like", transcript: noisyInterview.transcript, ref: noisyInterview.ref, source: "damaged punctuation" });
  const noisyLong = whisperLike(longT, 11);
  list.push({ name: `assembled, whisper-like`, transcript: noisyLong.transcript, ref: noisyLong.ref, source: "damaged punctuation" });
  for (const p of extra) list.push({ name: p.split("/").pop()!, transcript: loadTranscript(p), source: "given transcript" });
  return list;
}

/** A Transcript JSON, or a bare Word[] (the ASR stage's word dump): segments are rebuilt per speaker run. */
function loadTranscript(path: string): Transcript {
  const data = JSON.parse(readFileSync(path, "utf8")) as Transcript | Word[];
  if (!Array.isArray(data)) return data;
  const segments: Transcript["segments"] = [];
  for (const w of data) {
    const last = segments[segments.length - 1];
    if (last && last.speaker === w.speaker) {
      last.end = w.end;
      last.text += " " + w.word.trim();
    } else segments.push({ speaker: w.speaker, start: w.start, end: w.end, text: w.word.trim() });
  }
  return { language: "en", segments, words: data };
}

type Edge = "sentence" | "pause" | "bad";

function spoken(words: Word[]): Word[] {
  return words.filter((w) => !isAnnotation(w.word));
}

function startEdge(ws: Word[], i: number): Edge {
  if (i === 0) return "sentence";
  const prev = ws[i - 1]!;
  if (prev.speaker !== ws[i]!.speaker || /[.?!…]["')\]]?$/.test(prev.word.trim())) return "sentence";
  return ws[i]!.start - prev.end >= 0.3 ? "pause" : "bad";
}

function endEdge(ws: Word[], i: number): Edge {
  const next = ws[i + 1];
  if (!next || next.speaker !== ws[i]!.speaker || /[.?!…]["')\]]?$/.test(ws[i]!.word.trim())) return "sentence";
  // A trailing punctuation token counts with its word.
  if (/^[.?!…]+$/.test(next.word.trim())) return "sentence";
  return next.start - ws[i]!.end >= 0.3 ? "pause" : "bad";
}

interface Row {
  name: string;
  minutes: string;
  sentences: string;
  clips: string;
  startOk: string;
  endOk: string;
  onWords: string;
  maxOverlap: string;
  dur: string;
  scores: string;
  cats: string;
  similarity: string;
  ms: string;
}

function pct(n: number, d: number): string {
  return d === 0 ? "-" : `${Math.round((100 * n) / d)}%`;
}

async function run(input: Input, embedder: Embedder | null, reason: string | undefined): Promise<Row> {
  const t = input.transcript;
  const ws = spoken(t.words);
  const mins = ((ws[ws.length - 1]?.end ?? 0) - (ws[0]?.start ?? 0)) / 60;
  const base = { name: input.name, minutes: mins.toFixed(1), sentences: String(splitSentences(t.words).length) };
  const t0 = performance.now();
  let clips: ClipPlan[];
  let similarity = "";
  let timings = "";
  try {
    const plan = await planHighlights(t, { embedder, embedderUnavailableReason: reason, count: 5 });
    clips = plan.clips;
    similarity = plan.similarity.replace("embeddings:", "");
    timings = `${Math.round(performance.now() - t0)}${embedder ? ` (emb ${Math.round(plan.timings.embedMs)})` : ""}`;
  } catch (e) {
    if (!(e instanceof NoClipsError)) throw e;
    return { ...base, clips: `0 (${e.reason})`, startOk: "-", endOk: "-", onWords: "-", maxOverlap: "-", dur: "-", scores: "-", cats: "-", similarity: "-", ms: String(Math.round(performance.now() - t0)) };
  }
  let starts = 0;
  let startPause = 0;
  let ends = 0;
  let endPause = 0;
  let onWords = 0;
  for (const c of clips) {
    const si = ws.findIndex((w) => w.start === c.start_time);
    const ei = ws.findIndex((w) => w.end === c.end_time);
    if (si >= 0 && ei >= 0) onWords++;
    let se: Edge = si >= 0 ? startEdge(ws, si) : "bad";
    let ee: Edge = ei >= 0 ? endEdge(ws, ei) : "bad";
    if (input.ref) {
      // Scored against the clean reference's sentences, not the damaged punctuation.
      se = input.ref.starts.has(c.start_time) ? "sentence" : "bad";
      ee = input.ref.ends.has(c.end_time) ? "sentence" : "bad";
    }
    if (se === "sentence") starts++;
    if (se === "pause") startPause++;
    if (ee === "sentence") ends++;
    if (ee === "pause") endPause++;
  }
  let maxOverlap = 0;
  for (let i = 0; i < clips.length; i++)
    for (let j = i + 1; j < clips.length; j++)
      maxOverlap = Math.max(maxOverlap, overlapFraction({ start: clips[i]!.start_time, end: clips[i]!.end_time }, { start: clips[j]!.start_time, end: clips[j]!.end_time }));
  const durs = clips.map((c) => c.end_time - c.start_time).sort((a, b) => a - b);
  const withPause = (n: number, p: number) => `${pct(n, clips.length)}${p ? ` (+${p} pause)` : ""}`;
  return {
    ...base,
    clips: String(clips.length),
    startOk: withPause(starts, startPause),
    endOk: withPause(ends, endPause),
    onWords: pct(onWords, clips.length),
    maxOverlap: `${Math.round(maxOverlap * 100)}%`,
    dur: `${durs[0]!.toFixed(0)}/${durs[Math.floor(durs.length / 2)]!.toFixed(0)}/${durs[durs.length - 1]!.toFixed(0)}`,
    scores: clips.map((c) => c.score).join(","),
    cats: [...new Set(clips.map((c) => c.category))].join(","),
    similarity,
    ms: timings,
  };
}

const cfg = loadConfig();
let embedder: Embedder | null = null;
let reason: string | undefined = "not requested (pass --embeddings)";
if (useEmbeddings) {
  const r = await tryLoadEmbedder(cfg.modelsDir, undefined, { threads });
  embedder = r.embedder;
  reason = r.reason;
  if (!embedder) process.stderr.write(`embeddings requested but unavailable: ${reason}\n`);
}

const rows: Row[] = [];
for (const input of inputs()) rows.push(await run(input, embedder, reason));

const head: [keyof Row, string][] = [
  ["name", "transcript"],
  ["minutes", "min"],
  ["sentences", "sent."],
  ["clips", "clips"],
  ["startOk", "start on sentence"],
  ["endOk", "end on sentence"],
  ["onWords", "on word edges"],
  ["maxOverlap", "max overlap"],
  ["dur", "dur s min/med/max"],
  ["scores", "scores"],
  ["cats", "categories"],
  ["similarity", "similarity"],
  ["ms", "ms total"],
];
const widths = head.map(([k, h]) => Math.max(h.length, ...rows.map((r) => r[k].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(line(head.map(([, h]) => h)));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const r of rows) console.log(line(head.map(([k]) => r[k])));
embedder?.close?.();
const { loadavg } = await import("node:os");
console.log(`\nmachine: ${navigator.hardwareConcurrency} cores (load ${loadavg()[0]!.toFixed(1)}), bun ${Bun.version}, embedder threads ${embedder ? threads : 0}; ref/fixture rows use synthetic word timings (test/helpers/synthetic-transcript.ts), --transcript rows their own; clip window 20-60 s, 5 clips.`);
