/**
 * Elisions and clitics joined as the language writes them. faster-whisper starts a new word at an
 * apostrophe (it is one of its "prepend" punctuation marks), so French "c'est" comes out as "c" and
 * "'est", Italian "dell'anno" as "dell" and "'anno"; whisper.cpp instead leaves the apostrophe on the
 * first piece ("l'" + "actualité"). Either way the two pieces are one written word: here they become
 * one transcript word, timed from the first piece's start to the second's end, so the transcript,
 * captions, quotes and notes all read "c'est".
 *
 * English keeps its pieces ("'s", "n't" are joined in the text by joinWords, and a leading
 * apostrophe is often a word of its own: "'cause", "rock 'n' roll"); Dutch keeps "'s" and "'t", which
 * are words of their own there ("'s avonds", "'t huis").
 */
import { baseLanguage } from "../language/rules.ts";

interface Piece {
  word: string;
  start: number;
  end: number;
  p?: number;
}

/** Languages that write elisions or clitics against the next or previous word with an apostrophe. */
const ELIDING = new Set(["fr", "it", "ca", "oc", "pt", "es", "de", "nl", "lb", "ga", "br", "wa"]);
const DUTCH_ARTICLES = new Set(["'s", "'t", "’s", "’t"]);
/** Pieces further apart than this are two words, whatever their spelling. */
const MAX_GAP_SECONDS = 0.3;

const startsWithApostrophe = /^['’]\p{L}/u;
const endsWithApostrophe = /\p{L}['’]$/u;
const endsWithLetter = /\p{L}$/u;
const startsWithLetter = /^\p{L}/u;

export function joinElisions<W extends Piece>(words: W[], language: string | undefined): W[] {
  const lang = baseLanguage(language);
  if (!ELIDING.has(lang)) return words;
  const out: W[] = [];
  for (const w of words) {
    const prev = out[out.length - 1];
    const text = w.word.trim();
    const close = prev !== undefined && w.start - prev.end <= MAX_GAP_SECONDS;
    const leading = close && startsWithApostrophe.test(text) && endsWithLetter.test(prev!.word.trim()) && !(lang === "nl" && DUTCH_ARTICLES.has(text.toLowerCase()));
    const trailing = close && endsWithApostrophe.test(prev!.word.trim()) && startsWithLetter.test(text);
    if (leading || trailing) {
      const p = prev!.p === undefined || w.p === undefined ? (prev!.p ?? w.p) : Math.min(prev!.p, w.p);
      out[out.length - 1] = { ...prev!, word: prev!.word.trim() + text, end: Math.max(prev!.end, w.end), ...(p === undefined ? {} : { p }) };
    } else out.push(w);
  }
  return out;
}
