/**
 * Markdown show notes from the full transcript and the chosen clips. Extractive: every line in the
 * notes is either a sentence somebody said, a phrase taken from the transcript, or a count — nothing
 * is invented, so the notes can be wrong only in emphasis, never in fact.
 */
import { analyzeTranscript, type EpisodeAnalysis } from "./analysis.ts";
import { standaloneUnits, type CopyUnit } from "./copy-units.ts";
import { isCommonWord, type NlpToken } from "./nlp.ts";
import { plainText } from "./plain-text.ts";
import { nonTopicTerms, rankTitlePhrases, showName, titleFor, type TitlePhrase } from "./titles.ts";
import type { ClipPlan, Transcript } from "../types.ts";
import { notesText, type NotesText } from "../language/notes-text.ts";

export interface ShowNotesOptions {
  title?: string;
  /** A precomputed analysis of the same transcript (shared with selectClips). */
  analysis?: EpisodeAnalysis;
  maxTakeaways?: number;
  /** Written by the language-model editor (already grounded); the extractive text otherwise. */
  summary?: string;
  /** One per chapter of the analysis, in order. */
  chapterTitles?: string[];
  /**
   * How close each candidate topic phrase (lower case) is to the episode as a whole, 0..1: the cosine
   * of its sentence embedding with the sum of the episode's (topicCentrality in plan.ts). Without it
   * topics are ranked by recurrence alone.
   */
  topicCentrality?: ReadonlyMap<string, number>;
}

/** The non-empty lines of one `## heading` section of Markdown notes (what a reader of the notes sees there). */
export function notesSection(md: string, heading: string): string[] {
  const lines = md.split("\n");
  const at = lines.indexOf(`## ${heading}`);
  const out: string[] = [];
  for (const l of at < 0 ? [] : lines.slice(at + 1)) {
    if (l.startsWith("## ")) break;
    if (l.trim()) out.push(l.trim());
  }
  return out;
}

/** mm:ss, or h:mm:ss from one hour on (the form chapter markers in players accept). */
export function formatTimestamp(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${String(m).padStart(2, "0")}:${ss}`;
}


/**
 * A phrase's weight from its centrality: squared, so that what the episode is about outranks what it
 * merely repeats ("local honey" over "better roof" in a beekeeping episode). Phrases that were not
 * embedded (below the candidates' cut) weigh as the least central one that was.
 */
export function topicWeight(centrality: ReadonlyMap<string, number>): (p: TitlePhrase) => number {
  // Nothing was embedded (no candidates): recurrence alone, as without embeddings.
  if (!centrality.size) return () => 1;
  const floor = Math.max(0.05, Math.min(...centrality.values()));
  return (p) => Math.max(floor, centrality.get(p.text.toLowerCase()) ?? floor) ** 2;
}

/**
 * The episode's topics, best first, each sharing no term with an earlier one (so "bees on the roof"
 * and "roof of an apartment" are not both listed). The show's name and the speakers' names are not topics
 * ("I'm Theo Marsh" is an introduction, not a subject).
 */
export function episodeTopics(t: Transcript, a: EpisodeAnalysis, n: number, centrality?: ReadonlyMap<string, number>): TitlePhrase[] {
  const avoid = nonTopicTerms(
    a.sentences.map((s) => s.text),
    t.speakerNames,
  );
  const out: TitlePhrase[] = [];
  const covered = new Set<string>();
  for (const p of rankTitlePhrases(
    a.sentences.map((s) => s.text),
    a.nlp,
    { avoid, weight: centrality && topicWeight(centrality) },
  )) {
    if (out.length >= n) break;
    if (p.terms.some((t) => covered.has(t) || avoid.has(t))) continue;
    out.push(p);
    for (const t of p.terms) covered.add(t);
  }
  return out;
}

function speakerName(t: Transcript, label: string, text: NotesText = notesText(t.language)): string {
  return t.speakerNames?.[label] ?? text.speaker(label);
}

interface SpeakerStat {
  label: string;
  seconds: number;
  turns: number;
}

function speakerStats(t: Transcript): SpeakerStat[] {
  const by = new Map<string, SpeakerStat>();
  for (const seg of t.segments) {
    const s = by.get(seg.speaker) ?? { label: seg.speaker, seconds: 0, turns: 0 };
    s.seconds += Math.max(0, seg.end - seg.start);
    s.turns++;
    by.set(seg.speaker, s);
  }
  return [...by.values()].sort((x, y) => y.seconds - x.seconds);
}

/** A unit that reads on its own in a list: a finished statement, not too short or long, not pointing back. */
function listable(a: EpisodeAnalysis): CopyUnit[] {
  return standaloneUnits(a).filter((u) => {
    let fillers = 0;
    for (let i = u.first; i <= u.last; i++) fillers += a.features[i]!.fillers;
    return !a.features[u.last]!.question && u.words >= 7 && u.words <= 35 && fillers <= 1;
  });
}

function takeaways(a: EpisodeAnalysis, max: number): CopyUnit[] {
  const value = (u: CopyUnit) => {
    let best = 0;
    for (let i = u.first; i <= u.last; i++) {
      const f = a.features[i]!;
      const lesson = Math.min(1, f.insight * 0.5 + f.advice * 0.5 + f.hotTake * 0.4 + f.quantities * 0.3 + f.contrast * 0.2);
      best = Math.max(best, lesson * 0.6 + a.interest[i]! * 0.3 + a.centrality[i]! * 0.1);
    }
    // "Yeah, so …" reads as talk, not as a takeaway; kept only when nothing cleaner says it.
    return best * (a.features[u.first]!.weakOpener ? 0.8 : 1);
  };
  const isLesson = (u: CopyUnit) => a.features.slice(u.first, u.last + 1).some((f) => f.insight + f.advice + f.hotTake + f.quantities > 0);
  const pool = listable(a).filter((u) => isLesson(u) && value(u) > 0.35);
  // One per chapter first, so the list covers the episode rather than its loudest stretch.
  const picked: CopyUnit[] = [];
  for (const c of a.chapters) {
    const best = pool.filter((u) => u.first >= c.firstSentence && u.first <= c.lastSentence).sort((x, y) => value(y) - value(x))[0];
    if (best !== undefined) picked.push(best);
  }
  for (const u of [...pool].sort((x, y) => value(y) - value(x))) {
    if (picked.length >= max) break;
    if (!picked.includes(u)) picked.push(u);
  }
  return picked
    .sort((x, y) => value(y) - value(x))
    .slice(0, max)
    .sort((x, y) => x.first - y.first);
}

/** Who speaks, by name where a name is known, never by diarization label ("Speaker 2"). */
function whoSpeaks(t: Transcript): { named: string[]; others: number; total: number } {
  const stats = speakerStats(t);
  const named = stats.map((s) => t.speakerNames?.[s.label]).filter((x): x is string => !!x);
  return { named, others: stats.length - named.length, total: stats.length };
}

function summary(t: Transcript, a: EpisodeAnalysis, topics: TitlePhrase[]): string {
  const first = a.sentences[0]!;
  const last = a.sentences[a.sentences.length - 1]!;
  const minutes = Math.max(1, Math.round((last.end - first.start) / 60));
  const show = showName(a.sentences.slice(0, 3).map((s) => s.text));
  const about = topics.slice(0, 3).map((p) => p.text);
  const opening = notesText(t.language).opening({ minutes, show: show ? titleFor(show, t.language) : undefined, who: whoSpeaks(t), topics: about });
  // The unit closest to the episode as a whole, then the most substantive one elsewhere.
  const weight = (u: CopyUnit) => a.centrality[u.first]! * (0.5 + a.interest[u.first]!);
  const byCentral = [...listable(a)].sort((x, y) => weight(y) - weight(x));
  const chosen = byCentral.slice(0, 2).sort((x, y) => x.first - y.first);
  const quoted = chosen.map((u) => {
    const label = a.sentences[u.first]!.speaker;
    const name = t.speakerNames?.[label];
    return name ? `${name}: “${u.text}”` : `“${u.text}”`;
  });
  return [...(opening ? [opening] : []), ...quoted].join(" ");
}

/** The episode's title: its main topic in title case, with the people named in it. */
export function episodeTitle(t: Transcript, a: EpisodeAnalysis, topics: TitlePhrase[]): string {
  const { named } = whoSpeaks(t);
  const show = showName(a.sentences.slice(0, 3).map((s) => s.text));
  const text = notesText(t.language);
  const topic = topics[0] ? titleFor(topics[0].text, t.language) : show ? titleFor(show, t.language) : text.ruled ? text.untitled : firstWords(a.sentences[0]?.text ?? text.untitled);
  return named.length >= 1 && named.length <= 2 ? text.titleWith(topic, named) : topic;
}

/** A title for a language with no template text: the episode's first words, as said. */
function firstWords(sentence: string): string {
  const words = sentence.split(/\s+/);
  return words.length <= 8 && sentence.length <= 60 ? sentence : `${[...sentence].slice(0, 50).join("").trim()}…`;
}

function findSentence(a: EpisodeAnalysis, clip: ClipPlan): number | null {
  const needle = clip.pull_quote.replace(/…$/, "");
  for (let i = 0; i < a.sentences.length; i++) {
    const s = a.sentences[i]!;
    if (s.start >= clip.start_time - 0.01 && s.end <= clip.end_time + 0.01 && needle.startsWith(s.text)) return i;
  }
  return null;
}

const ORG_SUFFIX = /\b(?:Inc|Corp|Corporation|LLC|Ltd|Company|University|College|Institute|Bakery|Labs?|Foundation|Group|Bank|School|Hospital|Records|Press|Studios?|Podcast|Times|News)\b\.?$/;

const CALENDAR = new Set([
  "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april",
  "may", "june", "july", "august", "september", "october", "november", "december", "okay", "oh", "hello", "yeah",
]);

/**
 * Each person or organisation once: a mention whose words all appear in a longer mention is the
 * same entity named shorter ("Commander", "McCool" beside "Commander William McCool").
 */
export function onceEach(mentions: string[]): string[] {
  const words = (m: string) => m.toLowerCase().split(/\s+/);
  return mentions.filter((m) => {
    const mine = words(m);
    return !mentions.some((other) => other !== m && words(other).length > mine.length && mine.every((w) => words(other).includes(w)));
  });
}

interface Mentions {
  names: string[];
  organisations: string[];
  resources: string[];
}

/** Edit distance between two strings (insertions, deletions, substitutions). */
function editDistance(x: string, y: string): number {
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[y.length]!;
}

/**
 * The show's own name, or the recogniser's try at it: the outro's "Roof Hot Bowers" is the welcome
 * line's "Rooftop Hours". Letters only, within 40 % of the longer spelling's length.
 */
export function soundsLikeShow(mention: string, show: string | null): boolean {
  if (!show) return false;
  const [m, s] = [nameLetters(mention), nameLetters(show)];
  return m.length > 0 && editDistance(m, s) <= 0.4 * Math.max(m.length, s.length);
}

const nameLetters = (x: string) => x.toLowerCase().replace(/^the\s+/, "").replace(/[^\p{L}\p{N}]/gu, "");

/**
 * Whether a span is a piece of the show's name as said: the recogniser capitalises only some of its
 * words ("Roof Up Hours", "Roof Hot Pours"), so the capitalised span alone ("Hours", "Roof Hot") is
 * too short to sound like the show. The span with up to two words either side is compared with the
 * show's own length as the measure, so that a real name said next to the show's ("Rooftop Hours,
 * Chicago's …") is not swallowed by it.
 */
export function partOfShowName(words: string[], start: number, end: number, show: string | null): boolean {
  if (!show) return false;
  const target = nameLetters(show);
  if (target.length === 0) return false;
  for (let from = Math.max(0, start - 2); from <= start; from++) {
    for (let to = end; to <= Math.min(words.length, end + 2); to++) {
      if (editDistance(nameLetters(words.slice(from, to).join(" ")), target) <= 0.4 * target.length) return true;
    }
  }
  return false;
}

/** Capitalised proper-noun spans and wink's URL/email/hashtag/mention entities. */
export function mentions(t: Transcript, a: EpisodeAnalysis): Mentions {
  // The show is not something the episode mentions: it is the episode.
  const show = showName(a.sentences.slice(0, 3).map((s) => s.text));
  const speakerWords = new Set(
    Object.values(t.speakerNames ?? {})
      .flatMap((n) => n.split(/\s+/))
      .map((w) => w.toLowerCase()),
  );
  const counts = new Map<string, number>();
  a.nlp.forEach((nlp) => {
    const words = nlp.tokens.filter((tok) => tok.type === "word").map((tok) => tok.text);
    const add = (span: NlpToken[], end: number) => {
      if (span.length === 0 || !(span.length > 1 || !span[0]!.stop)) return;
      const text = span.map((x) => x.text).join(" ");
      if (span.every((x) => speakerWords.has(x.norm)) || soundsLikeShow(text, show)) return;
      if (partOfShowName(words, end - span.length, end, show)) return;
      counts.set(text, (counts.get(text) ?? 0) + 1);
    };
    let span: NlpToken[] = [];
    let initial = true;
    let wordIndex = 0;
    for (const tok of nlp.tokens) {
      const proper =
        tok.pos === "PROPN" && /^\p{Lu}[\p{L}\p{N}&.-]*[\p{L}\p{N}]$/u.test(tok.text) && tok.type === "word" && !CALENDAR.has(tok.norm);
      // A capitalised word at the start of a sentence is only a name if it is part of a longer span.
      if (proper) span.push({ ...tok, stop: initial });
      else {
        add(span, wordIndex);
        span = [];
      }
      if (tok.type === "word") {
        initial = false;
        wordIndex++;
      }
    }
    add(span, wordIndex);
  });
  // A lone common word said capitalised once is more likely a capital after an unpunctuated sentence
  // break than a name ("I retired Beekeeper"); said so twice or more, it is a name ("Hope", "Apple").
  const named = [...counts.entries()].filter(([text, n]) => n >= 2 || /\s/.test(text) || !isCommonWord(text));
  const all = onceEach(named.sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).map(([k]) => k));
  const resources = new Set<string>();
  for (const nlp of a.nlp) for (const e of nlp.entities) if (["URL", "EMAIL", "HASHTAG", "MENTION"].includes(e.type)) resources.add(e.value);
  for (const s of a.sentences) {
    for (const m of s.text.matchAll(/\b(?:on|at|follow us on|find us on)\s+(Instagram|YouTube|TikTok|Twitter|X|LinkedIn|Facebook|Substack|Patreon)\s+at\s+([\p{L}\p{N}_. ]{2,40}?)(?=[.,!?]|$)/gu)) {
      resources.add(`${m[1]}: ${m[2]!.trim()}`);
    }
    for (const m of s.text.matchAll(/\b[\w-]+\.(?:com|org|net|io|co|fm|dev|ai)\b/g)) resources.add(m[0]);
  }
  return {
    organisations: all.filter((x) => ORG_SUFFIX.test(x)),
    names: all.filter((x) => !ORG_SUFFIX.test(x) && !["Instagram", "YouTube", "TikTok", "Twitter", "LinkedIn", "Facebook"].includes(x)),
    resources: [...resources],
  };
}

export function buildShowNotes(transcript: Transcript, clips: ClipPlan[], opts: ShowNotesOptions = {}): string {
  const a = opts.analysis ?? analyzeTranscript(transcript);
  const text = notesText(transcript.language);
  if (a.sentences.length === 0) return `# ${opts.title ?? text.episode}\n\n${text.noSpeech}\n`;
  const topics = episodeTopics(transcript, a, 3, opts.topicCentrality);
  // Titles and summary handed in (the language-model editor's, a caller's) are plain text in the Markdown.
  const title = opts.title !== undefined ? plainText(opts.title) || episodeTitle(transcript, a, topics) : episodeTitle(transcript, a, topics);

  const out: string[] = [`# ${title}`, "", (opts.summary !== undefined ? plainText(opts.summary) : "") || summary(transcript, a, topics), ""];

  const take = takeaways(a, opts.maxTakeaways ?? 5);
  if (take.length) {
    out.push(`## ${text.headings.takeaways}`, "");
    for (const u of take) out.push(`- ${u.text}`);
    out.push("");
  }

  out.push(`## ${text.headings.chapters}`, "");
  a.chapters.forEach((c, i) => out.push(`- ${formatTimestamp(c.start)} ${plainText(opts.chapterTitles?.[i] ?? "") || c.title}`));
  out.push("");

  const quotes: string[] = [];
  const seen = new Set<string>();
  for (const clip of [...clips].sort((x, y) => x.rank - y.rank)) {
    const i = findSentence(a, clip);
    if (i === null || seen.has(clip.pull_quote)) continue;
    seen.add(clip.pull_quote);
    const s = a.sentences[i]!;
    quotes.push(`> “${clip.pull_quote}”`, `> — ${speakerName(transcript, s.speaker, text)}, ${formatTimestamp(s.start)}`, "");
  }
  if (quotes.length) out.push(`## ${text.headings.quotes}`, "", ...quotes);

  const m = mentions(transcript, a);
  // A language without template text lists no mentions: their kinds would need words to name them.
  if (text.mentioned && (m.names.length || m.organisations.length || m.resources.length)) {
    out.push(`## ${text.headings.mentioned}`, "");
    if (m.names.length) out.push(`- ${text.mentioned.people}: ${m.names.slice(0, 15).join(", ")}`);
    if (m.organisations.length) out.push(`- ${text.mentioned.organisations}: ${m.organisations.slice(0, 10).join(", ")}`);
    if (m.resources.length) out.push(`- ${text.mentioned.resources}: ${m.resources.slice(0, 10).join(", ")}`);
    out.push("");
  }

  out.push(`## ${text.headings.speakers}`, "", ...speakerLines(transcript, text), "");
  return out.join("\n");
}

/** The notes' speakers list: each voice by name (and label) with its share of the speaking time. */
function speakerLines(t: Transcript, text: NotesText): string[] {
  const stats = speakerStats(t);
  const total = stats.reduce((x, s) => x + s.seconds, 0) || 1;
  return stats.map((s) => {
    const named = t.speakerNames?.[s.label];
    const label = named ? `${named} (${text.speaker(s.label)})` : text.speaker(s.label);
    return `- ${label}: ${text.speakingTime(s.seconds / total, s.turns)}`;
  });
}

/**
 * Show notes written for `before` made true of `after`, a transcript whose speakers a producer
 * corrected (renamed, or one merged into another: `survivor` says whose words a label's are now),
 * without analysing the episode again: the speakers list is written anew, each quote's attribution
 * and the summary's named quotes take the voice's new name, the opening's "who talks" and a title's
 * "with Ana and Theo" are written for the new cast where the notes hold the old one. What the notes
 * say otherwise (a title or summary an editor wrote) is left as it is.
 */
export function notesForSpeakers(notes: string, before: Transcript, after: Transcript, survivor: (label: string) => string): string {
  const text = notesText(after.language);
  const labels = new Set([...before.segments.map((s) => s.speaker), ...Object.keys(before.speakerNames ?? {})]);
  const shown = new Map([...labels].map((l) => [speakerName(before, l, text), speakerName(after, survivor(l), text)]));
  const named = new Map([...labels].filter((l) => before.speakerNames?.[l] !== undefined).map((l) => [before.speakerNames![l]!, after.speakerNames?.[survivor(l)]]));
  const lines = notes.split("\n");
  const out: string[] = [];
  const speakersHeading = `## ${text.headings.speakers}`;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === speakersHeading) {
      out.push(line, "", ...speakerLines(after, text), "");
      // Past the old list, to the next section (or the end).
      let j = i + 1;
      while (j < lines.length && !lines[j]!.startsWith("## ")) j++;
      i = j - 1;
      continue;
    }
    const quote = /^> — (.+), (\d+(?::\d{2}){1,2})$/.exec(line);
    if (quote && shown.has(quote[1]!)) {
      out.push(`> — ${shown.get(quote[1]!)}, ${quote[2]}`);
      continue;
    }
    out.push(line);
  }
  // The summary is the first paragraph after the title.
  const at = out.findIndex((l, k) => k > 0 && l.trim() !== "");
  if (at > 0 && !out[at]!.startsWith("#")) {
    let summary = out[at]!;
    for (const [from, to] of named) if (from !== to) summary = summary.split(`${from}: “`).join(to ? `${to}: “` : "“");
    // A topic in the template too, so that the verb after "who" is part of what differs ("talk about").
    const sentence = (t: Transcript) => text.opening({ minutes: 1, show: undefined, who: whoSpeaks(t), topics: ["\u0001"] }) ?? "";
    const [from, to] = changedMiddle(sentence(before), sentence(after));
    if (from && summary.includes(from)) summary = summary.replace(from, to);
    out[at] = summary;
  }
  const title = /^# (.+)$/.exec(out[0] ?? "");
  if (title) {
    const withNames = (t: Transcript) => {
      const { named } = whoSpeaks(t);
      return named.length >= 1 && named.length <= 2 ? text.titleWith("\u0000", named).split("\u0000")[1]! : "";
    };
    const [old, now] = [withNames(before), withNames(after)];
    if (old !== now && old && title[1]!.endsWith(old)) out[0] = `# ${title[1]!.slice(0, -old.length)}${now}`;
  }
  return out.join("\n");
}

/** The part two strings differ in (their common start and end taken off), e.g. the "who talks" of two openings. */
function changedMiddle(a: string, b: string): [string, string] {
  if (a === b) return ["", ""];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  // Whole words: back to the space before.
  while (start > 0 && a[start - 1] !== " ") start--;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  while (end > 0 && a[a.length - end] !== " ") end--;
  return [a.slice(start, a.length - end), b.slice(start, b.length - end)];
}
