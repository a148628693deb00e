/**
 * The one adapter over wink-nlp (English lite model, bundled on npm, runs in-process in a few ms per
 * page of text) and, for every other language, the locale's word boundaries and stop words
 * (language/rules.ts). Everything downstream works on the plain `SentenceNlp` records it returns, so the
 * ranking and show-notes logic can be tested without caring how tokens were tagged.
 */
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";
import { baseLanguage, isEnglish, linkWords, stopWords, wordPieces } from "../language/rules.ts";

export interface NlpToken {
  text: string;
  /** Lower-cased normal form. */
  norm: string;
  /** Universal POS tag (NOUN, VERB, PROPN, ...). */
  pos: string;
  /** wink's token type: word, number, punctuation, url, email, hashtag, mention, emoji, ... */
  type: string;
  stop: boolean;
  /** A preposition that may join two noun groups in a title (languages other than English). */
  link?: boolean;
}

export interface NlpEntity {
  value: string;
  type: string;
}

export interface SentenceNlp {
  tokens: NlpToken[];
  /** wink's sentiment score, -1..1. */
  sentiment: number;
  entities: NlpEntity[];
}

type Wink = ReturnType<typeof winkNLP>;
let nlp: Wink | null = null;
/** Ids below this are the model's own lexicon; words it has never seen get ids from here up. */
let lexiconSize = 0;

function instance(): Wink {
  if (nlp) return nlp;
  // The model is ~4 MB of JSON; load it once, on first use, not at import.
  nlp = winkNLP(model, ["sbd", "negation", "sentiment", "pos", "ner"]);
  // wink numbers unseen words after its lexicon, per instance: the first unseen word read by a new
  // instance gets exactly the lexicon's size (wink exposes it no other way).
  lexiconSize = nlp.readDoc("qzxjvkwqz").tokens().out(nlp.its.uniqueId)[0] as number;
  return nlp;
}

/**
 * Whether an English word is a common word: in wink's lexicon and, lower-cased and alone, not tagged
 * a proper noun ("beekeeper", "hope", "apple"). The lexicon holds few personal or place names
 * ("walter", "chicago" are not in it; "texas" is, tagged PROPN), so a capitalised word inside a
 * sentence that is a common word may be the recogniser's capital after a sentence break it did not
 * punctuate ("… pulled in I retired Beekeeper waiting …") rather than a name.
 */
export function isCommonWord(word: string): boolean {
  const w = instance();
  const tokens = w.readDoc(word.toLowerCase()).tokens();
  const ids = tokens.out(w.its.uniqueId) as number[];
  return ids.length === 1 && ids[0]! < lexiconSize && tokens.out(w.its.pos)[0] !== "PROPN";
}

/** Languages that write an elided article or preposition against the next word ("l'actualité", "dell'anno"). */
const ELIDING = new Set(["fr", "it", "ca", "oc"]);
const ELIDED = /^(\p{L}{1,5}['’])(\p{L}.*)$/u;

/**
 * A sentence in a language wink does not model: the locale's words, numbers as NUM, stop words as
 * function words, a capital inside the sentence as a proper noun, any other word as a noun (so noun
 * groups are runs of content words). No sentiment or entities: wink's are English-only.
 */
function analyzeOtherLanguage(text: string, language: string): SentenceNlp {
  const stops = stopWords(language);
  const links = linkWords(language);
  const tokens: NlpToken[] = [];
  let first = true;
  const push = (piece: string, wordLike: boolean) => {
    const norm = piece.toLowerCase();
    if (!wordLike) {
      tokens.push({ text: piece, norm, pos: "PUNCT", type: "punctuation", stop: false });
      return;
    }
    const number = /^\p{N}/u.test(piece);
    const stop = stops.has(norm) || stops.has(norm.replace(/['’]$/, ""));
    const capital = /^\p{Lu}/u.test(piece);
    const pos = number ? "NUM" : stop ? "X" : capital && !first ? "PROPN" : "NOUN";
    tokens.push({ text: piece, norm, pos, type: number ? "number" : "word", stop, ...(links.has(norm) ? { link: true } : {}) });
    first = false;
  };
  for (const p of wordPieces(text, language)) {
    const elided = p.wordLike && ELIDING.has(baseLanguage(language)) ? ELIDED.exec(p.text) : null;
    if (elided) {
      push(elided[1]!, true);
      push(elided[2]!, true);
    } else push(p.text, p.wordLike);
  }
  return { tokens, sentiment: 0, entities: [] };
}

/** Tags one sentence. Multiple wink "sentences" inside it (e.g. "Hello? Hello?") are merged. */
export function analyzeSentence(text: string, language?: string): SentenceNlp {
  if (!isEnglish(language)) return analyzeOtherLanguage(text, language!);
  const w = instance();
  const its = w.its;
  const doc = w.readDoc(text);
  const tokens: NlpToken[] = [];
  doc.tokens().each((t: any) => {
    tokens.push({
      text: t.out(),
      norm: String(t.out(its.normal)),
      pos: String(t.out(its.pos)),
      type: String(t.out(its.type)),
      stop: Boolean(t.out(its.stopWordFlag)),
    });
  });
  const entities = (doc.entities().out(its.detail) as unknown as Array<{ value: string; type: string }>).map((e) => ({
    value: e.value,
    type: e.type,
  }));
  return { tokens, sentiment: Number(doc.out(its.sentiment)) || 0, entities };
}

export function analyzeSentences(texts: string[], language?: string): SentenceNlp[] {
  return texts.map((t) => analyzeSentence(t, language));
}
