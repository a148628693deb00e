/**
 * Scorers for the speech benchmark: word error rate, diarization error rate, and how speaker turns sit
 * on sentences. Pure functions.
 * WER: after lower-casing and stripping punctuation. DER: (missed + false alarm + confusion) / reference
 * speech over the scored region, no collar, with the speaker mapping that maximises overlap.
 */
import { endsSentence, splitSentences } from "../../src/pipeline/highlights/sentences.ts";

export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[-–—/]/g, " ")
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ""))
    .filter(Boolean);
}

const NUMBERS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60 };

/**
 * Whisper writes some numbers as digits ("60,000", "10") and US spellings where a reference may have
 * words and British spellings; like Whisper's own English normaliser, both sides are brought to one
 * form so that only misheard words count. Apply to reference and hypothesis alike.
 */
export function sameSpelling(text: string): string {
  return text
    .toLowerCase()
    .replace(/(\d)\s*,(\d{3})\b/g, "$1$2")
    .replace(/\b([a-z]+) thousand\b/g, (m, n: string) => (n in NUMBERS ? String(NUMBERS[n]! * 1000) : m))
    .replace(/\b[a-z]+\b/g, (w) => (w in NUMBERS ? String(NUMBERS[w]) : w))
    .replace(/\bneighbour/g, "neighbor");
}

export interface WerResult {
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  refWords: number;
}

/** Levenshtein alignment over normalised words. */
export function wordErrorRate(reference: string, hypothesis: string): WerResult {
  const r = normalizeWords(reference);
  const h = normalizeWords(hypothesis);
  const n = r.length;
  const m = h.length;
  // cost and operation counts per cell: [cost, sub, del, ins]
  let prev = Array.from({ length: m + 1 }, (_, j) => [j, 0, 0, j]);
  for (let i = 1; i <= n; i++) {
    const cur: number[][] = [[i, 0, i, 0]];
    for (let j = 1; j <= m; j++) {
      const same = r[i - 1] === h[j - 1];
      const diag = prev[j - 1]!;
      const up = prev[j]!;
      const left = cur[j - 1]!;
      const options = [
        [diag[0]! + (same ? 0 : 1), diag[1]! + (same ? 0 : 1), diag[2]!, diag[3]!],
        [up[0]! + 1, up[1]!, up[2]! + 1, up[3]!],
        [left[0]! + 1, left[1]!, left[2]!, left[3]! + 1],
      ];
      cur.push(options.reduce((a, b) => (b[0]! < a[0]! ? b : a)));
    }
    prev = cur;
  }
  const [cost, s, d, ins] = prev[m]!;
  return { wer: n ? cost! / n : m ? 1 : 0, substitutions: s!, deletions: d!, insertions: ins!, refWords: n };
}

export interface Turn {
  speaker: string;
  start: number;
  end: number;
}

/** RTTM "SPEAKER file chan start dur <NA> <NA> name ..." lines to turns. */
export function parseRttm(text: string): Turn[] {
  return text
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[0] === "SPEAKER")
    .map((f) => ({ speaker: f[7]!, start: Number(f[3]), end: Number(f[3]) + Number(f[4]) }));
}

/** UEM "file chan start end" lines to scored regions. */
export function parseUem(text: string): Array<[number, number]> {
  return text
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 4)
    .map((f) => [Number(f[2]), Number(f[3])] as [number, number]);
}

/** Speaker turns from labelled words: consecutive words of a speaker joined across pauses up to `bridge` seconds. */
export function turnsFromWords(words: Array<{ speaker: string; start: number; end: number }>, bridge = 0.5): Turn[] {
  const out: Turn[] = [];
  for (const w of words) {
    const last = out[out.length - 1];
    if (last && last.speaker === w.speaker && w.start - last.end <= bridge) last.end = Math.max(last.end, w.end);
    else out.push({ speaker: w.speaker, start: w.start, end: w.end });
  }
  return out;
}

/**
 * Best one-to-one mapping of hypothesis to reference speakers by total overlap (-1: unmapped), as
 * md-eval does it: the Hungarian method (Kuhn-Munkres with potentials, O(n³)) on the square matrix of
 * negated overlaps padded with zeros. An exhaustive search took minutes at 20 speakers a side.
 */
export function bestMapping(overlap: number[][]): number[] {
  const nh = overlap.length;
  const nr = overlap[0]?.length ?? 0;
  const n = Math.max(nh, nr);
  const cost = (i: number, j: number) => (i < nh && j < nr ? -overlap[i]![j]! : 0);
  // 1-based rows and columns; p[j]: the row matched to column j; u, v: the potentials.
  const u = new Array<number>(n + 1).fill(0);
  const v = new Array<number>(n + 1).fill(0);
  const p = new Array<number>(n + 1).fill(0);
  const way = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Array<number>(n + 1).fill(Infinity);
    const used = new Array<boolean>(n + 1).fill(false);
    do {
      used[j0] = true;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[p[j]!]! += delta;
          v[j]! -= delta;
        } else minv[j]! -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0);
  }
  const map = new Array<number>(nh).fill(-1);
  for (let j = 1; j <= n; j++) {
    const i = p[j]! - 1;
    // A pairing with no overlap maps nothing (as the exhaustive search left such speakers unmapped).
    if (i < nh && j - 1 < nr && overlap[i]![j - 1]! > 0) map[i] = j - 1;
  }
  return map;
}

export interface DerResult {
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  refSpeech: number;
  refSpeakers: number;
  hypSpeakers: number;
}

/** Frame-based DER at `step` seconds resolution. Overlapping reference speech counts once per speaker. */
export function diarizationErrorRate(reference: Turn[], hypothesis: Turn[], scored?: Array<[number, number]>, step = 0.01): DerResult {
  const end = Math.max(0, ...reference.map((t) => t.end), ...hypothesis.map((t) => t.end));
  const regions = scored ?? [[0, end]];
  const refNames = [...new Set(reference.map((t) => t.speaker))];
  const hypNames = [...new Set(hypothesis.map((t) => t.speaker))];
  const frames: Array<{ r: number[]; h: number[] }> = [];
  for (const [a, b] of regions) {
    for (let t = a + step / 2; t < b; t += step) {
      const r = refNames.map((_, i) => i).filter((i) => reference.some((x) => x.speaker === refNames[i] && x.start <= t && t < x.end));
      const h = hypNames.map((_, i) => i).filter((i) => hypothesis.some((x) => x.speaker === hypNames[i] && x.start <= t && t < x.end));
      frames.push({ r, h });
    }
  }
  const overlap = hypNames.map(() => new Array<number>(refNames.length).fill(0));
  for (const f of frames) for (const h of f.h) for (const r of f.r) overlap[h]![r]! += step;
  const map = hypNames.length && refNames.length ? bestMapping(overlap) : [];
  let missed = 0;
  let fa = 0;
  let conf = 0;
  let refSpeech = 0;
  for (const f of frames) {
    const nr = f.r.length;
    const nh = f.h.length;
    const correct = f.h.filter((h) => map[h] !== undefined && map[h]! >= 0 && f.r.includes(map[h]!)).length;
    refSpeech += nr * step;
    missed += Math.max(0, nr - nh) * step;
    fa += Math.max(0, nh - nr) * step;
    conf += (Math.min(nr, nh) - correct) * step;
  }
  return { der: refSpeech ? (missed + fa + conf) / refSpeech : 0, missed, falseAlarm: fa, confusion: conf, refSpeech, refSpeakers: refNames.length, hypSpeakers: hypNames.length };
}

export interface TurnSentenceStats {
  /** Speaker changes between consecutive words, and how many of them fall on a sentence end. */
  changes: number;
  changesAtSentenceEnd: number;
  /** Sentences by punctuation alone (speakers ignored), and how many have words of two speakers. */
  sentences: number;
  splitSentences: number;
}

/** How speaker turns sit on sentences: turn ends on sentence ends (want all) and sentences cut by a speaker change (want none). */
export function turnSentenceStats(words: Array<{ word: string; start: number; end: number; speaker: string }>): TurnSentenceStats {
  let changes = 0;
  let changesAtSentenceEnd = 0;
  for (let i = 1; i < words.length; i++) {
    if (words[i]!.speaker === words[i - 1]!.speaker) continue;
    changes++;
    if (endsSentence(words[i - 1]!.word, words[i]!.word)) changesAtSentenceEnd++;
  }
  const sentences = splitSentences(words.map((w) => ({ ...w, speaker: "" })));
  const split = sentences.filter((s) => new Set(words.slice(s.firstWord, s.lastWord + 1).map((w) => w.speaker)).size > 1).length;
  return { changes, changesAtSentenceEnd, sentences: sentences.length, splitSentences: split };
}

/** "Name: text" lines (a reference transcript per turn) to turns. */
export function parseTurnText(text: string): Array<{ speaker: string; text: string }> {
  return text
    .split("\n")
    .map((l) => /^([^:]+):\s*(.*)$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ speaker: m[1]!.trim(), text: m[2]! }));
}

/**
 * Words given to the wrong speaker: hypothesis words aligned to the reference words (Levenshtein, matches
 * and substitutions), with the one-to-one speaker mapping that maximises agreement. Scores the other
 * direction of turn realignment: a change moved away from where the speaker really changed shows here.
 */
export function wordSpeakerErrors(reference: Array<{ speaker: string; text: string }>, hypothesis: Array<{ word: string; speaker: string }>): { aligned: number; wrong: number } {
  const ref = reference.flatMap((t) => normalizeWords(t.text).map((w) => ({ w, s: t.speaker })));
  const hyp = hypothesis.flatMap((h) => normalizeWords(h.word).map((w) => ({ w, s: h.speaker })));
  const n = ref.length;
  const m = hyp.length;
  const cost = Array.from({ length: n + 1 }, (_, i) => Int32Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      cost[i]![j] = Math.min(cost[i - 1]![j - 1]! + (ref[i - 1]!.w === hyp[j - 1]!.w ? 0 : 1), cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1);
    }
  }
  const pairs: Array<[string, string]> = [];
  for (let i = n, j = m; i > 0 && j > 0; ) {
    const diag = cost[i - 1]![j - 1]! + (ref[i - 1]!.w === hyp[j - 1]!.w ? 0 : 1);
    if (cost[i]![j] === diag) {
      pairs.push([hyp[j - 1]!.s, ref[i - 1]!.s]);
      i--;
      j--;
    } else if (cost[i]![j] === cost[i - 1]![j]! + 1) i--;
    else j--;
  }
  const hypNames = [...new Set(pairs.map((p) => p[0]))];
  const refNames = [...new Set(pairs.map((p) => p[1]))];
  const agree = hypNames.map(() => new Array<number>(refNames.length).fill(0));
  for (const [h, r] of pairs) agree[hypNames.indexOf(h)]![refNames.indexOf(r)]!++;
  const map = hypNames.length && refNames.length ? bestMapping(agree) : [];
  const right = pairs.filter(([h, r]) => map[hypNames.indexOf(h)] === refNames.indexOf(r)).length;
  return { aligned: pairs.length, wrong: pairs.length - right };
}
