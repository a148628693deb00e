/**
 * Moves speaker changes onto sentence boundaries after word-level speaker assignment.
 *
 * A diarizer labels words by short acoustic windows, so a change of speaker often lands one or two
 * words early or late ("… great performance. Thank" / "you. Jack, …"); every later stage (sentences,
 * clips, quotes) would inherit the split sentence. As in WhisperX-style assignment with punctuation-aware
 * realignment, each change inside a sentence is moved to the best sentence end within a few words
 * (preferring one followed by a pause), provided the words that change speaker carry little evidence for
 * the speaker they leave. A change stays where it is when more than `keepSeconds` of that speaker's
 * speech backs it, or when the text itself starts a new sentence there (an unpunctuated word followed by
 * a capital: whisper's mark of an interruption). Clause ends (commas) are not targets: a change moved to
 * a comma still splits the sentence, and the words after an interrupter's comma ("No, wait, …") are
 * the interrupter's. A turn of a few words that is not a whole sentence is merged into its neighbours.
 * Where a change stays at a sentence start whisper left unpunctuated, the stop (or, for a turn cut off,
 * the dash) it left out is written on the turn's last word.
 */
import { OPEN_END_WORDS } from "../highlights/sentence-edges.ts";
import { endsSentence } from "../highlights/sentences.ts";
import type { Word } from "../types.ts";

/** A stretch of one speaker's speech from the diarizer: the acoustic evidence words are weighed with. */
export interface EvidenceTurn {
  speaker: string;
  start: number;
  end: number;
}

export interface RealignOptions {
  /** Farthest a change moves, in words... */
  maxWords: number;
  /** ...and in seconds of speech that changes speaker (a pause it crosses does not count: turns change in pauses). */
  maxSeconds: number;
  /** Words with more evidence than this (seconds) for the speaker they would leave keep their label. */
  keepSeconds: number;
  /** Seconds of evidence a pause after the new boundary is worth, per second of pause (up to 1 s). */
  pauseWeight: number;
  /**
   * A short turn does not join a neighbour across a pause this long (seconds): the diarizer's slips
   * are at the edges of speech, and a word said seconds before or after the next person's sentence
   * ("Okay," … 4 s … "does anyone want …") is its own turn whatever whisper's punctuation says.
   */
  joinAcrossPause: number;
  /**
   * Who spoke when, from the diarizer. Without it a word's evidence is its whole duration for the
   * speaker it was given, so only short stretches (under `keepSeconds`) ever move.
   */
  turns?: EvidenceTurn[];
}

export const DEFAULT_REALIGN: RealignOptions = { maxWords: 3, maxSeconds: 1.5, keepSeconds: 1, pauseWeight: 0.5, joinAcrossPause: 2 };

/** Whether a sentence ends after word k (the start and the end of the transcript count as ends). */
function sentenceEndAfter(words: Word[], k: number): boolean {
  if (k < 0 || k >= words.length - 1) return true;
  return endsSentence(words[k]!.word, words[k + 1]!.word);
}

/**
 * Capitalised words that open sentences and are almost never a name: after an unpunctuated word they
 * mean whisper started a new sentence, whatever came before ("New Jersey | Well, …").
 */
const OPENERS = new Set(
  "so and but or well yeah yes yep no nope oh okay ok right sure hello hi hey thank thanks what why how when where who which that this these those there then it it's its we we're you you're they they're he he's she she's my our your the a an if because now just maybe actually exactly absolutely alright um uh hmm do does did is are was were can could would should will let's not of in on at for with to".split(" "),
);

/** Words after which a capital is a name's ("in | Texas", "the | Beatles", "with | Josh"), not a new sentence. */
const BEFORE_NAMES = new Set([...OPEN_END_WORDS, ..."in on at to from of with for by about into like than as called named dear mr mrs ms dr".split(" ")]);

const bare = (token: string) => token.trim().replace(/^["'“‘(]+/, "").replace(/[^\p{L}\p{N}'’]+$/u, "");

/**
 * Whether whisper's text starts a new sentence after word i without punctuating the end of the one
 * before: a capital after an unpunctuated word ("maybe | No."), which is where an interruption shows in
 * text. "I" is no sign, nor is a capital that continues a name ("New | Jersey", "in | Texas"): a
 * capitalised word after another capitalised word or after a word that introduces names only counts
 * when it is one that opens sentences.
 */
export function textStartsSentence(words: Word[], i: number): boolean {
  if (i < 0 || i >= words.length - 1) return false;
  const next = bare(words[i + 1]!.word);
  if (!/^\p{Lu}/u.test(next) || /^I(?:['’][a-z]+)?$/.test(next)) return false;
  if (OPENERS.has(next.toLowerCase())) return true;
  const prev = bare(words[i]!.word);
  return !/^\p{Lu}/u.test(prev) && !BEFORE_NAMES.has(prev.toLowerCase());
}

const textRunsOn = (words: Word[], i: number) => !textStartsSentence(words, i);

/** A sentence ends after word k by its punctuation or by the text starting a new one. */
const boundaryAfter = (words: Word[], k: number) => sentenceEndAfter(words, k) || textStartsSentence(words, k);

const overlap = (a: number, b: number, t: EvidenceTurn) => Math.max(0, Math.min(b, t.end) - Math.max(a, t.start));

/** Seconds of evidence that words[from..to] belong to `own` rather than `other`. */
function evidence(words: Word[], from: number, to: number, own: string, other: string, turns: EvidenceTurn[] | undefined): number {
  let s = 0;
  for (let j = from; j <= to; j++) {
    const w = words[j]!;
    if (!turns) {
      s += Math.max(0, w.end - w.start);
      continue;
    }
    for (const t of turns) {
      if (t.speaker === own) s += overlap(w.start, w.end, t);
      else if (t.speaker === other) s -= overlap(w.start, w.end, t);
    }
  }
  return s;
}

const gapAfter = (words: Word[], k: number) => (k + 1 < words.length ? Math.max(0, words[k + 1]!.start - words[k]!.end) : 0);

/**
 * Merges short turns (up to `maxWords` words, no more than `keepSeconds` of evidence) that are not whole
 * sentences into the neighbour whose sentence they belong to: a turn that starts a sentence joins the
 * speaker who finishes it, one that ends a sentence joins the speaker who began it, one inside a
 * sentence joins the speaker around it (or, between two others, the one across the shorter pause). A
 * capital where a merged boundary was is a new sentence in whisper's text, and stops the merge.
 */
function mergeShortTurns(words: Word[], labels: string[], o: RealignOptions): void {
  let a = 0;
  while (a < words.length) {
    let b = a;
    while (b + 1 < words.length && labels[b + 1] === labels[a]) b++;
    const left = a > 0 && gapAfter(words, a - 1) < o.joinAcrossPause ? labels[a - 1] : undefined;
    const right = b + 1 < words.length && gapAfter(words, b) < o.joinAcrossPause ? labels[b + 1] : undefined;
    const startsSentence = boundaryAfter(words, a - 1);
    const endsSentence = boundaryAfter(words, b);
    if (b - a + 1 <= o.maxWords && (left !== undefined || right !== undefined) && !(startsSentence && endsSentence)) {
      let into: string;
      if (left === undefined || right === undefined) into = (left ?? right)!;
      else if (left === right) into = left;
      else if (startsSentence) into = right;
      else if (endsSentence) into = left;
      else into = gapAfter(words, a - 1) <= gapAfter(words, b) ? left : right;
      // Between two turns of one speaker, a turn may also start a sentence of theirs after a punctuated
      // end ("Hours. | The | show about …"): whisper places the first word after a pause early, into
      // whatever sound filled it (a laugh, the end of a tune), whose voice the diarizer then gives it. A
      // capital after an unpunctuated word is still whisper's mark of an interjection ("was | Right, sure
      // | that …"), and stops it. (Letting a turn end a sentence of theirs the same way, "Smile | for the
      // camera. | Hello.", gave crosstalk on meeting_trn08 to one voice: 51.0 → 54.4 % transcript DER.)
      const opensTheirs = into === left && into === right && sentenceEndAfter(words, a - 1) && textRunsOn(words, b);
      const runsOn = opensTheirs || ((into !== left || textRunsOn(words, a - 1)) && (into !== right || textRunsOn(words, b)));
      if (runsOn && evidence(words, a, b, labels[a]!, into, o.turns) <= o.keepSeconds) {
        for (let j = a; j <= b; j++) labels[j] = into;
        // The merged turn may itself be short now: look at it again from its first word.
        while (a > 0 && labels[a - 1] === into) a--;
        continue;
      }
    }
    a = b + 1;
  }
}

/** Moves the change between words i and i+1 to a sentence end nearby, if one qualifies. */
function realignChange(words: Word[], labels: string[], i: number, o: RealignOptions): void {
  if (boundaryAfter(words, i)) return;
  const a = labels[i]!;
  const b = labels[i + 1]!;
  let best: { k: number; cost: number } | undefined;
  for (let k = i - o.maxWords; k <= i + o.maxWords; k++) {
    if (k === i || k < 0 || k >= words.length - 1) continue;
    if (!boundaryAfter(words, k)) continue;
    // The moved words are one side's, and that side keeps at least one word of its turn.
    const [from, to, own, other] = k < i ? [k + 1, i, a, b] : [i + 1, k, b, a];
    // How far is the speech that moves (a pause it crosses is where turns change, not speech moved).
    if (words[to]!.end - words[from]!.start > o.maxSeconds) continue;
    const [lo, hi] = k < i ? [k, to] : [from, k + 1];
    if (labels.slice(lo, hi + 1).some((l) => l !== own)) continue;
    const ev = evidence(words, from, to, own, other, o.turns);
    if (ev > o.keepSeconds) continue;
    const cost = ev - o.pauseWeight * Math.min(1, gapAfter(words, k));
    if (!best || cost < best.cost) best = { k, cost };
  }
  if (!best) return;
  if (best.k < i) for (let j = best.k + 1; j <= i; j++) labels[j] = b;
  else for (let j = i + 1; j <= best.k; j++) labels[j] = a;
}

/**
 * The punctuation whisper left out where its text starts a new sentence and the speaker changes: a dash
 * (cut off) when the turn cannot have ended there (on "the", "and", "of", …), the next speaker came in
 * before its last word ended, or the speaker carries on in lower case after the other's turn; else a
 * full stop. The capital is whisper's own sign of a new sentence; it only drops the mark before it
 * because it transcribes as if one person spoke, and a turn that simply ended is far more common than
 * one cut off (on the phone call every such mark is a full stop in the human transcript). Changes inside
 * running text (a lower-case word after the change) are left as they are: nothing in the text says a
 * sentence ended there, unless the change comes after a pause of `joinAcrossPause` (endsInPause).
 */
function closeTurn(words: Word[], labels: string[], i: number, o: RealignOptions): string {
  const token = words[i]!.word;
  if (sentenceEndAfter(words, i) || !(textStartsSentence(words, i) || endsInPause(words, i, o))) return token;
  // Already closed ("etc." before a lower-case word): the next turn's capital is all it lacks.
  if (/[.…—!?]["'”’)\]]*$/.test(token)) return token;
  const m = /^(.*?)([,;:]?)(["'”’)\]]*)$/s.exec(token)!;
  // The speaker carries on in lower case after the other's turn: the sentence was interrupted, not over.
  let j = i + 1;
  while (j < words.length && labels[j] === labels[i + 1]) j++;
  const resumes = j < words.length && labels[j] === labels[i] && !textStartsSentence(words, j - 1) && !sentenceEndAfter(words, j - 1);
  const cutOff = resumes || BEFORE_NAMES.has(bare(token).toLowerCase()) || words[i + 1]!.start < words[i]!.end;
  return `${m[1]}${cutOff ? "—" : fullStopFor(m[1]!)}${m[3]}`;
}

/**
 * The full stop of the script a word is written in: Chinese and Japanese end sentences with "。", Hindi
 * and Marathi with "।"; Thai writes none (a space ends a sentence, so nothing is added).
 */
function fullStopFor(word: string): string {
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u.test(word)) return "。";
  if (/\p{Script=Devanagari}$/u.test(word)) return "।";
  if (/\p{Script=Thai}$/u.test(word)) return "";
  return ".";
}

/**
 * A change of speaker across a pause of `joinAcrossPause` or more ends the turn before it whatever the
 * text says: whisper, transcribing as if one person spoke, runs "Okay," into the next person's
 * question four seconds later.
 */
const endsInPause = (words: Word[], i: number, o: RealignOptions) => gapAfter(words, i) >= o.joinAcrossPause;

/** The first letter up, for a turn that starts a sentence whisper wrote as running on ("does" → "Does"). */
const capitalised = (token: string) => token.replace(/^(["'“‘(]*)(\p{Ll})/u, (_, q: string, c: string) => q + c.toUpperCase());

/**
 * Words with their speaker changes moved onto sentence boundaries where the acoustic evidence allows,
 * and the sentence end whisper's text implies written where a change stays at one (after a long pause,
 * with the next turn's first letter capitalised).
 */
export function realignTurns(words: Word[], opts: Partial<RealignOptions> = {}): Word[] {
  const o = { ...DEFAULT_REALIGN, ...opts };
  const labels = words.map((w) => w.speaker);
  mergeShortTurns(words, labels, o);
  for (let i = 0; i < words.length - 1; i++) if (labels[i] !== labels[i + 1]) realignChange(words, labels, i, o);
  mergeShortTurns(words, labels, o);
  return words.map((w, i) => {
    let word = i + 1 < words.length && labels[i] !== labels[i + 1] ? closeTurn(words, labels, i, o) : w.word;
    if (i > 0 && labels[i - 1] !== labels[i] && endsInPause(words, i - 1, o) && !sentenceEndAfter(words, i - 1)) word = capitalised(word);
    return labels[i] === w.speaker && word === w.word ? w : { ...w, speaker: labels[i]!, word };
  });
}
