/**
 * What the text stages need to know about a language beyond English: its stop words (stopwords-iso,
 * a maintained list per ISO 639-1 code), where its sentences end (Intl.Segmenter, ICU's rules for the
 * locale), its abbreviations, the small words that link two noun groups in a title, and how a title
 * is cased. English keeps wink-eng-lite-web-model (POS tags, entities, sentiment), which does more for
 * English than these rules can; every other language gets these rules, and a language without rules
 * of its own gets Intl's boundaries and no stop words, never English ones.
 */
import stopwordsIso from "stopwords-iso/stopwords-iso.json" with { type: "json" };
import { localeOf } from "./languages.ts";

/** Languages with their own abbreviations, link words, title casing and notes text (besides English). */
export const RULED_LANGUAGES = ["en", "fr", "de", "es", "it", "pt", "nl"] as const;
export type RuledLanguage = (typeof RULED_LANGUAGES)[number];

/** The transcript's language as a bare code ("fr"); "und" when the recogniser did not say. */
export function baseLanguage(language: string | undefined): string {
  const l = String(language ?? "").toLowerCase().split(/[-_]/)[0] ?? "";
  return /^[a-z]{2,3}$/.test(l) ? l : "und";
}

export function isRuled(language: string | undefined): language is RuledLanguage {
  return (RULED_LANGUAGES as readonly string[]).includes(baseLanguage(language));
}

/** English text rules apply: English, or a transcript that names no language (older transcripts, fixtures). */
export function isEnglish(language: string | undefined): boolean {
  const l = baseLanguage(language);
  return l === "en" || l === "und";
}

const STOPWORDS = stopwordsIso as Record<string, string[]>;
const stopCache = new Map<string, ReadonlySet<string>>();

/** The language's stop words, lower case; empty for a language stopwords-iso does not list. */
export function stopWords(language: string | undefined): ReadonlySet<string> {
  const l = baseLanguage(language);
  let s = stopCache.get(l);
  if (!s) {
    s = new Set((STOPWORDS[l] ?? []).map((w) => w.toLowerCase()));
    stopCache.set(l, s);
  }
  return s;
}

/** Prepositions that join two noun groups into one title phrase ("la gestion des déchets"). */
const LINK_WORDS: Record<string, ReadonlySet<string>> = {
  fr: new Set(["de", "du", "des", "d'", "sur", "pour", "avec", "en", "à", "au", "aux"]),
  de: new Set(["von", "vom", "für", "mit", "über", "im", "in", "auf", "aus", "zum", "zur", "der", "des"]),
  es: new Set(["de", "del", "sobre", "para", "con", "en"]),
  it: new Set(["di", "del", "della", "dei", "delle", "dello", "sul", "sulla", "per", "con", "in", "nel", "nella"]),
  pt: new Set(["de", "do", "da", "dos", "das", "sobre", "para", "com", "em", "no", "na"]),
  nl: new Set(["van", "voor", "over", "met", "in", "op", "uit"]),
};

export function linkWords(language: string | undefined): ReadonlySet<string> {
  return LINK_WORDS[baseLanguage(language)] ?? new Set();
}

/** Abbreviations whose full stop ends no sentence (lower case, without the final stop). */
const ABBREVIATIONS: Record<string, ReadonlySet<string>> = {
  fr: new Set(["m", "mme", "mlle", "dr", "pr", "st", "ste", "p. ex", "cf", "av", "bd", "env", "n°"]),
  de: new Set(["dr", "prof", "hr", "fr", "nr", "bzw", "z.b", "d.h", "u.a", "usw", "ca", "str", "vgl", "evtl", "ggf", "inkl"]),
  es: new Set(["sr", "sra", "srta", "dr", "dra", "ud", "uds", "p. ej", "av", "núm", "pág", "aprox"]),
  it: new Set(["sig", "sigg", "sig.ra", "dott", "dott.ssa", "prof", "ing", "avv", "pag", "ecc", "p. es"]),
  pt: new Set(["sr", "sra", "dr", "dra", "prof", "av", "pág", "p. ex", "n.º", "aprox"]),
  nl: new Set(["dhr", "mevr", "mw", "dr", "prof", "bijv", "bv", "o.a", "m.a.w", "d.w.z", "ca", "nr", "blz"]),
};

/** A full stop after one of the language's abbreviations, an initial, or (German) an ordinal number ("am 3. Oktober"). */
export function isLocalAbbreviation(token: string, language: string | undefined): boolean {
  const l = baseLanguage(language);
  const t = token.trim().replace(/["'”’»)\]}]+$/, "");
  if (!t.endsWith(".") || t.endsWith("..")) return false;
  const bare = t.replace(/\.+$/, "").replace(/^["'“‘«(]+/, "").toLowerCase();
  if (/^\p{Ll}$/u.test(bare)) return true;
  if (l === "de" && /^\d{1,2}$/.test(bare)) return true;
  return ABBREVIATIONS[l]?.has(bare) ?? false;
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(language: string | undefined, granularity: "sentence" | "word"): Intl.Segmenter {
  const locale = localeOf(baseLanguage(language));
  const key = `${locale}/${granularity}`;
  let s = segmenters.get(key);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity });
    segmenters.set(key, s);
  }
  return s;
}

/**
 * Whether ICU's sentence rules for the language put a boundary between `token` and the word after
 * it: "。" ends a Japanese sentence with no space, "¿" opens a Spanish one, and a full stop before a
 * lower-case word ends none.
 */
export function sentenceBreakBetween(token: string, next: string, language: string | undefined): boolean {
  const a = token.trim();
  const text = `${a} ${next.trim()}`;
  for (const s of segmenter(language, "sentence").segment(text)) if (s.index > 0 && s.index <= a.length + 1) return true;
  return false;
}

export interface WordPiece {
  text: string;
  /** A word (letters or digits), not punctuation or space. */
  wordLike: boolean;
}

/** Words and punctuation of a sentence by the locale's word boundaries (Chinese and Japanese without spaces included). */
export function wordPieces(text: string, language: string | undefined): WordPiece[] {
  const out: WordPiece[] = [];
  for (const s of segmenter(language, "word").segment(text)) {
    if (!s.segment.trim()) continue;
    out.push({ text: s.segment, wordLike: Boolean(s.isWordLike) });
  }
  return out;
}

/**
 * A title in the language's own casing: English capitalises each main word (titleCase in titles.ts);
 * French, Spanish, Italian, Portuguese, Dutch and German only the first word (German nouns keep the
 * capital the recogniser gave them), and words that carry a capital inside keep it.
 */
export function sentenceCase(text: string, language: string | undefined): string {
  const t = text.trim();
  if (!t) return t;
  const first = t.charAt(0);
  return first.toLocaleUpperCase(localeOf(baseLanguage(language))) + t.slice(1);
}

/** Scripts written without spaces between words: no space goes between two of their tokens. */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}\u3000-\u303f\uff00-\uffef]/u;

/** Two tokens of a spaceless script (or its full-width punctuation) meet with no space between them. */
export function joinsWithoutSpace(before: string, token: string): boolean {
  return SPACELESS.test(before.slice(-1)) && SPACELESS.test(token.charAt(0));
}
