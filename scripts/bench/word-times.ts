#!/usr/bin/env bun
/**
 * In-process word times against CTranslate2's on the shared recordings (issue 33): the source checkout's
 * `clipyard process FILE --min-seconds 5 --max-seconds 20` (what scripts/bench/parity.ts runs, without
 * building the executable, which runs the same code) with CTranslate2 and with whisper.cpp in-process
 * (the built addon), its word times from the token-timestamp heuristic and from DTW
 * (CLIPYARD_WHISPER_CPP_WORD_TIMES). Per recording and recogniser: words, the words matched to
 * CTranslate2's (same spelling, in order) and the mean |start| and |end| difference over them, the
 * gaps of at least 0.1 s between spoken words, the words with terminal punctuation and the sentence ends
 * the evidence rule accepts (highlights/sentence-edges.ts; "fallback" counts those accepted on
 * punctuation alone, for a transcript without pauses), and the clips. A run that renders no clip writes
 * no transcript.json, so its words come from transcribeFile in this process (marked "*").
 * Usage: bun scripts/bench/word-times.ts [--only jfk,meeting_trn03] [--keep DIR] (--keep: outputs under
 * DIR, reused by a later run with the same DIR, so CTranslate2 runs once)
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { PROCESS_ARGS, ROOT } from "../../test/helpers/parity.ts";
import { hasTerminalPunctuation, isSpokenWord, MIN_SENTENCE_PAUSE, sentenceEndEvidence } from "../../src/pipeline/highlights/sentence-edges.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { setLogLevel } from "../../src/log.ts";
import { table } from "./load.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const only = arg("--only")?.split(",");
const keep = arg("--keep");
const work = keep ? (mkdirSync(keep, { recursive: true }), keep) : mkdtempSync(join(tmpdir(), "clipyard-bench-word-times-"));
if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("error");

const MODES: Array<{ name: string; env: Record<string, string> }> = [
  { name: "CTranslate2", env: { CLIPYARD_ASR_ENGINE: "ctranslate2" } },
  { name: "whisper.cpp heuristic", env: { CLIPYARD_ASR_ENGINE: "whisper-cpp", CLIPYARD_WHISPER_CPP_ADDON: "built", CLIPYARD_WHISPER_CPP_WORD_TIMES: "heuristic" } },
  { name: "whisper.cpp DTW", env: { CLIPYARD_ASR_ENGINE: "whisper-cpp", CLIPYARD_WHISPER_CPP_ADDON: "built", CLIPYARD_WHISPER_CPP_WORD_TIMES: "dtw" } },
];

const spelling = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, "");

/** Index pairs of the longest common subsequence of the two word lists by spelling. */
function matchWords(a: Word[], b: Word[]): Array<[number, number]> {
  const x = a.map((w) => spelling(w.word));
  const y = b.map((w) => spelling(w.word));
  const n = x.length;
  const m = y.length;
  const dp = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i]![j] = x[i] && x[i] === y[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (x[i] && x[i] === y[j]) pairs.push([i++, j++]);
    else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

async function run(file: string, out: string, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  if (existsSync(join(out, "run.json"))) return JSON.parse(readFileSync(join(out, "run.json"), "utf8"));
  const proc = Bun.spawn(["bun", "run", join(ROOT, "src/main.ts"), "process", file, "--out", out, ...PROCESS_ARGS], {
    cwd: ROOT,
    env: { ...process.env, CLIPYARD_LOG_LEVEL: "error", ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  const result = { code: await proc.exited, stderr: stderr.slice(-2000) };
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "run.json"), JSON.stringify(result));
  return result;
}

async function wordsOf(file: string, out: string, env: Record<string, string>): Promise<{ words: Word[]; fromProcess: boolean }> {
  const transcript = join(out, "transcript.json");
  if (existsSync(transcript)) return { words: JSON.parse(readFileSync(transcript, "utf8")).words, fromProcess: true };
  const cached = join(out, "words.json");
  if (existsSync(cached)) return { words: JSON.parse(readFileSync(cached, "utf8")), fromProcess: false };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const t = await transcribeFile(file, { threads: cpus().length });
    writeFileSync(cached, JSON.stringify(t.words));
    return { words: t.words, fromProcess: false };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const recordings = readdirSync(SHARED_MEDIA)
  .filter((f) => /\.(wav|mp4)$/.test(f))
  .filter((f) => !only || only.includes(f.replace(/\.\w+$/, "")))
  .sort();
const load0 = loadavg()[0]!;
const rows: Record<string, string | number>[] = [];
try {
  for (const f of recordings) {
    const file = join(SHARED_MEDIA, f);
    const name = f.replace(/\.\w+$/, "");
    let reference: Word[] | undefined;
    for (const mode of MODES) {
      const out = join(work, `${name}-${mode.name.replace(/\W+/g, "-")}`);
      const r = await run(file, out, mode.env);
      const spans = (c: { start_time: number; end_time: number }) => `${c.start_time.toFixed(1)}-${c.end_time.toFixed(1)}`;
      const rendered = r.code === 0 ? (JSON.parse(readFileSync(join(out, "job.json"), "utf8")).clips as Array<{ start_time: number; end_time: number }>) : [];
      const clips = r.code === 0 ? `${rendered.length} (${[...rendered].sort((a, b) => a.start_time - b.start_time).map(spans).join(", ")})` : `failed (${r.stderr.match(/failed \((\w+)\)/)?.[1] ?? `exit ${r.code}`})`;
      const { words, fromProcess } = await wordsOf(file, out, mode.env);
      reference ??= words;
      const spoken = words.filter(isSpokenWord);
      let pauses = 0;
      for (let k = 1; k < spoken.length; k++) if (spoken[k]!.start - spoken[k - 1]!.end >= MIN_SENTENCE_PAUSE) pauses++;
      let terminal = 0;
      let evidenced = 0;
      let fallback = 0;
      words.forEach((w, i) => {
        if (!isSpokenWord(w)) return;
        if (hasTerminalPunctuation(w.word)) terminal++;
        const e = sentenceEndEvidence(words, i);
        if (e) evidenced++;
        if (e === "punctuation") fallback++;
      });
      const pairs = mode.name === MODES[0]!.name ? [] : matchWords(reference, words);
      const mean = (d: number[]) => (d.length ? (d.reduce((s, v) => s + v, 0) / d.length).toFixed(3) : "-");
      rows.push({
        recording: name,
        recogniser: mode.name,
        words: `${words.length}${fromProcess ? "" : "*"}`,
        matched: mode.name === MODES[0]!.name ? "-" : pairs.length,
        "mean |Δstart| s": mean(pairs.map(([i, j]) => Math.abs(reference![i]!.start - words[j]!.start))),
        "mean |Δend| s": mean(pairs.map(([i, j]) => Math.abs(reference![i]!.end - words[j]!.end))),
        "pauses ≥ 0.1 s": pauses,
        "terminal punct.": terminal,
        "sentence ends (fallback)": `${evidenced} (${fallback})`,
        clips,
      });
    }
    console.error(`${name}: done (load ${loadavg()[0]!.toFixed(1)})`);
  }
  console.log(`word times and clips, source checkout, ${cpus().length} cores (${cpus()[0]?.model}), load average ${load0.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end`);
  console.log(table(rows));
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}
