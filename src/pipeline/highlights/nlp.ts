/**
 * The one adapter over wink-nlp (English lite model, bundled on npm, runs in-process in a few ms per
 * page of text). Everything downstream works on the plain `SentenceNlp` records it returns, so the
 * ranking and show-notes logic can be tested without caring how tokens were tagged.
 */
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";

export interface NlpToken {
  text: string;
  /** Lower-cased normal form. */
  norm: string;
  /** Universal POS tag (NOUN, VERB, PROPN, ...). */
  pos: string;
  /** wink's token type: word, number, punctuation, url, email, hashtag, mention, emoji, ... */
  type: string;
  stop: boolean;
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

function instance(): Wink {
  // The model is ~4 MB of JSON; load it once, on first use, not at import.
  nlp ??= winkNLP(model, ["sbd", "negation", "sentiment", "pos", "ner"]);
  return nlp;
}

/** Tags one sentence. Multiple wink "sentences" inside it (e.g. "Hello? Hello?") are merged. */
export function analyzeSentence(text: string): SentenceNlp {
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

export function analyzeSentences(texts: string[]): SentenceNlp[] {
  return texts.map(analyzeSentence);
}
