/**
 * Topic structure of an episode: sentence vectors, topic segmentation (TextTiling over adjacent
 * windows), centrality and keyphrases. Works on any sentence vectors: real sentence embeddings when
 * the embedding model is installed, otherwise TF-IDF bags of content words. Both are real
 * similarity signals; the caller records which one was used.
 */
import type { SentenceNlp } from "./nlp.ts";
import type { Sentence } from "./sentences.ts";
import { chapterTitles } from "./titles.ts";
import { cosine } from "../vector-math.ts";

export type Vector = Float32Array;

const CONTENT_POS = new Set(["NOUN", "PROPN", "VERB", "ADJ"]);

function stem(norm: string): string {
  return norm.length > 4 ? norm.replace(/(?:ies|es|s)$/, (m) => (m === "ies" ? "y" : "")) : norm;
}

function contentTerms(nlp: SentenceNlp): string[] {
  return nlp.tokens
    .filter((t) => CONTENT_POS.has(t.pos) && !t.stop && t.type === "word" && t.norm.length > 2)
    .map((t) => stem(t.norm.replace(/[^\p{L}\p{N}'-]/gu, "")))
    .filter(Boolean);
}

/** TF-IDF vectors over content words (nouns, proper nouns, verbs, adjectives; stop words out). */
export function lexicalVectors(nlps: SentenceNlp[]): Vector[] {
  const terms = nlps.map(contentTerms);
  const vocab = new Map<string, number>();
  const df = new Map<string, number>();
  for (const ts of terms) {
    for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) + 1);
    for (const t of ts) if (!vocab.has(t)) vocab.set(t, vocab.size);
  }
  const n = nlps.length;
  return terms.map((ts) => {
    const v = new Float32Array(Math.max(1, vocab.size));
    for (const t of ts) v[vocab.get(t)!]! += Math.log(1 + n / df.get(t)!);
    return v;
  });
}

export { cosine };

export function sumVectors(vs: Vector[]): Vector {
  const out = new Float32Array(vs[0]?.length ?? 1);
  for (const v of vs) for (let i = 0; i < v.length; i++) out[i]! += v[i]!;
  return out;
}

/** How close each sentence is to the episode as a whole, 0..1 (negative cosines clamp to 0). */
export function centrality(vectors: Vector[]): number[] {
  if (vectors.length === 0) return [];
  const centroid = sumVectors(vectors.map(unit));
  return vectors.map((v) => Math.max(0, cosine(v, centroid)));
}

function unit(v: Vector): Vector {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  if (n === 0) return v;
  const s = 1 / Math.sqrt(n);
  return v.map((x) => x * s) as Vector;
}

export interface Chapter {
  start: number;
  end: number;
  firstSentence: number;
  lastSentence: number;
  title: string;
  keyphrases: string[];
}

export interface SegmentOptions {
  /** Aim for about one chapter per this many seconds (default 300). */
  secondsPerChapter?: number;
  /** Shortest chapter in seconds (default 60). */
  minChapterSeconds?: number;
  maxChapters?: number;
  /** Speaker label -> name: names are not chapter topics. */
  speakerNames?: Record<string, string>;
  /** The transcript's language: chapter titles are cased and, when nothing names a chapter, worded in it. */
  language?: string;
}

/**
 * TextTiling: similarity between the sentences before and after each gap; a topic boundary is a
 * gap whose similarity dips deepest relative to the peaks on both sides. Boundaries are taken
 * deepest-first while every chapter stays at least minChapterSeconds long.
 */
export function segmentTopics(sentences: Sentence[], vectors: Vector[], nlps: SentenceNlp[], opts: SegmentOptions = {}): Chapter[] {
  if (sentences.length === 0) return [];
  const first = sentences[0]!;
  const last = sentences[sentences.length - 1]!;
  const duration = last.end - first.start;
  const perChapter = opts.secondsPerChapter ?? 240;
  const minLen = opts.minChapterSeconds ?? Math.min(60, duration / 3);
  // At least one chapter per 3-5 minutes (one per 4 by default); a short episode still gets one per
  // ~75 s, up to 4, so a 3-minute conversation is not one undivided block.
  const target = Math.max(1, Math.min(opts.maxChapters ?? 20, Math.max(Math.round(duration / perChapter), Math.min(4, Math.floor(duration / 75)))));

  const boundaries: number[] = []; // sentence index that starts a new chapter
  if (target > 1 && sentences.length >= 8) {
    const avgDur = duration / sentences.length;
    const k = Math.max(3, Math.min(12, Math.round(45 / Math.max(1, avgDur))));
    const sims: number[] = [];
    for (let g = 1; g < sentences.length; g++) {
      const left = sumVectors(vectors.slice(Math.max(0, g - k), g));
      const right = sumVectors(vectors.slice(g, Math.min(sentences.length, g + k)));
      sims.push(cosine(left, right));
    }
    const depth = sims.map((s, i) => {
      let lp = s;
      for (let j = i; j >= 0 && sims[j]! >= lp; j--) lp = sims[j]!;
      let rp = s;
      for (let j = i; j < sims.length && sims[j]! >= rp; j++) rp = sims[j]!;
      // A new speaker or a long pause at the gap makes a natural chapter start.
      const g = i + 1;
      const pause = sentences[g]!.start - sentences[g - 1]!.end;
      const bonus = (sentences[g]!.speaker !== sentences[g - 1]!.speaker ? 0.02 : 0) + Math.min(0.05, pause * 0.02);
      return lp - s + (rp - s) + bonus;
    });
    const order = depth.map((d, i) => ({ d, g: i + 1 })).sort((a, b) => b.d - a.d);
    const mean = depth.reduce((a, b) => a + b, 0) / depth.length;
    for (const { d, g } of order) {
      if (boundaries.length >= target - 1) break;
      if (d <= mean) break;
      // A chapter marker mid-sentence would start playback mid-thought.
      if (!sentences[g - 1]!.complete) continue;
      const starts = [0, ...boundaries, g].sort((a, b) => a - b);
      const ok = starts.every((s, i) => {
        const end = i + 1 < starts.length ? sentences[starts[i + 1]!]!.start : last.end;
        return end - sentences[s]!.start >= minLen;
      });
      if (ok) boundaries.push(g);
    }
    boundaries.sort((a, b) => a - b);
  }

  const starts = [0, ...boundaries];
  const spans = starts.map((s, i) => [s, (starts[i + 1] ?? sentences.length) - 1] as const);
  const titles = chapterTitles(
    sentences.map((s) => s.text),
    nlps,
    spans,
    opts.speakerNames,
    opts.language,
  );
  return spans.map(([a, b], i) => ({ start: sentences[a]!.start, end: sentences[b]!.end, firstSentence: a, lastSentence: b, ...titles[i]! }));
}
