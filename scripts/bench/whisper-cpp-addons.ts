#!/usr/bin/env bun
/**
 * The two whisper.cpp addons side by side (src/inference/whisper-cpp.ts): the prebuilt @fugood one (SSE,
 * no probabilities) against the one built from source by scripts/setup/whisper-cpp.sh (x86-64-v3, token
 * probabilities). Same ggml file, same audio (the whole file), same threads, greedy; each recognition in
 * its own process (asr-engines-child.ts, model load included), alternating addons, so wall and CPU time
 * compare. Prints WER against the shared reference, whether the words are the same, how far the word
 * times moved, and the built addon's word probabilities.
 *
 *   bun scripts/bench/whisper-cpp-addons.ts [--threads 2] [--runs 1] [--model whisper-base-ggml-q8_0]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { ensureDerived } from "../../src/models/derived.ts";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { wordErrorRate } from "./asr-scoring.ts";
import { numberFlag, table } from "./load.ts";

const threads = numberFlag("threads", 2);
const runs = numberFlag("runs", 1);
const modelFlag = process.argv.indexOf("--model");
const modelName = modelFlag > 0 ? process.argv[modelFlag + 1]! : "whisper-base-ggml-q8_0";
const work = mkdtempSync(join(tmpdir(), "clipyard-bench-addons-"));

interface Word {
  word: string;
  start: number;
  end: number;
  p?: number;
}
interface Run {
  words: Word[];
  wall: number;
  cpu: number;
}

async function recognise(addon: "built" | "prebuilt", model: string, wav: string): Promise<Run> {
  const t0 = performance.now();
  const proc = Bun.spawn(["bun", join(import.meta.dir, "asr-engines-child.ts"), model, wav, String(threads)], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, CLIPYARD_WHISPER_CPP_ADDON: addon },
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`${addon} failed: ${err.trim().split("\n").slice(-3).join(" | ")}`);
  const ru = proc.resourceUsage()!;
  return { words: (JSON.parse(out.trim()) as { words: Word[] }).words, wall: (performance.now() - t0) / 1000, cpu: Number(ru.cpuTime.user + ru.cpuTime.system) / 1e6 };
}

/** Word pairs the two runs share (same spelling, lowercase, no punctuation), by longest common subsequence. */
function matchedWords(a: Word[], b: Word[]): Array<[Word, Word]> {
  const key = (w: Word) => w.word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, "");
  const n = a.length;
  const m = b.length;
  const dp = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i]![j] = key(a[i]!) === key(b[j]!) ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const pairs: Array<[Word, Word]> = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (key(a[i]!) === key(b[j]!)) pairs.push([a[i++]!, b[j++]!]);
    else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

const model = await ensureDerived(modelName);
const recordings = ["jfk", "two_speakers_call"];
const rows: Record<string, string>[] = [];
try {
  for (const name of recordings) {
    const wav = join(work, `${name}.wav`);
    await decodeToSpeechWav(join(SHARED_MEDIA, `${name}.wav`), wav);
    const refPath = join(SHARED_MEDIA, `${name}.ref.txt`);
    const ref = existsSync(refPath) ? readFileSync(refPath, "utf8") : undefined;
    const best: Partial<Record<"built" | "prebuilt", Run>> = {};
    for (let r = 0; r < runs; r++) {
      for (const addon of ["prebuilt", "built"] as const) {
        const run = await recognise(addon, model, wav);
        if (!best[addon] || run.cpu < best[addon]!.cpu) best[addon] = run;
      }
    }
    const a = best.prebuilt!;
    const b = best.built!;
    const text = (w: Word[]) => w.map((x) => x.word).join(" ");
    const same = text(a.words) === text(b.words);
    const pairs = matchedWords(a.words, b.words);
    const shifts = pairs.flatMap(([x, y]) => [Math.abs(x.start - y.start), Math.abs(x.end - y.end)]);
    const timing = `${pairs.length}/${a.words.length} words matched; start/end moved mean ${(shifts.reduce((s, d) => s + d, 0) / shifts.length).toFixed(3)} s, max ${Math.max(...shifts).toFixed(2)} s`;
    const ps = b.words.map((w) => w.p).filter((p): p is number => typeof p === "number");
    for (const [label, run] of [["prebuilt @fugood (SSE)", a], ["built smart-whisper (x86-64-v3)", b]] as const) {
      rows.push({
        recording: name,
        addon: label,
        WER: ref ? `${(wordErrorRate(ref, text(run.words)).wer * 100).toFixed(1)} %` : "",
        words: String(run.words.length),
        "wall s": run.wall.toFixed(2),
        "CPU s": run.cpu.toFixed(2),
        "against prebuilt": run === b ? `${same ? "same words" : "words differ"}; ${timing}` : "",
        "word probabilities": run === b ? `${ps.length}/${run.words.length} words, min ${Math.min(...ps).toFixed(2)}, mean ${(ps.reduce((s, p) => s + p, 0) / ps.length).toFixed(2)}` : "none",
      });
    }
    if (!same) console.error(`${name}: prebuilt "${text(a.words)}"\n${name}: built    "${text(b.words)}"`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`whisper.cpp addons: ${modelName}, ${threads} threads, best of ${runs} by CPU, ${cpus().length} cores (${cpus()[0]?.model}), load average ${loadavg()[0]!.toFixed(1)} at end`);
console.log(table(rows));
