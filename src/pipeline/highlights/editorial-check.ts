/**
 * Checks that a piece of editorial copy taken from a transcript (a clip, hook, pull quote or
 * takeaway) is something a producer could post unedited: it starts where a sentence starts, ends
 * where one ends by the evidence rule (sentence-edges.ts), and each sentence in it is grammatically
 * finished (wink POS tags: never ending on a conjunction, preposition or article, and with a verb).
 * Clip selection and copy (rank.ts, copy-units.ts) apply these rules; the bench and the tests use
 * them, on the transcript's own words, as the yardstick.
 */
import { analyzeSentence, type NlpToken } from "./nlp.ts";
import { isAbbreviation, isSentenceEnd, OPEN_END_WORDS, isSentenceStart, isSpokenWord } from "./sentence-edges.ts";
import type { Word } from "../types.ts";

/** Parts of speech a finished sentence never ends on. */
const OPEN_END_POS = new Set(["CCONJ", "SCONJ", "DET", "ADP"]);
/** Prepositions that also end phrasal verbs ("look it up.", "she gave in."), so a final one is fine. */
const PARTICLES = new Set(["up", "out", "down", "off", "in", "on", "over", "back", "away", "around", "through", "along", "by", "apart", "aside", "together", "before", "after", "since"]);
/** Prepositions a statement does not end on; a question may ("Where is she from?"). */
const PREPOSITIONS = new Set(["to", "of", "for", "with", "from", "at", "into", "onto", "than", "if", "about"]);

const words = (tokens: NlpToken[]) => tokens.filter((t) => t.type === "word" || t.type === "number");

/** The sentence's last word leaves it open ("… and", "… of the", "… on board was a crew of"). */
export function endsOpen(tokens: NlpToken[]): boolean {
  const ws = words(tokens);
  const last = ws[ws.length - 1];
  if (!last) return true;
  if (OPEN_END_WORDS.has(last.norm)) return true;
  const question = tokens.some((t) => t.text === "?" && tokens.indexOf(t) > tokens.indexOf(last));
  if (question) return false;
  if (!PREPOSITIONS.has(last.norm) && !OPEN_END_POS.has(last.pos)) return false;
  if (last.pos === "ADP" && PARTICLES.has(last.norm)) return false;
  // A preposition stranded after its verb closes the clause ("nothing to compare against", "what we
  // talked about"); after a noun or an adjective it still wants its object ("a crew of", "sorry to").
  const before = ws[ws.length - 2];
  return !(before && (before.pos === "VERB" || before.pos === "AUX") && (last.pos === "ADP" || PREPOSITIONS.has(last.norm)));
}

/**
 * Splits copy into its sentences at terminal punctuation followed by a capitalised word, the way a
 * reader would, independently of the pipeline's own splitter.
 */
export function textSentences(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const token of text.trim().split(/\s+/)) {
    if (current && /[.?!]["'”’)]*$/.test(current) && /^["'“‘(]*[\p{Lu}\p{N}]/u.test(token) && !isAbbreviation(current.split(" ").pop()!)) {
      out.push(current);
      current = "";
    }
    current = current ? `${current} ${token}` : token;
  }
  if (current) out.push(current);
  return out;
}

export type Incomplete = "lower_case_start" | "no_terminal_punctuation" | "truncated" | "open_end" | "no_verb";

/**
 * Why one sentence of copy is not a finished sentence, or null when it is. `tokens` are its wink
 * tags when already computed (the episode analysis has them); otherwise the sentence is tagged here.
 */
export function incompleteSentence(sentence: string, tokens?: NlpToken[]): Incomplete | null {
  const s = sentence.trim();
  if (/(?:…|\.\.\.)$/.test(s)) return "truncated";
  if (!startsCapitalised(s)) return "lower_case_start";
  if (!/[.?!]["'”’)]*$/.test(s)) return "no_terminal_punctuation";
  const tags = tokens ?? analyzeSentence(s).tokens;
  if (endsOpen(tags)) return "open_end";
  // Questions and exclamations can be verbless ("Really?", "What a year!"); statements cannot.
  if (/\.["'”’)]*$/.test(s) && !tags.some((t) => t.pos === "VERB" || t.pos === "AUX")) return "no_verb";
  return null;
}

/** Reads as the start of a sentence: a capital letter or a digit, after any opening quote. */
export function startsCapitalised(text: string): boolean {
  return /^["'“‘(]*[\p{Lu}\p{N}]/u.test(text.trim());
}

/** Copy whose every sentence is finished. */
export function isCompleteText(text: string): boolean {
  const ss = textSentences(text);
  return ss.length > 0 && ss.every((s) => incompleteSentence(s) === null);
}

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/** Spoken words' normalised text run together, with the word index of every character. */
function wordStream(ws: Word[]): { text: string; owner: number[] } {
  let text = "";
  const owner: number[] = [];
  ws.forEach((w, i) => {
    if (!isSpokenWord(w)) return;
    const n = norm(w.word);
    text += n;
    for (let k = 0; k < n.length; k++) owner.push(i);
  });
  return { text, owner };
}

/**
 * Where verbatim copy sits in the transcript: the first and last word indices, or null when the copy
 * is not said word for word. Matches on letters and digits only, so how tokens were joined
 * ("3B -hives" / "3B-hives") does not matter. With `near`, the occurrence closest to that time wins.
 */
export function locateText(ws: Word[], text: string, near?: number): { first: number; last: number } | null {
  const needle = norm(text.replace(/…$/, ""));
  if (!needle) return null;
  const { text: hay, owner } = wordStream(ws);
  let best: { first: number; last: number } | null = null;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const span = { first: owner[at]!, last: owner[at + needle.length - 1]! };
    // A match that begins or ends inside a word is not the copy.
    if ((at > 0 && owner[at - 1] === span.first) || owner[at + needle.length] === span.last) continue;
    if (near === undefined) return span;
    if (!best || Math.abs(ws[span.first]!.start - near) < Math.abs(ws[best.first]!.start - near)) best = span;
  }
  return best;
}

export interface EdgeCheck {
  ok: boolean;
  /** What is wrong, for the bench's examples; empty when ok. */
  problems: string[];
}

/** A passage from word `first` to word `last` starts and ends on sentence edges by the evidence rule. */
export function checkSpanEdges(ws: Word[], first: number, last: number): EdgeCheck {
  const problems: string[] = [];
  if (!isSentenceStart(ws, first)) problems.push("starts mid-sentence");
  else if (!startsCapitalised(ws[first]!.word)) problems.push("starts in lower case");
  if (!isSentenceEnd(ws, last)) problems.push("ends without terminal punctuation and a pause");
  else {
    const tail = ws
      .slice(Math.max(first, last - 12), last + 1)
      .map((w) => w.word)
      .join(" ");
    if (endsOpen(analyzeSentence(tail).tokens)) problems.push("ends on a function word");
  }
  return { ok: problems.length === 0, problems };
}

/** Copy that is said verbatim, sits on sentence edges, and whose every sentence is finished. */
export function checkCopy(ws: Word[], text: string, near?: number): EdgeCheck {
  const span = locateText(ws, text, near);
  if (!span) return { ok: false, problems: ["not verbatim in the transcript"] };
  const edges = checkSpanEdges(ws, span.first, span.last);
  const bad = textSentences(text)
    .map((x) => incompleteSentence(x))
    .filter((x): x is Incomplete => x !== null);
  const problems = [...new Set([...edges.problems, ...bad.map((b) => b.replace(/_/g, " "))])];
  return { ok: problems.length === 0, problems };
}

/** The clip's first and last words by their times, then checkSpanEdges. */
export function checkClipEdges(ws: Word[], start: number, end: number): EdgeCheck {
  const first = ws.findIndex((w) => isSpokenWord(w) && Math.abs(w.start - start) < 1e-3);
  let last = -1;
  for (let i = ws.length - 1; i >= 0; i--) if (isSpokenWord(ws[i]!) && Math.abs(ws[i]!.end - end) < 1e-3) {
    last = i;
    break;
  }
  if (first < 0 || last < 0) return { ok: false, problems: ["not on word edges"] };
  return checkSpanEdges(ws, first, last);
}
