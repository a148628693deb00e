#!/usr/bin/env bun
/**
 * Highlights bench on real recogniser output: every real recording available (the shared media,
 * the bundled fixtures/sample episode, Debian's LibriVox test recordings when installed) is
 * transcribed once by the ASR stage (cached), then run through the highlight stage, and the
 * editorial output is checked by the rules a producer would apply:
 *
 *  - clip edges: the first word starts a sentence and the last ends one by the evidence rule
 *    (terminal punctuation plus a pause or speaker change, never on a function word);
 *  - hooks, pull quotes and takeaways: said verbatim, on sentence edges, every sentence finished
 *    (capitalised, terminal punctuation, not ending on a conjunction/preposition/article, a verb in
 *    statements); pull quotes also 6-30 words;
 *  - chapters per 10 minutes, and the titles (episode, chapters, clips) printed for reading;
 *  - time taken by the highlight stage (ASR time excluded; it is cached).
 *
 *   bun scripts/bench/highlights.ts [--cache DIR] [--embeddings [--threads 2]] [--transcript t.json …] [--examples N]
 *
 * The last row runs all recordings back to back as one episode (speaker labels kept apart), so
 * chapters and ranking see more than 30 s at a time.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { basename, join, resolve } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { tryLoadEmbedder, type Embedder } from "../../src/inference/embedder.ts";
import { checkClipEdges, checkCopy, type EdgeCheck } from "../../src/pipeline/highlights/editorial-check.ts";
import { NoClipsError } from "../../src/pipeline/highlights/select-clips.ts";
import { planHighlights } from "../../src/pipeline/highlights/plan.ts";
import { buildShowNotes, notesSection } from "../../src/pipeline/highlights/shownotes.ts";
import { DEFAULT_ASR_MODEL, transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import type { ClipPlan, Transcript } from "../../src/pipeline/types.ts";

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const useEmbeddings = args.includes("--embeddings");
const threads = Number(opt("--threads") ?? 1);
const cacheDir = resolve(opt("--cache") ?? "/tmp/clipyard-bench-asr");
const maxExamples = Number(opt("--examples") ?? 12);
const extra = args.flatMap((a, i) => (args[i - 1] === "--transcript" ? [a] : []));
const asrModel = process.env.CLIPYARD_ASR_MODEL ?? DEFAULT_ASR_MODEL;

const ROOT = resolve(import.meta.dir, "../..");
const SHARED_MEDIA = resolve(process.env.CLIPYARD_SHARED_MEDIA ?? join(ROOT, "../shared/media"));
const LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox";

function recordings(): string[] {
  const shared = ["jfk", "two_speakers_call", "meeting_excerpt", ...Array.from({ length: 9 }, (_, i) => `meeting_trn0${i + 1}`)].map((n) => join(SHARED_MEDIA, `${n}.wav`));
  const sample = existsSync(join(ROOT, "fixtures/sample")) ? readdirSync(join(ROOT, "fixtures/sample")).map((f) => join(ROOT, "fixtures/sample", f)) : [];
  const libri = existsSync(LIBRIVOX) ? readdirSync(LIBRIVOX).filter((f) => f.endsWith(".wav")).map((f) => join(LIBRIVOX, f)) : [];
  return [...shared, ...sample, ...libri].filter((p) => existsSync(p) && /\.(?:wav|m4a|mp3|mp4)$/.test(p));
}

/** The ASR stage's transcript of a recording, from the cache or transcribed now and cached. */
async function transcriptOf(path: string): Promise<Transcript> {
  mkdirSync(cacheDir, { recursive: true });
  const cached = join(cacheDir, `${basename(path).replace(/\.[^.]+$/, "")}.${asrModel}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, "utf8")) as Transcript;
  const t0 = performance.now();
  const t = await transcribeFile(path, { model: asrModel });
  process.stderr.write(`transcribed ${basename(path)} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  writeFileSync(cached, JSON.stringify(t));
  return t;
}

/** All transcripts as one episode: shifted in time, 2 s apart, speaker labels prefixed per recording. */
function backToBack(items: { name: string; t: Transcript }[]): Transcript {
  const out: Transcript = { language: "en", segments: [], words: [], speakerNames: {}, engine: items[0]?.t.engine };
  let offset = 0;
  for (const { name, t } of items) {
    if (!t.words.length) continue;
    const shift = offset - t.words[0]!.start;
    const label = (s: string) => `${name}/${s}`;
    for (const w of t.words) out.words.push({ ...w, start: w.start + shift, end: w.end + shift, speaker: label(w.speaker) });
    for (const s of t.segments) out.segments.push({ ...s, start: s.start + shift, end: s.end + shift, speaker: label(s.speaker) });
    for (const [k, v] of Object.entries(t.speakerNames ?? {})) out.speakerNames![label(k)] = v;
    offset = t.words[t.words.length - 1]!.end + shift + 2;
  }
  return out;
}


interface Tally {
  ok: number;
  n: number;
}
const tally = (): Tally => ({ ok: 0, n: 0 });
const pct = (t: Tally) => (t.n === 0 ? "-" : `${Math.round((100 * t.ok) / t.n)}% (${t.ok}/${t.n})`);

interface Result {
  name: string;
  minutes: number;
  clips: string;
  edges: Tally;
  hooks: Tally;
  quotes: Tally;
  takeaways: Tally;
  chapters: number;
  ms: number;
  titles: string[];
  failures: string[];
}

function count(t: Tally, c: EdgeCheck, what: string, text: string, failures: string[]) {
  t.n++;
  if (c.ok) t.ok++;
  else failures.push(`${what} (${c.problems.join(", ")}): "${text}"`);
}

const wordCount = (s: string) => s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

async function run(name: string, t: Transcript, embedder: Embedder | null, reason: string | undefined): Promise<Result> {
  const spoken = t.words;
  const minutes = spoken.length ? (spoken[spoken.length - 1]!.end - spoken[0]!.start) / 60 : 0;
  const r: Result = { name, minutes, clips: "0", edges: tally(), hooks: tally(), quotes: tally(), takeaways: tally(), chapters: 0, ms: 0, titles: [], failures: [] };
  const t0 = performance.now();
  let clips: ClipPlan[] = [];
  let notes = "";
  try {
    const plan = await planHighlights(t, { embedder, embedderUnavailableReason: reason, count: 5 });
    clips = plan.clips;
    notes = plan.showNotes;
    r.clips = String(clips.length);
  } catch (e) {
    if (!(e instanceof NoClipsError)) throw e;
    r.clips = `0 (${e.reason})`;
    notes = buildShowNotes(t, []);
  }
  r.ms = performance.now() - t0;
  for (const c of clips) {
    count(r.edges, checkClipEdges(t.words, c.start_time, c.end_time), `clip ${c.rank} edges`, c.transcript_text.slice(0, 60) + " … " + c.transcript_text.slice(-60), r.failures);
    count(r.hooks, checkCopy(t.words, c.hook, c.start_time), `hook ${c.rank}`, c.hook, r.failures);
    const q = checkCopy(t.words, c.pull_quote, c.start_time);
    const n = wordCount(c.pull_quote);
    const sized: EdgeCheck = n >= 6 && n <= 30 ? q : { ok: false, problems: [...q.problems, `${n} words`] };
    count(r.quotes, sized, `pull quote ${c.rank}`, c.pull_quote, r.failures);
    r.titles.push(`clip ${c.rank}: ${c.title}  ${c.hashtags.join(" ")}`);
  }
  for (const item of notesSection(notes, "Key takeaways")) {
    const text = item.replace(/^- /, "");
    count(r.takeaways, checkCopy(t.words, text), "takeaway", text, r.failures);
  }
  const chapters = notesSection(notes, "Chapters");
  r.chapters = chapters.length;
  r.titles.unshift(`episode: ${notes.split("\n")[0]!.replace(/^# /, "")}`, ...chapters.map((c) => `chapter ${c.replace(/^- /, "")}`));
  return r;
}

const cfg = loadConfig();
let embedder: Embedder | null = null;
let reason: string | undefined = "not requested (pass --embeddings)";
if (useEmbeddings) {
  const e = await tryLoadEmbedder(cfg.modelsDir, undefined, { threads });
  embedder = e.embedder;
  reason = e.reason;
  if (!embedder) process.stderr.write(`embeddings requested but unavailable: ${reason}\n`);
}

const items: { name: string; t: Transcript }[] = [];
for (const p of recordings()) items.push({ name: basename(p).replace(/\.[^.]+$/, "").replace(/^sense_and_sensibility_01_austen_64kb-/, "librivox-"), t: await transcriptOf(p) });
for (const p of extra) items.push({ name: basename(p), t: JSON.parse(readFileSync(p, "utf8")) as Transcript });

const results: Result[] = [];
for (const { name, t } of items) results.push(await run(name, t, embedder, reason));
results.push(await run("all back to back", backToBack(items), embedder, reason));

const sum = (pick: (r: Result) => Tally, rs: Result[]) => rs.reduce((a, r) => ({ ok: a.ok + pick(r).ok, n: a.n + pick(r).n }), tally());
const perRecording = results.slice(0, -1);
const rows = [
  ["recording", "min", "clips", "clip edges on sentences", "hooks complete", "pull quotes complete", "takeaways complete", "chapters", "per 10 min", "ms"],
  ...results.map((r) => [
    r.name,
    r.minutes.toFixed(1),
    r.clips,
    pct(r.edges),
    pct(r.hooks),
    pct(r.quotes),
    pct(r.takeaways),
    String(r.chapters),
    r.minutes > 0 ? ((10 * r.chapters) / r.minutes).toFixed(1) : "-",
    String(Math.round(r.ms)),
  ]),
  ["each recording, total", perRecording.reduce((a, r) => a + r.minutes, 0).toFixed(1), String(perRecording.reduce((a, r) => a + (parseInt(r.clips) || 0), 0)), pct(sum((r) => r.edges, perRecording)), pct(sum((r) => r.hooks, perRecording)), pct(sum((r) => r.quotes, perRecording)), pct(sum((r) => r.takeaways, perRecording)), "", "", String(Math.round(perRecording.reduce((a, r) => a + r.ms, 0)))],
];
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(line(rows[0]!));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const r of rows.slice(1)) console.log(line(r));

console.log("\nTitles:");
for (const r of results) if (r.titles.length) console.log(`  ${r.name}\n${r.titles.map((x) => `    ${x}`).join("\n")}`);
const failures = results.flatMap((r) => r.failures.map((f) => `${r.name}: ${f}`));
console.log(`\nFailures (${failures.length}${failures.length > maxExamples ? `, first ${maxExamples}` : ""}):`);
for (const f of failures.slice(0, maxExamples)) console.log(`  ${f}`);
embedder?.close?.();
console.log(
  `\nASR ${asrModel} (cached in ${cacheDir}); ${navigator.hardwareConcurrency} cores, load ${loadavg()[0]!.toFixed(1)}, bun ${Bun.version}, similarity ${embedder ? "embeddings" : "TF-IDF"}; 5 clips of 20-60 s.`,
);
