/**
 * Clip candidates and their scores. A candidate is a run of whole sentences [first..last] that a
 * person could post on its own: it starts where a thought starts, ends where one ends, and fits the
 * length window. Scoring is a weighted sum of named parts (hook, body, payoff, centrality, fit,
 * liveliness) so every score can be explained in the clip's `reason`.
 */
import { quotableUnits } from "./copy-units.ts";
import { endsOpen, startsCapitalised } from "./editorial-check.ts";
import type { EpisodeAnalysis } from "./analysis.ts";
import type { SentenceFeatures } from "./features.ts";
import { meanOverFrames } from "../transcribe/vad.ts";

/** The clip categories, one vocabulary for the API, the notes and the docs. */
export const CLIP_CATEGORIES = ["insight", "story", "advice", "humor", "hot_take", "question", "emotional", "data"] as const;
export type ClipCategory = (typeof CLIP_CATEGORIES)[number];

export interface TimeSpan {
  start: number;
  end: number;
}

/** Optional signals measured on the audio; every field is optional and used only when present. */
export interface AudioFeatures {
  /** Loudness per fixed frame from media start (RMS, any consistent unit). */
  energy?: { frameSeconds: number; values: number[] };
  /** Spans where laughter was heard (by default where the recogniser wrote it: transcribe/laughter-words.ts). */
  laughter?: TimeSpan[];
}

export interface RankOptions {
  minSeconds: number;
  maxSeconds: number;
  /** Largest allowed overlap between two chosen clips, as a fraction of the shorter one. */
  maxOverlap: number;
  audio?: AudioFeatures;
  /** A silence longer than this inside a clip (music bed, ad break) disqualifies it. */
  maxInternalGapSeconds: number;
}

export interface ScoreParts {
  hook: number;
  body: number;
  payoff: number;
  centrality: number;
  fit: number;
  liveliness: number;
  penalty: number;
}

export interface Candidate {
  first: number;
  last: number;
  start: number;
  end: number;
  raw: number;
  parts: ScoreParts;
  category: ClipCategory;
  /** Human-readable signals, strongest first, for the reason line. */
  signals: string[];
}

export const SCORE_WEIGHTS = { hook: 0.28, body: 0.28, payoff: 0.18, centrality: 0.08, fit: 0.07, liveliness: 0.11 } as const;

const clamp01 = (x: number) => Math.max(0, Math.min(1, x));
const sat = (x: number, k: number) => 1 - Math.exp(-x / k);

/** After this much silence a conjunction opener ("And so, my fellow Americans") no longer points back. */
const FRESH_START_PAUSE = 2.5;

/** A clip may start on this sentence: it does not point back to something the listener missed. */
export function canStartAt(a: EpisodeAnalysis, i: number): boolean {
  const f = a.features[i]!;
  // The sentence before must have ended by the evidence rule, and this one must read as a start.
  if (i > 0 && !a.sentences[i - 1]!.complete) return false;
  if (!startsCapitalised(a.sentences[i]!.text)) return false;
  const fresh = i === 0 || a.sentences[i]!.start - a.sentences[i - 1]!.end >= FRESH_START_PAUSE;
  if (f.continuation) return false;
  if (f.dangling !== "hard") return true;
  // Pronouns ("He said ...") need their referent whatever came before; conjunctions only need a fresh start.
  return fresh && /^(?:and|but|or|so|also|then|plus)\b/i.test(a.sentences[i]!.text);
}

/** A clip may end on this sentence: the thought is finished and nothing it announced is cut off. */
export function canEndAt(a: EpisodeAnalysis, j: number): boolean {
  const f = a.features[j]!;
  if (!a.sentences[j]!.complete || endsOpen(a.nlp[j]!.tokens)) return false;
  if (f.setup) return false;
  const next = a.features[j + 1];
  if (next?.continuation && a.sentences[j + 1]!.speaker === a.sentences[j]!.speaker) return false;
  return true;
}

function speakingRate(a: EpisodeAnalysis, first: number, last: number): number {
  let words = 0;
  let secs = 0;
  for (let i = first; i <= last; i++) {
    words += a.features[i]!.words;
    secs += a.sentences[i]!.end - a.sentences[i]!.start;
  }
  return secs > 0 ? words / secs : 0;
}

interface EpisodeStats {
  /** For sentence i, the earliest last sentence of a quotable unit starting at or after i. */
  quotableEndFrom: number[];
  medianRate: number;
  energyMean: number;
  energyStd: number;
  maxCentrality: number;
  chapterOf: number[];
}

function episodeStats(a: EpisodeAnalysis, audio?: AudioFeatures): EpisodeStats {
  const rates = a.sentences.map((s, i) => a.features[i]!.words / Math.max(0.3, s.end - s.start)).sort((x, y) => x - y);
  let energyMean = 0;
  let energyStd = 0;
  if (audio?.energy?.values.length) {
    const v = audio.energy.values;
    energyMean = v.reduce((x, y) => x + y, 0) / v.length;
    energyStd = Math.sqrt(v.reduce((x, y) => x + (y - energyMean) ** 2, 0) / v.length);
  }
  const chapterOf = new Array<number>(a.sentences.length).fill(0);
  a.chapters.forEach((c, ci) => {
    for (let i = c.firstSentence; i <= c.lastSentence; i++) chapterOf[i] = ci;
  });
  const quotableEndFrom = new Array<number>(a.sentences.length + 1).fill(Infinity);
  for (const u of quotableUnits(a)) quotableEndFrom[u.first] = Math.min(quotableEndFrom[u.first]!, u.last);
  for (let i = a.sentences.length - 1; i >= 0; i--) quotableEndFrom[i] = Math.min(quotableEndFrom[i]!, quotableEndFrom[i + 1]!);
  return {
    quotableEndFrom,
    medianRate: rates[Math.floor(rates.length / 2)] ?? 2.5,
    energyMean,
    energyStd,
    maxCentrality: Math.max(1e-9, ...a.centrality),
    chapterOf,
  };
}

function categorize(a: EpisodeAnalysis, first: number, last: number, laughs: number): ClipCategory {
  // Weighted average per family (the opening line counts double), so long clips do not win a
  // category just by accumulating weak signals.
  const totals: Record<ClipCategory, number> = { insight: 0, story: 0, advice: 0, humor: 0, hot_take: 0, question: 0, emotional: 0, data: 0 };
  let weight = 0;
  for (let i = first; i <= last; i++) {
    const f = a.features[i]!;
    const w = i === first ? 2 : 1;
    weight += w;
    totals.insight += w * (sat(f.insight, 1) + 0.4 * sat(f.contrast, 1));
    totals.story += w * sat(f.story, 1);
    totals.advice += w * sat(f.advice, 1);
    totals.humor += w * sat(f.humor, 1);
    totals.hot_take += w * (sat(f.hotTake, 1) + 0.2 * sat(f.superlative, 1));
    totals.emotional += w * sat(Math.max(0, f.emotion - 0.45), 0.7);
    totals.data += w * (sat(f.quantities, 1) + 0.2 * sat(f.numbers, 2));
  }
  for (const c of CLIP_CATEGORIES) totals[c] /= weight;
  // Insight is the default for a substantive passage with no stronger shape.
  totals.insight += 0.08;
  // A question only defines the clip when it leads and the clip goes on to answer it.
  if (a.features[first]!.question && last > first) totals.question += 0.3;
  totals.humor += Math.min(0.9, laughs * 0.45);
  let best: ClipCategory = "insight";
  for (const c of CLIP_CATEGORIES) if (totals[c] > totals[best]) best = c;
  return best;
}

function describeHook(f: SentenceFeatures): string[] {
  const out: string[] = [];
  if (f.question) out.push("opens with a question");
  if (f.hotTake) out.push("opens with a bold claim");
  if (f.quantities) out.push("opens with a figure");
  if (f.contrast) out.push("opens with a contrast");
  if (f.story) out.push("opens a first-person story");
  if (f.advice) out.push("opens with direct advice");
  if (f.setup) out.push("opens with a set-up");
  return out;
}

function scoreCandidate(a: EpisodeAnalysis, first: number, last: number, stats: EpisodeStats, opts: RankOptions): Candidate {
  const S = a.sentences;
  const F = a.features;
  const start = S[first]!.start;
  const end = S[last]!.end;
  const dur = end - start;
  const fFirst = F[first]!;
  const fLast = F[last]!;
  const signals: string[] = [];
  let penalty = 0;

  // Hook: the first line on its own; a very short opener ("Hello?") borrows from the next line.
  let hook = a.interest[first]!;
  if (fFirst.words < 4 && first < last) hook = 0.5 * hook + 0.5 * a.interest[first + 1]!;
  hook += (fFirst.question ? 0.12 : 0) + (fFirst.hotTake ? 0.12 : 0) + (fFirst.setup ? 0.1 : 0) + (fFirst.quantities ? 0.06 : 0);
  if (fFirst.dangling === "soft") hook -= 0.2;
  if (fFirst.dangling === "hard") hook -= 0.3; // only reachable after a long silence or at the very start
  if (fFirst.weakOpener) hook -= 0.08;
  hook = clamp01(hook);
  signals.push(...describeHook(fFirst));
  if (first > 0 && F[first - 1]!.setup && S[first - 1]!.speaker === S[first]!.speaker) penalty += 0.08;

  // Body: its best lines carry it; the average keeps filler-heavy stretches down.
  const inner: number[] = [];
  let wordTotal = 0;
  let weighted = 0;
  let fillers = 0;
  for (let i = first; i <= last; i++) {
    inner.push(a.interest[i]!);
    weighted += a.interest[i]! * F[i]!.words;
    wordTotal += F[i]!.words;
    fillers += F[i]!.fillers;
  }
  const top = [...inner].sort((x, y) => y - x).slice(0, 3);
  const body = clamp01(0.5 * (top.reduce((x, y) => x + y, 0) / top.length) + 0.5 * (weighted / Math.max(1, wordTotal)));
  const fillerRate = fillers / Math.max(1, wordTotal);
  if (fillerRate > 0.05) {
    penalty += Math.min(0.15, fillerRate);
    signals.push("filler-heavy");
  }

  // Payoff: a finished last line, ideally a strong one, followed by a natural break.
  const nextS = S[last + 1];
  const breakAfter = !nextS || nextS.speaker !== S[last]!.speaker || nextS.start - S[last]!.end >= 0.6;
  let payoff = 0.5 * a.interest[last]! + (fLast.question ? 0 : 0.25) + (breakAfter ? 0.2 : 0);
  if (fLast.insight || fLast.contrast || fLast.humor || fLast.emotion > 0.5 || fLast.numbers) payoff += 0.1;
  if (fLast.question && nextS && nextS.speaker !== S[last]!.speaker) {
    penalty += 0.1;
    signals.push("ends on an unanswered question");
  }
  payoff = clamp01(payoff);
  if (payoff >= 0.6) signals.push("ends on a clear payoff");

  // A clip that peaks early and then trails off into small talk loses its ending.
  const peak = Math.max(...inner);
  const tail = inner.length >= 3 ? (inner[inner.length - 1]! + inner[inner.length - 2]!) / 2 : peak;
  if (peak > 0.3 && tail < 0.4 * peak) {
    penalty += 0.08 * (1 - tail / peak);
    signals.push("trails off");
  }

  let cent = 0;
  for (let i = first; i <= last; i++) cent += a.centrality[i]! * F[i]!.words;
  const centrality = clamp01(cent / Math.max(1, wordTotal) / stats.maxCentrality);
  if (centrality >= 0.6) signals.push("central to the episode's topic");

  const ideal = opts.minSeconds + 0.4 * (opts.maxSeconds - opts.minSeconds);
  const fit = clamp01(1 - Math.abs(dur - ideal) / Math.max(1, opts.maxSeconds - opts.minSeconds));

  // Liveliness from the words: pace against the episode's median, and a little back-and-forth.
  const rate = speakingRate(a, first, last);
  let live = clamp01(0.5 + (rate / Math.max(0.1, stats.medianRate) - 1) * 0.8);
  let turns = 0;
  for (let i = first + 1; i <= last; i++) if (S[i]!.speaker !== S[i - 1]!.speaker) turns++;
  const turnsPerMin = (turns / Math.max(1, dur)) * 60;
  if (turns > 0 && turnsPerMin <= 8) {
    live += 0.1;
    signals.push(`back-and-forth (${turns + 1} turns)`);
  } else if (turnsPerMin > 12) penalty += 0.05;

  let laughs = 0;
  if (opts.audio?.laughter) {
    for (const l of opts.audio.laughter) if (l.end > start && l.start < end + 1.5) laughs++;
    if (laughs) signals.push(`laughter x${laughs}`);
  }
  if (opts.audio?.energy && stats.energyStd > 0) {
    const e = meanOverFrames(opts.audio.energy.values, opts.audio.energy.frameSeconds, { start, end });
    if (e !== undefined) {
      const z = (e - stats.energyMean) / stats.energyStd;
      live += Math.max(-0.15, Math.min(0.25, z * 0.15));
      if (z > 0.8) signals.push("high vocal energy");
    }
  }
  live = clamp01(live + Math.min(0.2, laughs * 0.1));

  // Nothing in it can be quoted on its own: a clip a producer would struggle to post.
  if (stats.quotableEndFrom[first]! > last) {
    penalty += 0.15;
    signals.push("no self-contained quote");
  }

  // A clip that straddles a chapter boundary tends to be two half-thoughts.
  if (stats.chapterOf[first] !== stats.chapterOf[last]) penalty += 0.06;

  const parts: ScoreParts = { hook, body, payoff, centrality, fit, liveliness: live, penalty };
  const raw = clamp01(
    SCORE_WEIGHTS.hook * hook +
      SCORE_WEIGHTS.body * body +
      SCORE_WEIGHTS.payoff * payoff +
      SCORE_WEIGHTS.centrality * centrality +
      SCORE_WEIGHTS.fit * fit +
      SCORE_WEIGHTS.liveliness * live -
      penalty,
  );
  const category = categorize(a, first, last, laughs);
  return { first, last, start, end, raw, parts, category, signals };
}

/** One given run of sentences (first..last), scored like a candidate: a producer's own clip. */
export function scoreSpan(a: EpisodeAnalysis, first: number, last: number, opts: RankOptions): Candidate {
  return scoreCandidate(a, first, last, episodeStats(a, opts.audio), opts);
}

/** Every run of whole sentences that qualifies as a clip, scored. */
export function generateCandidates(a: EpisodeAnalysis, opts: RankOptions): Candidate[] {
  const S = a.sentences;
  const stats = episodeStats(a, opts.audio);
  const out: Candidate[] = [];
  for (let i = 0; i < S.length; i++) {
    if (!canStartAt(a, i)) continue;
    for (let j = i; j < S.length; j++) {
      if (j > i && S[j]!.start - S[j - 1]!.end > opts.maxInternalGapSeconds) break;
      const dur = S[j]!.end - S[i]!.start;
      if (dur > opts.maxSeconds) break;
      if (dur < opts.minSeconds || !canEndAt(a, j)) continue;
      out.push(scoreCandidate(a, i, j, stats, opts));
    }
  }
  return out;
}

export function overlapFraction(x: TimeSpan, y: TimeSpan): number {
  const o = Math.max(0, Math.min(x.end, y.end) - Math.max(x.start, y.start));
  const shorter = Math.min(x.end - x.start, y.end - y.start);
  return shorter > 0 ? o / shorter : 0;
}

/** Share of the smaller clip's sentences that the other clip also contains, word for word. */
function sharedSentences(x: Set<string>, y: Set<string>): number {
  let inter = 0;
  for (const w of x) if (y.has(w)) inter++;
  const smaller = Math.min(x.size, y.size);
  return smaller === 0 ? 0 : inter / smaller;
}

/** Above this share two clips say the same thing (a repeated ad read, a re-told story). */
export const MAX_REPEATED_SHARE = 0.5;

/**
 * Best-first, skipping anything that overlaps an already chosen clip by more than maxOverlap in
 * time, or repeats one word for word.
 */
export function pickNonOverlapping(cands: Candidate[], count: number, maxOverlap: number, a?: EpisodeAnalysis): Candidate[] {
  const sorted = [...cands].sort((x, y) => y.raw - x.raw || x.start - y.start);
  const sentencesOf = (c: Candidate) =>
    new Set(a!.sentences.slice(c.first, c.last + 1).map((s) => s.text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()));
  const chosen: { c: Candidate; s: Set<string> | null }[] = [];
  for (const c of sorted) {
    if (chosen.length >= count) break;
    if (!chosen.every((k) => overlapFraction(k.c, c) <= maxOverlap)) continue;
    const s = a ? sentencesOf(c) : null;
    if (s && chosen.some((k) => sharedSentences(k.s!, s) > MAX_REPEATED_SHARE)) continue;
    chosen.push({ c, s });
  }
  return chosen.map((k) => k.c);
}
