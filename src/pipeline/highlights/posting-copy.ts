/**
 * What a producer pastes beside a clip when posting it: a title (≤ 70 characters), a one- or
 * two-sentence description and 3-5 hashtags. Extractive like the rest of the stage: the title is
 * the clip's own question, its strongest line or its main topic, the description is said in the
 * clip, the hashtags are its topics, the show's name and its most repeated nouns.
 */
import { standaloneUnits } from "./copy-units.ts";
import { textSentences } from "./editorial-check.ts";
import type { EpisodeAnalysis } from "./analysis.ts";
import type { Candidate } from "./rank.ts";
import { GENERIC_WORDS, nonTopicTerms, rankTitlePhrases, showName, stemTerm, termCounts, titleFor } from "./titles.ts";
import { isEnglish } from "../language/rules.ts";
import { notesText } from "../language/notes-text.ts";
import { formatTimestamp } from "./shownotes.ts";
import type { Transcript } from "../types.ts";

export const CLIP_TITLE_MAX_CHARS = 70;
export const MIN_HASHTAGS = 3;
export const MAX_HASHTAGS = 5;

export interface PostingCopy {
  title: string;
  description: string;
  hashtags: string[];
}

/** "#BusShelter" from "bus shelter"; letters and digits only, each word capitalised. */
export function hashtag(phrase: string): string | null {
  const body = phrase
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => (/\p{Lu}/u.test(w) ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join("");
  return body.length >= 3 && body.length <= 30 && /\p{L}/u.test(body) ? `#${body}` : null;
}

/** A headline reads at a glance in a feed: one short sentence. */
const HEADLINE_MIN_WORDS = 4;
const HEADLINE_MAX_WORDS = 12;
const HEADLINE_MAX_CHARS = 64;

/**
 * The clip's best line as a headline, the way an editor titles a clip by its strongest sentence: one
 * sentence said in the clip that stands alone (starts and ends on evidenced edges, finished, not
 * pointing back), short, and about the episode's subject (a content word the episode says more than
 * once); the most interesting such line (hook features) wins. Null when the clip has none.
 */
function headline(a: EpisodeAnalysis, c: Candidate, avoid: Set<string>, counts: Map<string, number>, free: (x: string) => boolean): string | null {
  let best: { text: string; score: number } | null = null;
  // Any finished sentence of a standalone unit: a headline is read, not cut from the audio, so its
  // end needs terminal punctuation, not the pause a clip edge does.
  const lines = standaloneUnits(a, c.first, c.last).flatMap((u) => Array.from({ length: u.last - u.first + 1 }, (_, k) => u.first + k));
  for (const i of lines) {
    const f = a.features[i]!;
    const said = a.sentences[i]!.text;
    if (f.words < HEADLINE_MIN_WORDS || f.words > HEADLINE_MAX_WORDS || said.length > HEADLINE_MAX_CHARS + 1 || !/[.!?…]$/.test(said)) continue;
    // "He", "they", "that", "so": even a soft pointer back leaves a headline reader asking who or what.
    if (f.dangling || f.continuation) continue;
    // A line naming a speaker or the show is an introduction or a sign-off ("This is Diane in New Jersey").
    if (a.nlp[i]!.tokens.some((t) => avoid.has(stemTerm(t.norm)))) continue;
    const topical = new Set(
      a.nlp[i]!.tokens
        .filter((t) => (t.pos === "NOUN" || t.pos === "PROPN" || t.pos === "ADJ") && !t.stop && t.norm.length > 2 && !GENERIC_WORDS.has(t.norm))
        .map((t) => stemTerm(t.norm))
        .filter((term) => !avoid.has(term) && (counts.get(term) ?? 0) >= 2),
    ).size;
    if (topical === 0) continue;
    const text = titleFor(said.replace(/[.…]+$/, ""), a.language);
    const score = a.interest[i]! + 0.1 * Math.min(topical, 3);
    if (free(text) && (!best || score > best.score)) best = { text, score };
  }
  return best?.text ?? null;
}

/** `taken`: titles of the job's other clips, so two clips are never posted under one title. */
function clipTitle(a: EpisodeAnalysis, c: Candidate, hook: string, avoid: Set<string>, counts: Map<string, number>, taken: Set<string>): string {
  const free = (x: string) => x.length <= CLIP_TITLE_MAX_CHARS && !taken.has(x.toLowerCase());
  const titleCase = (x: string) => titleFor(x, a.language);
  // A clip that opens on a short question is titled by it: it is what the clip answers.
  const sentences = textSentences(hook);
  if (sentences.length === 1 && hook.endsWith("?") && free(titleCase(hook))) return titleCase(hook);
  const line = headline(a, c, avoid, counts, free);
  if (line) return line;
  const texts = a.sentences.slice(c.first, c.last + 1).map((s) => s.text);
  const fits = rankTitlePhrases(texts, a.nlp.slice(c.first, c.last + 1), { avoid })
    .map((p) => titleCase(p.text))
    .find(free);
  if (fits) return fits;
  if (free(sentences[0]!)) return sentences[0]!;
  // The ranker's category names the clip in English only; another language gets its word for "episode".
  return isEnglish(a.language) ? titleCase(`${c.category.replace("_", " ")} at ${formatTimestamp(c.start)}`) : `${notesText(a.language).episode} ${formatTimestamp(c.start)}`;
}

/** The clip's pull quote (a finished unit of one or two sentences), credited when the speaker is named. */
function description(t: Transcript, a: EpisodeAnalysis, c: Candidate, quote: string): string {
  let at = c.first;
  for (let i = c.first; i <= c.last; i++) if (quote.startsWith(a.sentences[i]!.text)) at = i;
  const speaker = t.speakerNames?.[a.sentences[at]!.speaker];
  const body = textSentences(quote).length <= 2 ? quote : textSentences(quote).slice(0, 2).join(" ");
  return speaker ? `${speaker}: ${body}` : body;
}

function hashtags(a: EpisodeAnalysis, c: Candidate, show: string | null, avoid: Set<string>, counts: Map<string, number>): string[] {
  const out: string[] = [];
  const add = (tag: string | null) => {
    if (tag && out.length < MAX_HASHTAGS && !out.some((x) => x.toLowerCase() === tag.toLowerCase())) out.push(tag);
  };
  const texts = a.sentences.slice(c.first, c.last + 1).map((s) => s.text);
  const covered = new Set<string>();
  // Topics of the episode that the clip touches (a term said more than once), not its one-off phrases.
  for (const p of rankTitlePhrases(texts, a.nlp.slice(c.first, c.last + 1), { avoid, counts })) {
    if (out.length >= MAX_HASHTAGS - 2) break;
    // Short tags people search for: a phrase of at most two words whose terms are not yet tagged.
    if (p.text.split(/\s+/).length > 2 || p.terms.every((x) => covered.has(x)) || !p.terms.some((x) => (counts.get(x) ?? 0) >= 2)) continue;
    add(hashtag(p.text));
    for (const x of p.terms) covered.add(x);
  }
  if (show) add(hashtag(show));
  // Too few topics in a short clip: its most repeated content words fill the set.
  if (out.length < MIN_HASHTAGS) {
    const counts = new Map<string, { n: number; text: string }>();
    for (let i = c.first; i <= c.last; i++)
      for (const tok of a.nlp[i]!.tokens)
        if ((tok.pos === "NOUN" || tok.pos === "PROPN") && !tok.stop && tok.norm.length > 3 && !GENERIC_WORDS.has(tok.norm) && !avoid.has(stemTerm(tok.norm))) {
          const e = counts.get(tok.norm) ?? { n: 0, text: tok.text };
          e.n++;
          counts.set(tok.norm, e);
        }
    // A word already inside a tag ("Jersey" in "#NewJersey") adds nothing.
    // Only up to the minimum: three tags on the subject beat five with filler nouns.
    for (const e of [...counts.values()].sort((x, y) => y.n - x.n)) {
      if (out.length >= MIN_HASHTAGS) break;
      if (!out.some((x) => x.toLowerCase().includes(e.text.toLowerCase()))) add(hashtag(e.text));
    }
  }
  // The ranker's category ("#Insight", "#HotTake") reads as a machine's label: only when nothing said fills the set.
  if (out.length < MIN_HASHTAGS && isEnglish(a.language)) add(hashtag(c.category.replace("_", " ")));
  if (out.length < MIN_HASHTAGS) add("#Podcast");
  if (out.length < MIN_HASHTAGS) add("#Clip");
  return out;
}

/** The clip's posting copy; `taken` holds the titles already given to the job's other clips and receives this one's. */
export function postingCopy(t: Transcript, a: EpisodeAnalysis, c: Candidate, hook: string, quote: string, taken: Set<string>): PostingCopy {
  const texts = a.sentences.map((s) => s.text);
  const avoid = nonTopicTerms(texts, t.speakerNames);
  // How often the episode says each term: what the title and the hashtags both judge a subject by.
  const counts = termCounts(a.nlp);
  const title = clipTitle(a, c, hook, avoid, counts, taken);
  taken.add(title.toLowerCase());
  return { title, description: description(t, a, c, quote), hashtags: hashtags(a, c, showName(texts.slice(0, 3)), avoid, counts) };
}
