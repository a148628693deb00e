/**
 * Transcript corrections: a producer's fixes to what the recogniser heard ("beehides" for
 * "beehives"), applied to the words every caption, note and export is made from. Two kinds:
 * `replace` swaps whole words (case-insensitively, a phrase may span several words) everywhere;
 * `words` rewrites what was said between two times. The word list stays the one source of truth:
 * segments, captions and exports are rebuilt from it, and the text written from it earlier (hooks,
 * titles, notes) gets the same swaps as text.
 */
import { joinWords } from "./highlights/sentences.ts";
import { hashtag } from "./highlights/posting-copy.ts";
import type { Segment, Word } from "./types.ts";
import type { SpeakerEdit } from "./speaker-corrections.ts";

export interface ReplaceRule {
  find: string;
  with: string;
}

export interface WordsEdit {
  start_time: number;
  end_time: number;
  text: string;
}

export interface CorrectionRequest {
  replace?: ReplaceRule[];
  words?: WordsEdit[];
  /** Who said what (speaker-corrections.ts), applied after the words. */
  speakers?: SpeakerEdit[];
}

export interface CorrectedWords {
  words: Word[];
  /** Time spans whose words changed (before or after), for deciding which captions changed. */
  changed: Array<{ start: number; end: number }>;
  /** What text that was written from the old words must now say: the replace rules plus each words edit's old and new phrase. */
  rules: ReplaceRule[];
}

/** A word as matched: letters, digits and inner apostrophes/hyphens, lowercased. */
const bare = (token: string) =>
  token
    .trim()
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");

const split = (text: string) => text.split(/\s+/).filter(Boolean);

/** Punctuation around a token ("(beehides," → ["(", ","]), kept when the word inside is replaced. */
function wrapping(token: string): [string, string] {
  const t = token.trim();
  const lead = /^[^\p{L}\p{N}]*/u.exec(t)![0];
  const rest = t.slice(lead.length);
  const trail = /[^\p{L}\p{N}]*$/u.exec(rest)![0];
  return [lead, trail];
}

/** New words spread evenly over [start, end], keeping the speaker (and a word's leading space style) of the words they replace. */
function spread(texts: string[], start: number, end: number, speaker: string, lead: string): Word[] {
  const step = (end - start) / Math.max(1, texts.length);
  return texts.map((t, i) => ({ word: `${lead}${t}`, start: round3(start + i * step), end: round3(start + (i + 1) * step), speaker }));
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Carries the replaced text's capitals over: ALL CAPS stays all caps, Title Case words stay title
 * case (a title written from the old words), and a capital first letter (a sentence start) stays.
 * A replacement that has capitals of its own (a name) is kept as given otherwise.
 */
function matchCase(replacement: string, original: string): string {
  const letters = original.replace(/[^\p{L}]/gu, "");
  if (letters.length > 1 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return replacement.toUpperCase();
  const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const words = split(original).map((w) => w.replace(/^[^\p{L}]+/u, "")).filter(Boolean);
  if (words.length > 1 && words.every((w) => /^\p{Lu}/u.test(w))) return split(replacement).map(capital).join(" ");
  if (/^\p{Lu}/u.test(words[0] ?? "") && /^\p{Ll}/u.test(replacement)) return capital(replacement);
  return replacement;
}

function applyReplace(words: Word[], rule: ReplaceRule, changed: CorrectedWords["changed"]): Word[] {
  const find = split(rule.find).map(bare);
  const out: Word[] = [];
  for (let i = 0; i < words.length; ) {
    const window = words.slice(i, i + find.length);
    if (window.length === find.length && window.every((w, k) => bare(w.word) === find[k])) {
      const first = window[0]!;
      const last = window.at(-1)!;
      const [lead] = wrapping(first.word);
      const [, trail] = wrapping(last.word);
      const texts = split(matchCase(rule.with, first.word.trim().slice(lead.length)));
      if (texts.length) {
        texts[0] = lead + texts[0];
        texts[texts.length - 1] = texts.at(-1)! + trail;
      }
      const space = /^\s/.test(first.word) ? " " : "";
      out.push(...spread(texts, first.start, last.end, first.speaker, space).map((w, k) => (window.length === texts.length ? { ...w, start: window[k]!.start, end: window[k]!.end, ...(window[k]!.p !== undefined ? { p: 1 } : {}) } : w)));
      changed.push({ start: first.start, end: last.end });
      i += find.length;
    } else {
      out.push(words[i]!);
      i++;
    }
  }
  return out;
}

function applyWordsEdit(words: Word[], edit: WordsEdit, changed: CorrectedWords["changed"], rules: ReplaceRule[]): Word[] {
  const inside = (w: Word) => (w.start + w.end) / 2 >= edit.start_time && (w.start + w.end) / 2 <= edit.end_time;
  const firstIdx = words.findIndex(inside);
  const replaced = words.filter(inside);
  const texts = split(edit.text);
  const at = firstIdx >= 0 ? firstIdx : words.findIndex((w) => w.start >= edit.end_time);
  const neighbour = words[firstIdx >= 0 ? firstIdx : Math.max(0, at - 1)] ?? words.at(-1);
  const start = replaced[0]?.start ?? edit.start_time;
  const end = replaced.at(-1)?.end ?? edit.end_time;
  const space = neighbour && /^\s/.test(neighbour.word) ? " " : "";
  const fresh = spread(texts, start, end, neighbour?.speaker ?? "SPEAKER_00", space);
  const before = joinWords(replaced.map((w) => w.word));
  if (before === joinWords(texts)) return words;
  changed.push({ start: Math.min(start, edit.start_time), end: Math.max(end, edit.end_time) });
  if (before) rules.push({ find: before.replace(/[^\p{L}\p{N}'’\s-]/gu, ""), with: edit.text.replace(/[^\p{L}\p{N}'’\s-]/gu, "") });
  const kept = words.filter((w) => !inside(w));
  const insertAt = at < 0 ? kept.length : kept.findIndex((w) => w.start >= start) === -1 ? kept.length : kept.findIndex((w) => w.start >= start);
  return [...kept.slice(0, insertAt), ...fresh, ...kept.slice(insertAt)];
}

/** Applies `replace` rules (in order), then `words` edits (in order), to a copy of the words. */
export function correctWords(words: Word[], req: CorrectionRequest): CorrectedWords {
  const changed: CorrectedWords["changed"] = [];
  const rules: ReplaceRule[] = [...(req.replace ?? [])];
  let out = words;
  for (const rule of req.replace ?? []) out = applyReplace(out, rule, changed);
  for (const edit of req.words ?? []) out = applyWordsEdit(out, edit, changed, rules);
  return { words: out, changed, rules: rules.filter((r) => bare(r.find) && r.find.trim().toLowerCase() !== r.with.trim().toLowerCase()) };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whole-word, case-insensitive swaps in text written from the old words; a swap at a capital keeps it. */
export function correctText(text: string, rules: ReplaceRule[]): string {
  let out = text;
  for (const rule of rules) {
    const find = split(rule.find).map(escapeRegex).join("\\s+");
    if (!find) continue;
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${find}(?![\\p{L}\\p{N}])`, "giu"), (m) => matchCase(rule.with, m));
  }
  return out;
}

/** Hashtags made from the old words ("#Beehides", "#RooftopBeehides") with the swaps applied, still valid hashtags. */
export function correctHashtags(tags: string[], rules: ReplaceRule[]): string[] {
  return tags.map((tag) => {
    let body = tag.slice(1);
    for (const rule of rules) {
      const find = split(rule.find).map(bare).join("");
      const replacement = hashtag(rule.with)?.slice(1);
      if (!find || !replacement) continue;
      body = body.replace(new RegExp(escapeRegex(find), "giu"), replacement);
    }
    return `#${body}`;
  });
}

/** Each segment's text again from the corrected words it holds (same speaker, inside its span). */
export function rebuildSegments(segments: Segment[], words: Word[]): Segment[] {
  return segments.map((s) => {
    const held = words.filter((w) => w.speaker === s.speaker && w.start >= s.start - 0.001 && w.end <= s.end + 0.001);
    return held.length ? { ...s, text: joinWords(held.map((w) => w.word)) } : s;
  });
}
