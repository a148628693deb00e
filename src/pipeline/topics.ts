/**
 * Topic structure of an episode: sentence vectors, topic segmentation (TextTiling over adjacent
 * windows), centrality and keyphrases. Works on any sentence vectors: real sentence embeddings when
 * the embedding model is installed, otherwise TF-IDF bags of content words. Both are real
 * similarity signals; the caller records which one was used.
 */
import type { SentenceNlp } from "./highlights-nlp.ts";
import type { Sentence } from "./sentences.ts";
import { cosine } from "./vector-math.ts";

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
  const perChapter = opts.secondsPerChapter ?? 300;
  const minLen = opts.minChapterSeconds ?? 60;
  // About one chapter per five minutes, but short episodes still get a few (one per ~2 minutes).
  const target = Math.max(1, Math.min(opts.maxChapters ?? 12, Math.max(Math.round(duration / perChapter), Math.min(4, Math.floor(duration / 100)))));

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
  const phraseLists = spans.map(([a, b]) => nounPhrases(nlps.slice(a, b + 1)));
  const used = new Set<string>();
  return spans.map(([a, b], i) => {
    const phrases = rankPhrases(phraseLists[i]!, phraseLists);
    // Neighbouring chapters on the same subject still get telling titles: prefer phrases no earlier
    // title has used, falling back to the chapter's own top phrases.
    const fresh = phrases.filter((p) => !used.has(p.toLowerCase()));
    const titled = fresh.length >= 1 ? fresh : phrases;
    const title = chapterTitle(titled, i);
    for (const p of titled.slice(0, 2)) used.add(p.toLowerCase());
    return {
      start: sentences[a]!.start,
      end: sentences[b]!.end,
      firstSentence: a,
      lastSentence: b,
      title,
      keyphrases: phrases.slice(0, 5),
    };
  });
}

export interface Phrase {
  text: string;
  /** Every word tagged as a proper noun ("New Jersey"), so its capitals are meaningful. */
  proper: boolean;
}

/** Runs of adjectives/nouns/proper nouns ending in a noun: "speech rate", "New Jersey". Proper
 *  names keep their case; other phrases are lower-cased (sentence-initial capitals mean nothing). */
export function nounPhrases(nlps: SentenceNlp[]): Phrase[] {
  const out: Phrase[] = [];
  for (const nlp of nlps) {
    let run: { text: string; pos: string; stop: boolean }[] = [];
    let runAtStart = false;
    let seenWord = false;
    const flush = () => {
      while (run.length && (run[run.length - 1]!.pos === "ADJ" || run[run.length - 1]!.stop)) run.pop();
      while (run.length && run[0]!.stop) run.shift();
      if (run.length && run.some((t) => t.text.length > 2)) {
        // "Work in a bakery first." — a lone capitalised word opening a sentence is not a name.
        const proper = run.every((t) => t.pos === "PROPN") && !(runAtStart && run.length === 1);
        const text = run.map((t) => t.text).join(" ");
        out.push({ text: proper ? text : text.toLowerCase(), proper });
      }
      run = [];
    };
    for (const t of nlp.tokens) {
      const wordLike = t.type === "word" && !t.text.includes("'") && t.text.length > 1;
      if ((t.pos === "NOUN" || t.pos === "PROPN" || t.pos === "ADJ") && wordLike) {
        if (run.length === 0) runAtStart = !seenWord;
        run.push({ text: t.text, pos: t.pos, stop: t.stop });
      } else flush();
      if (t.type === "word") seenWord = true;
    }
    flush();
  }
  return out;
}

const GENERIC = new Set([
  "thing", "things", "lot", "way", "time", "times", "people", "guy", "guys", "kind", "stuff", "bit", "yeah", "okay", "hello", "oh",
  "year", "years", "day", "days", "week", "weeks", "month", "months", "morning", "night", "minute", "minutes", "percent",
  "question", "questions", "show", "guest", "episode", "today", "second", "everyone", "someone", "something", "anything",
]);

/** Orders a chapter's phrases by frequency there, discounted by how many other chapters use them. */
function rankPhrases(phrases: Phrase[], all: Phrase[][]): string[] {
  const key = (p: Phrase) => p.text.toLowerCase();
  const tf = new Map<string, { n: number; text: string; proper: boolean }>();
  for (const p of phrases) {
    const k = key(p);
    if (GENERIC.has(k)) continue;
    const e = tf.get(k) ?? { n: 0, text: p.text, proper: p.proper };
    e.n++;
    tf.set(k, e);
  }
  const dfOf = (k: string) => all.filter((ps) => ps.some((p) => key(p) === k)).length;
  return [...tf.entries()]
    .map(([k, e]) => ({ text: e.text, s: e.n * Math.log(1 + all.length / dfOf(k)) * (1 + 0.5 * Math.min(2, k.split(" ").length - 1)) * (e.proper ? 1.2 : 1) }))
    .sort((a, b) => b.s - a.s)
    .map((e) => e.text);
}

function chapterTitle(phrases: string[], i: number): string {
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  if (phrases.length === 0) return i === 0 ? "Opening" : `Part ${i + 1}`;
  if (phrases.length === 1) return cap(phrases[0]!);
  return `${cap(phrases[0]!)} and ${phrases[1]!}`;
}
