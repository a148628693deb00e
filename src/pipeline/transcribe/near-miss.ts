/**
 * After recognition, a near-miss spelling of a vocabulary entry is replaced by the entry's spelling
 * ("Kyle Gas" -> "Kyle Gass", "Roofop Hours" -> "Rooftop Hours"). A change needs the sound and the
 * spelling to agree, word by word, and something that says the recogniser heard a name; anything
 * less leaves the words as they are, since a wrong "correction" is worse than a misspelling:
 *
 * - a word is a near miss of an entry's word when both start with the same letter, their letters are
 *   at most 1 edit apart (2 from 6 letters, 3 from 10) and their Double Metaphone keys are equal or,
 *   for keys of 3 or more sounds, one sound apart;
 * - a multi-word entry matches as many words, one of which is already spelled right, or all of which
 *   the recogniser capitalised (it heard a name); or as one word more or fewer whose letters are
 *   exactly the entry's ("Roof top Hours");
 * - a one-word entry only replaces a capitalised word that does not start a sentence: "gas prices"
 *   never becomes "Gass prices";
 * - the words of a multi-word match have no punctuation between them ("Kyle. Gas prices" stays);
 * - an entry word of under 4 letters is only matched exactly: short words have too many neighbours.
 */
import { doubleMetaphone } from "double-metaphone";
import { distance } from "fastest-levenshtein";

interface TimedWord {
  word: string;
  start: number;
  end: number;
  p?: number;
}

/** A word split into what surrounds it and its letters: `"(Gas's,"` -> `"("`, `"Gas"`, `"'s,"`. */
interface Parts {
  lead: string;
  core: string;
  tail: string;
}

function parts(word: string): Parts {
  const m = /^([^\p{L}\p{N}]*)(.*?)((?:['’]s)?[^\p{L}\p{N}]*)$/u.exec(word)!;
  return { lead: m[1]!, core: m[2]!, tail: m[3]! };
}

const letters = (s: string) => s.toLocaleLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
const capitalised = (s: string) => /^\p{Lu}/u.test(s);

function keys(word: string): string[] {
  const [a, b] = doubleMetaphone(letters(word));
  return a === b ? [a] : [a, b];
}

/** Most letters apart a near miss may be, by the length of the entry's word. */
function spellingSlack(length: number): number {
  return length >= 10 ? 3 : length >= 6 ? 2 : 1;
}

function soundsAlike(heard: string, listed: string): boolean {
  for (const h of keys(heard)) {
    for (const l of keys(listed)) {
      if (!h || !l) continue;
      if (h === l) return true;
      if (Math.min(h.length, l.length) >= 3 && distance(h, l) <= 1) return true;
    }
  }
  return false;
}

/** `heard` is `listed` misspelled (not the same word, not another word that merely looks alike). */
export function isNearMiss(heard: string, listed: string): boolean {
  const h = letters(heard);
  const l = letters(listed);
  if (!h || !l || h === l || l.length < 4) return false;
  if (h[0] !== l[0]) return false;
  if (distance(h, l) > spellingSlack(l.length)) return false;
  return soundsAlike(h, l);
}

interface Entry {
  text: string;
  tokens: string[];
  letters: string;
}

function entriesOf(vocabulary: readonly string[]): Entry[] {
  return vocabulary
    .map((text) => ({ text, tokens: text.split(" ").filter((t) => letters(t)), letters: letters(text) }))
    .filter((e) => e.tokens.length > 0)
    // Longer entries first: "Kyle Gass" is tried before a listed "Gass" alone.
    .sort((a, b) => b.tokens.length - a.tokens.length);
}

const endsSentence = (w: TimedWord | undefined) => !w || /[.!?…]["”’)]*$/.test(w.word);

/** Words with punctuation between them ("roof top. Hours later", "Kyle. Gas") are two phrases, not one name. */
const brokenByPunctuation = (span: readonly TimedWord[]) =>
  span.slice(0, -1).some((w) => parts(w.word).tail !== "") || span.slice(1).some((w) => parts(w.word).lead !== "");

/**
 * How the words from `at` onwards spell `entry`: the words each entry token replaces, or undefined
 * where they are not a near miss of it (or are already spelled exactly so).
 */
function matchAt(words: readonly TimedWord[], at: number, entry: Entry): number[] | undefined {
  const n = entry.tokens.length;
  const same = words.slice(at, at + n);
  if (same.length === n && !brokenByPunctuation(same)) {
    const cores = same.map((w) => parts(w.word).core);
    const exact = cores.map((c, i) => letters(c) === letters(entry.tokens[i]!));
    if (!exact.every(Boolean) && cores.every((c, i) => exact[i] || isNearMiss(c, entry.tokens[i]!))) {
      const named = n === 1 ? capitalised(cores[0]!) && !endsSentence(words[at - 1]) : exact.some(Boolean) || cores.every(capitalised);
      if (named) return entry.tokens.map(() => 1);
    }
  }
  // A name heard as one word more or fewer: only with exactly the entry's letters.
  for (const k of [n + 1, n - 1]) {
    if (k < 1 || at + k > words.length) continue;
    const span = words.slice(at, at + k);
    if (span.map((w) => letters(parts(w.word).core)).join("") !== entry.letters) continue;
    if (span.map((w) => parts(w.word).core).join(" ") === entry.text) continue;
    if (brokenByPunctuation(span)) continue;
    const grouping = groupLetters(span.map((w) => letters(parts(w.word).core)), entry.tokens.map(letters));
    if (grouping) return grouping;
  }
  return undefined;
}

/** How many consecutive words spell each token (each at least one), or undefined if they do not line up. */
function groupLetters(words: string[], tokens: string[]): number[] | undefined {
  if (words.length < tokens.length) {
    // Fewer words than tokens: a word holds several tokens; handled as one word for the joined tokens.
    return words.length === 1 ? [1] : undefined;
  }
  const counts: number[] = [];
  let i = 0;
  for (const t of tokens) {
    let acc = "";
    let c = 0;
    while (i < words.length && acc.length < t.length) acc += words[i++]!, c++;
    if (acc !== t || c === 0) return undefined;
    counts.push(c);
  }
  return i === words.length ? counts : undefined;
}

export interface Correction {
  from: string;
  to: string;
  start: number;
}

/**
 * The words with near misses of the vocabulary replaced by its spellings, and what was replaced. A
 * replaced stretch keeps its first word's start, its last word's end and punctuation, and the lowest
 * confidence of its words.
 */
export function correctNearMisses<W extends TimedWord>(words: readonly W[], vocabulary: readonly string[]): { words: W[]; corrections: Correction[] } {
  const entries = entriesOf(vocabulary);
  if (!entries.length) return { words: [...words], corrections: [] };
  const out: W[] = [];
  const corrections: Correction[] = [];
  for (let i = 0; i < words.length; ) {
    let replaced = false;
    for (const entry of entries) {
      const counts = matchAt(words, i, entry);
      if (!counts) continue;
      const span = words.slice(i, i + counts.reduce((a, b) => a + b, 0));
      // One word for several tokens ("RooftopHours"): the entry's text as one word.
      const tokens = counts.length === entry.tokens.length ? entry.tokens : [entry.text];
      let k = 0;
      tokens.forEach((token, t) => {
        const group = span.slice(k, k + counts[t]!);
        k += counts[t]!;
        const first = group[0]!;
        const last = group[group.length - 1]!;
        const ps = group.map((w) => w.p).filter((p): p is number => typeof p === "number");
        out.push({ ...first, word: parts(first.word).lead + token + parts(last.word).tail, end: last.end, ...(ps.length ? { p: Math.min(...ps) } : {}) });
      });
      corrections.push({ from: span.map((w) => w.word).join(" "), to: tokens.join(" "), start: span[0]!.start });
      i += span.length;
      replaced = true;
      break;
    }
    if (!replaced) out.push(words[i++]!);
  }
  return { words: out, corrections };
}
