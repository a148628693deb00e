/**
 * Per-sentence signals a person uses when deciding what to post: does the line hook (a question, a
 * number, a contrast, a bold claim), does it advise, tell a story, land a joke, carry emotion. Pure
 * functions of the sentence text and its wink tags, so each rule is testable on its own.
 */
import type { SentenceNlp } from "./nlp.ts";

export interface SentenceFeatures {
  words: number;
  question: boolean;
  /** Count of numbers of any kind ("four in the morning" included). */
  numbers: number;
  /** Count of quantities that make a data point: percentages, money, large magnitudes, digits. */
  quantities: number;
  contrast: number;
  superlative: number;
  /** Imperatives and "you should"-style advice. */
  advice: number;
  /** First-person narrative markers ("I remember", "when I was", "years ago"). */
  story: number;
  /** Lesson / realisation markers ("the key is", "I realised", "turns out"). */
  insight: number;
  /** Contrarian or bold-claim markers ("overrated", "nobody talks about", "unpopular opinion"). */
  hotTake: number;
  humor: number;
  /** Emotion: |sentiment| plus emotional vocabulary. */
  emotion: number;
  sentiment: number;
  fillers: number;
  /** The sentence opens with a word that points back to something said before it. */
  dangling: "hard" | "soft" | null;
  /** The sentence continues the previous one ("because ...", "which ..."): a clip must not start here
   *  and the previous sentence must not end a clip. */
  continuation: boolean;
  /** The sentence sets something up that the next one delivers ("Here's the thing:"). */
  setup: boolean;
  /** Sentence opens with a discourse filler ("So,", "Well,", "Yeah,"). */
  weakOpener: boolean;
}

const has = (text: string, patterns: RegExp[]): number => patterns.reduce((n, p) => n + (p.test(text) ? 1 : 0), 0);

const CONTRAST = [
  /\bbut\b/, /\bhowever\b/, /\bactually\b/, /\binstead\b/, /\bturns? out\b/, /\bthe truth is\b/, /\bin fact\b/,
  /\bthe opposite\b/, /\bnot because\b/, /\bmyth\b/, /\bwrong\b/, /\bsurpris/, /\bthe problem is\b/, /\bexcept\b/,
];
const SUPERLATIVE_WORDS = new Set([
  "best", "worst", "most", "least", "biggest", "greatest", "hardest", "never", "always", "everyone", "everything",
  "nobody", "nothing", "only", "craziest", "favorite", "favourite", "ever", "incredible", "insane",
]);
const ADVICE = [
  /\byou (?:should|need to|have to|must|want to|gotta|'ve got to)\b/, /\bmy advice\b/, /\bthe (?:trick|key) is\b/,
  /\bmake sure\b/, /\bdon'?t\b.*\b(?:ever|just)\b/, /\bif you(?:'re| are| want)\b/, /\bstart (?:by|with)\b/,
  /\btry to\b/, /\bremember to\b/, /\bhow to\b/, /\bhere'?s (?:how|what you)\b/,
];
const STORY = [
  /\bi remember\b/, /\bwhen i was\b/, /\bone (?:day|time|night|morning)\b/, /\byears? ago\b/, /\bback (?:then|in)\b/,
  /\bi (?:was|had|went|got|told|said|thought|walked|called|decided|grew up|moved|lost|met|quit|started)\b/,
  /\bwe (?:were|had|went|got|decided|moved|started|lost)\b/, /\bmy (?:dad|mom|mother|father|wife|husband|son|daughter|first|boss)\b/,
  /\bgrew up\b/, /\bthe (?:day|night) (?:i|we)\b/,
];
const INSIGHT = [
  /\bthe (?:key|secret|lesson|point|reason|thing) (?:is|was)\b/, /\bi (?:realized|realised|learned|learnt|figured out)\b/,
  /\bturns? out\b/, /\bwhat (?:matters|i learned|people miss)\b/, /\bthe real\b/, /\bit'?s not about\b/,
  /\bthat'?s why\b/, /\bthe difference\b/, /\bin other words\b/, /\bwhich means\b/, /\bthe way (?:i|we) see it\b/,
  /\bpeople (?:think|assume|forget)\b/, /\bunderstand\b/, /\bthe lesson\b/,
];
const HOT_TAKE = [
  /\bunpopular opinion\b/, /\boverrated\b/, /\bunderrated\b/, /\bi disagree\b/, /\bnobody (?:talks|tells|wants)\b/,
  /\bis dead\b/, /\bwaste of\b/, /\bhonestly\b/, /\bcontroversial\b/, /\bi don'?t (?:buy|think that)\b/,
  /\beveryone (?:thinks|says)\b/, /\bstop (?:doing|saying)\b/, /\bbullshit\b|\bnonsense\b/, /\bwrong\b/,
];
const HUMOR = [/\bhaha\b|\bha ha\b/, /\bfunny\b/, /\bjoke\b|\bjoking\b|\bkidding\b/, /\blaugh/, /\bhilarious\b/, /\bridiculous\b/, /\bcrazy\b/];
const EMOTION = [
  /\bcr(?:y|ied|ying)\b/, /\bscared\b|\bafraid\b|\bterrified\b|\bfear\b/, /\blove\b/, /\bhate\b/, /\bheart\b/,
  /\bproud\b/, /\bgrateful\b/, /\bangry\b/, /\bdevastat/, /\bheartbr/, /\bmiss (?:him|her|them)\b/, /\bdied\b|\bdeath\b/,
  /\bhappiest\b|\bsaddest\b/, /\bnever forget\b/,
];
const FILLERS = /\b(?:um+|uh+|erm|hmm+|you know|i mean|kind of|sort of|like,)\b/g;

const HARD_DANGLING = new Set([
  "he", "she", "they", "him", "her", "them", "his", "their", "theirs", "that", "these", "those", "which", "who", "whom",
  "whose", "and", "but", "because", "or", "also", "then", "though", "although", "plus", "nor", "whereas", "hence",
  "therefore", "anyway", "otherwise", "except", "unless", "still", "that's", "he's", "she's", "they're",
]);
const SOFT_DANGLING = new Set(["this", "it", "it's", "so", "again", "yes", "yeah", "no", "exactly", "right", "same"]);
const CONTINUATION_START = new Set(["because", "which", "whereas", "who", "whom", "whose", "cause", "'cause"]);
const WEAK_OPENERS = new Set(["so", "well", "yeah", "um", "uh", "like", "okay", "ok", "and", "but", "right", "oh", "mm", "hmm"]);

function firstWords(text: string, n: number): string[] {
  return text
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}']+/u, "")
    .split(/[\s,;:.!?]+/)
    .filter(Boolean)
    .slice(0, n);
}

export function sentenceFeatures(text: string, nlp: SentenceNlp): SentenceFeatures {
  const lower = text.toLowerCase();
  const words = nlp.tokens.filter((t) => t.type === "word" || t.type === "number").length || lower.split(/\s+/).length;
  const [w0 = "", w1 = ""] = firstWords(text, 2);

  // "one" is mostly a pronoun ("one by one", "the right one"), not a figure.
  const numericTokens = nlp.tokens.filter((t) => (t.pos === "NUM" || t.type === "number") && t.norm !== "one").length;
  const moneyOrPercent = (lower.match(/%|\bpercent\b|\$|£|€|\bmillion\b|\bbillion\b|\bthousand\b|\bhundred\b/g) ?? []).length;
  const numbers = numericTokens + moneyOrPercent;
  const digits = (text.match(/\d[\d,.]*/g) ?? []).length;
  const quantities = moneyOrPercent + digits;

  const superlative =
    nlp.tokens.filter((t) => SUPERLATIVE_WORDS.has(t.norm) || (t.pos === "ADJ" && /[a-z]{3,}est$/.test(t.norm))).length;

  // A bare verb at the start of a sentence is an imperative ("Write it down.").
  const firstTagged = nlp.tokens.find((t) => t.type === "word");
  const imperative = firstTagged?.pos === "VERB" && !/(?:ing|ed)$/.test(firstTagged.norm) ? 1 : 0;

  let dangling: SentenceFeatures["dangling"] = null;
  if (HARD_DANGLING.has(w0)) dangling = "hard";
  else if (SOFT_DANGLING.has(w0)) dangling = "soft";
  // "This is Diane": an introduction, not a pointer back. ("It was a Tuesday" usually does point back.)
  if (w0 === "this" && w1 === "is") dangling = null;

  const fillers = (lower.match(FILLERS) ?? []).length;
  const setup = /:\s*$/.test(text.trim()) || /\b(?:here'?s (?:the thing|what|why|how)|let me tell you|guess what|listen)\b/.test(lower);

  return {
    words,
    question: /\?["'”’)]*\s*$/.test(text.trim()),
    numbers,
    quantities,
    contrast: has(lower, CONTRAST),
    superlative,
    advice: has(lower, ADVICE) + imperative,
    story: has(lower, STORY),
    insight: has(lower, INSIGHT),
    hotTake: has(lower, HOT_TAKE),
    humor: has(lower, HUMOR),
    emotion: Math.abs(nlp.sentiment) + has(lower, EMOTION) * 0.5,
    sentiment: nlp.sentiment,
    fillers,
    dangling,
    continuation: CONTINUATION_START.has(w0),
    setup,
    weakOpener: WEAK_OPENERS.has(w0),
  };
}

const sat = (x: number, k: number): number => 1 - Math.exp(-x / k);

/**
 * How strongly a sentence grabs on its own, 0..1: used for the hook, the body and the pull quote.
 * Saturating sums, so one strong signal counts and ten weak ones do not run away.
 */
export function sentenceInterest(f: SentenceFeatures): number {
  const signal =
    (f.question ? 0.5 : 0) +
    0.6 * sat(f.numbers, 1.5) +
    0.45 * sat(f.contrast, 1) +
    0.35 * sat(f.superlative, 1.2) +
    0.5 * sat(f.advice, 1) +
    0.45 * sat(f.story, 1) +
    0.55 * sat(f.insight, 1) +
    0.6 * sat(f.hotTake, 1) +
    0.45 * sat(f.humor, 1) +
    0.5 * sat(f.emotion, 0.8);
  let v = sat(signal, 0.9);
  // Very short lines ("Hello?") and rambling ones are weak on their own.
  if (f.words < 4) v *= 0.35;
  else if (f.words < 7) v *= 0.75;
  else if (f.words > 40) v *= 0.8;
  v *= 1 - Math.min(0.5, (f.fillers / Math.max(1, f.words)) * 4);
  return Math.max(0, Math.min(1, v));
}
