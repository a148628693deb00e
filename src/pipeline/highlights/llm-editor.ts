/**
 * The optional language-model editor. Given the top extractive clips (already on evidenced
 * sentence edges, with extractive copy), a language model picks which to post and in what order
 * and writes their titles, descriptions and hashtags, the episode title, summary and chapter
 * titles. It is grounded: hooks and pull quotes must be copied verbatim from the clip and be
 * finished sentences, anything in quotation marks must be said in the episode, clip times are the
 * candidates' own (never the model's), and the answer is validated with zod. Any failure throws an
 * LlmEditError with the reason; the caller keeps the extractive result and says so.
 */
import { z } from "zod";
import { chatJson, ChatError, type ChatConfig, type ChatMessage } from "../../inference/llm-chat.ts";
import { checkCopy, isCompleteText, locateText, textSentences } from "./editorial-check.ts";
import type { EpisodeAnalysis } from "./analysis.ts";
import { QUOTE_MAX_WORDS, QUOTE_MIN_WORDS } from "./copy-units.ts";
import { CLIP_TITLE_MAX_CHARS, MAX_HASHTAGS, MIN_HASHTAGS } from "./posting-copy.ts";
import { plainText } from "./plain-text.ts";
import { formatTimestamp } from "./shownotes.ts";
import { titleCase } from "./titles.ts";
import type { ClipPlan, Transcript } from "../types.ts";

export class LlmEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmEditError";
  }
}

const Hashtag = z.string().regex(/^#[\p{L}\p{N}]+$/u, "a hashtag is # and letters or digits");

/** The answer the model must give (the JSON shape is also spelled out in the prompt). */
export const LlmEditSchema = z.object({
  clips: z
    .array(
      z.object({
        candidate: z.number().int().min(0),
        hook: z.string().min(1),
        pull_quote: z.string().min(1),
        title: z.string().min(1).max(CLIP_TITLE_MAX_CHARS),
        description: z.string().min(1).max(400),
        hashtags: z.array(Hashtag).min(MIN_HASHTAGS).max(MAX_HASHTAGS),
      }),
    )
    .min(1),
  episode_title: z.string().min(1).max(100),
  summary: z.string().min(1).max(900),
  chapter_titles: z.array(z.string().min(1).max(CLIP_TITLE_MAX_CHARS)),
});
export type LlmEdit = z.infer<typeof LlmEditSchema>;

export interface EditedEpisode {
  /** The clips to post, in the model's order, re-ranked from 1. */
  clips: ClipPlan[];
  episodeTitle: string;
  summary: string;
  chapterTitles: string[];
}

const wordCount = (s: string) => s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

function prompt(t: Transcript, a: EpisodeAnalysis, pool: ClipPlan[], post: number): ChatMessage[] {
  const named = Object.values(t.speakerNames ?? {});
  const chapters = a.chapters.map((c, i) => {
    const text = a.sentences
      .slice(c.firstSentence, c.lastSentence + 1)
      .map((s) => s.text)
      .join(" ");
    return `Chapter ${i} (${formatTimestamp(c.start)}-${formatTimestamp(c.end)}): ${text.length > 900 ? text.slice(0, 900) + " […]" : text}`;
  });
  const candidates = pool.map((c, i) => `Candidate ${i} (${formatTimestamp(c.start_time)}-${formatTimestamp(c.end_time)}, ${c.category}): ${c.transcript_text}`);
  const system = [
    "You are the editor of a podcast's social clips and show notes. You only choose and copy what was said; you never invent facts.",
    "Answer with one JSON object and nothing else, of this shape:",
    '{"clips":[{"candidate":0,"hook":"...","pull_quote":"...","title":"...","description":"...","hashtags":["#...","#...","#..."]}],"episode_title":"...","summary":"...","chapter_titles":["..."]}',
    `Rules: "clips" lists the ${post} best candidates to post, best first, each candidate at most once.`,
    '"hook" is one or two complete sentences copied exactly, word for word, from that candidate\'s text, starting at a sentence start.',
    `"pull_quote" is one complete, self-contained sentence of ${QUOTE_MIN_WORDS}-${QUOTE_MAX_WORDS} words copied exactly from that candidate's text.`,
    `"title" is a title in Title Case of at most ${CLIP_TITLE_MAX_CHARS} characters naming what the clip is about. "description" is one or two sentences for the post.`,
    `"hashtags" are ${MIN_HASHTAGS}-${MAX_HASHTAGS} hashtags, letters and digits only after the #.`,
    `"episode_title" names the episode's topic in Title Case; "summary" is two or three sentences; "chapter_titles" has exactly ${a.chapters.length} distinct Title Case titles, one per chapter, in order.`,
    'Never write "Speaker 1" or any speaker label; use a person\'s name only when it is given. Anything you put in quotation marks must be copied exactly from the transcript.',
  ].join("\n");
  const user = [
    `Episode: ${Math.round((a.sentences[a.sentences.length - 1]?.end ?? 0) / 60)} minutes. Named speakers: ${named.length ? named.join(", ") : "none"}.`,
    "",
    "Chapters:",
    ...chapters,
    "",
    "Candidates:",
    ...candidates,
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

/** Text in quotation marks that is not said in the episode, if any. */
function inventedQuote(t: Transcript, text: string): string | null {
  for (const m of text.matchAll(/[“"]([^”"]{8,})[”"]/g)) if (!locateText(t.words, m[1]!)) return m[1]!;
  return null;
}

/** Verbatim copy inside the clip, on sentence edges, every sentence finished. */
function groundedInClip(t: Transcript, clip: ClipPlan, text: string): string | null {
  const check = checkCopy(t.words, text, clip.start_time);
  if (!check.ok) return check.problems.join(", ");
  const span = locateText(t.words, text, clip.start_time)!;
  if (t.words[span.first]!.start < clip.start_time - 1e-3 || t.words[span.last]!.end > clip.end_time + 1e-3) return "outside the clip";
  return null;
}

const SPEAKER_LABEL = /\bSpeaker \d+\b|\bSPEAKER_\d+\b/;

/** The model's free text with markup removed (plain-text.ts), before it is checked or used anywhere. */
function withoutMarkup(edit: LlmEdit): LlmEdit {
  const clean = (field: string, text: string) => {
    const plain = plainText(text);
    if (!plain) throw new LlmEditError(`${field} is only markup`);
    return plain;
  };
  return {
    ...edit,
    clips: edit.clips.map((c, i) => ({ ...c, title: clean(`clip ${i + 1}: title`, c.title), description: clean(`clip ${i + 1}: description`, c.description) })),
    episode_title: clean("episode title", edit.episode_title),
    summary: clean("summary", edit.summary),
    chapter_titles: edit.chapter_titles.map((x, i) => clean(`chapter title ${i + 1}`, x)),
  };
}

/** Validates the model's answer against the transcript; the first problem found is thrown. */
export function groundEdit(t: Transcript, a: EpisodeAnalysis, pool: ClipPlan[], post: number, raw: unknown, model: string): EditedEpisode {
  const parsed = LlmEditSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new LlmEditError(`answer does not match the schema: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const edit = withoutMarkup(parsed.data);
  const want = Math.min(post, pool.length);
  if (edit.clips.length !== want) throw new LlmEditError(`answer has ${edit.clips.length} clips, ${want} were asked for`);
  const seen = new Set<number>();
  const clips = edit.clips.map((e, i) => {
    const clip = pool[e.candidate];
    if (!clip) throw new LlmEditError(`clip ${i + 1}: candidate ${e.candidate} does not exist`);
    if (seen.has(e.candidate)) throw new LlmEditError(`clip ${i + 1}: candidate ${e.candidate} chosen twice`);
    seen.add(e.candidate);
    const hookProblem = groundedInClip(t, clip, e.hook) ?? (textSentences(e.hook).length > 2 ? "more than two sentences" : null);
    if (hookProblem) throw new LlmEditError(`clip ${i + 1}: hook is not verbatim copy of the clip (${hookProblem})`);
    const n = wordCount(e.pull_quote);
    const quoteProblem = groundedInClip(t, clip, e.pull_quote) ?? (n < QUOTE_MIN_WORDS || n > QUOTE_MAX_WORDS ? `${n} words` : null);
    if (quoteProblem) throw new LlmEditError(`clip ${i + 1}: pull quote is not a verbatim sentence of the clip (${quoteProblem})`);
    const sentences = textSentences(e.description);
    if (sentences.length > 2 || !isCompleteText(e.description)) throw new LlmEditError(`clip ${i + 1}: description is not one or two finished sentences`);
    const invented = inventedQuote(t, e.description);
    if (invented) throw new LlmEditError(`clip ${i + 1}: description quotes words not said: "${invented}"`);
    if (SPEAKER_LABEL.test(e.title + e.description)) throw new LlmEditError(`clip ${i + 1}: uses a speaker label`);
    return {
      ...clip,
      rank: i + 1,
      hook: e.hook.trim(),
      pull_quote: e.pull_quote.trim(),
      title: titleCase(e.title),
      description: e.description.trim(),
      hashtags: e.hashtags,
      reason: `${clip.reason}; chosen and written by ${model} (was rank ${clip.rank})`,
    };
  });
  if (new Set(clips.map((c) => c.title.toLowerCase())).size !== clips.length) throw new LlmEditError("two clips share a title");
  if (edit.chapter_titles.length !== a.chapters.length) throw new LlmEditError(`answer has ${edit.chapter_titles.length} chapter titles for ${a.chapters.length} chapters`);
  if (new Set(edit.chapter_titles.map((x) => x.toLowerCase())).size !== edit.chapter_titles.length) throw new LlmEditError("chapter titles repeat");
  if (SPEAKER_LABEL.test([edit.episode_title, edit.summary, ...edit.chapter_titles].join(" "))) throw new LlmEditError("notes use a speaker label");
  const invented = inventedQuote(t, edit.summary);
  if (invented) throw new LlmEditError(`summary quotes words not said: "${invented}"`);
  if (!isCompleteText(edit.summary)) throw new LlmEditError("summary is not finished sentences");
  return { clips, episodeTitle: titleCase(edit.episode_title), summary: edit.summary.trim(), chapterTitles: edit.chapter_titles.map(titleCase) };
}

/** Asks the model and grounds its answer; throws LlmEditError (with the reason) on any failure. */
export async function editWithLlm(
  t: Transcript,
  a: EpisodeAnalysis,
  pool: ClipPlan[],
  post: number,
  cfg: ChatConfig,
  signal?: AbortSignal,
): Promise<EditedEpisode> {
  let raw: unknown;
  try {
    raw = await chatJson(cfg, prompt(t, a, pool, post), signal);
  } catch (e) {
    if (e instanceof ChatError) throw new LlmEditError(`${e.kind}: ${e.message}`);
    throw e;
  }
  return groundEdit(t, a, pool, post, raw, cfg.model);
}
