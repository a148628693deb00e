/**
 * The highlight stage as the job runner calls it: one analysis of the transcript (with sentence
 * embeddings when the model is installed), the ranked clips and the show notes, then, when one is
 * configured, the language-model editor over the top extractive clips. The result says which
 * similarity signal and which editor were used, so a missing model or a failed editor is visible,
 * never silent.
 */
import type { Embedder } from "../../inference/embedder.ts";
import { log } from "../../log.ts";
import { analyzeTranscript, type EpisodeAnalysis } from "./analysis.ts";
import type { ChatConfig } from "../../inference/llm-chat.ts";
import { DEFAULT_CLIP_COUNT, selectClips, type SelectClipsOptions } from "./select-clips.ts";
import { editWithLlm, LlmEditError } from "./llm-editor.ts";
import { splitSentences } from "./sentences.ts";
import { buildShowNotes, type ShowNotesOptions } from "./shownotes.ts";
import { nonTopicTerms, rankTitlePhrases } from "./titles.ts";
import { sumVectors } from "./topics.ts";
import { cosine } from "../vector-math.ts";
import type { ClipPlan, Transcript } from "../types.ts";

export interface HighlightPlan {
  clips: ClipPlan[];
  showNotes: string;
  /** The show notes' chapters, with exact start times (for the Podcasting 2.0 chapters file). */
  chapters: Array<{ start: number; title: string }>;
  /** "embeddings:<model>" or "lexical-tfidf". */
  similarity: string;
  /** Human-readable notes about degraded operation (e.g. no embedding model). */
  warnings: string[];
  /** Who chose the clips and wrote the copy: "extractive", "llm:<model>", or "extractive (llm:<model> failed: <why>)". */
  editor: string;
  timings: { embedMs: number; analyzeMs: number; selectMs: number; notesMs: number; editMs: number };
}

export interface PlanOptions extends Omit<SelectClipsOptions, "embeddings" | "analysis"> {
  title?: string;
  /** A loaded embedder, or null with the reason it is unavailable. */
  embedder: Embedder | null;
  embedderUnavailableReason?: string;
  /** The optional language-model editor; extractive only when absent. */
  llm?: ChatConfig;
  /** How many of `count` clips will be posted (the rest feed the trailer): the editor picks these. Default `count`. */
  postCount?: number;
  signal?: AbortSignal;
}

/** Extractive candidates the editor may choose among, per clip to post. */
const EDITOR_POOL_FACTOR = 2;

/** The most repeated phrases, embedded: enough to hold every phrase a title or summary would pick. */
const TOPIC_CANDIDATES = 40;

/**
 * How close each candidate topic phrase is to the whole episode: the cosine of the phrase's
 * embedding with the sum of its sentences' (KeyBERT's keyphrase measure), so the topics name what the
 * episode is about rather than what it happens to repeat.
 */
export async function topicCentrality(t: Transcript, a: EpisodeAnalysis, embedder: Embedder): Promise<Map<string, number>> {
  const texts = a.sentences.map((s) => s.text);
  const candidates = rankTitlePhrases(texts, a.nlp, { avoid: nonTopicTerms(texts, t.speakerNames) }).slice(0, TOPIC_CANDIDATES);
  if (!candidates.length || !a.vectors.length) return new Map();
  const episode = sumVectors(a.vectors);
  const vectors = await embedder.embed(candidates.map((p) => p.text));
  return new Map(candidates.map((p, i) => [p.text.toLowerCase(), Math.max(0, cosine(vectors[i]!, episode))]));
}

/** Throws NoClipsError (from selectClips) when nothing qualifies; the job layer maps it. */
export async function planHighlights(transcript: Transcript, opts: PlanOptions): Promise<HighlightPlan> {
  const warnings: string[] = [];
  const t0 = performance.now();
  let embeddings: { model: string; vectors: Float32Array[] } | undefined;
  if (opts.embedder) {
    const texts = splitSentences(transcript.words, transcript.language).map((s) => s.text);
    embeddings = { model: opts.embedder.model, vectors: await opts.embedder.embed(texts) };
  } else {
    const why = opts.embedderUnavailableReason ?? "no embedder configured";
    warnings.push(`sentence embeddings unavailable (${why}); topic segmentation and centrality use TF-IDF word overlap`);
    log.warn("highlights without sentence embeddings", { reason: why });
  }
  const t1 = performance.now();
  const analysis: EpisodeAnalysis = analyzeTranscript(transcript, embeddings);
  const t2 = performance.now();
  const count = opts.count ?? DEFAULT_CLIP_COUNT;
  const post = Math.min(count, opts.postCount ?? count);
  // Greedy best-first picking is prefix-stable: the first `count` of a larger pool are exactly the
  // extractive choice, so asking for more costs nothing when the editor is off or fails.
  const pool = selectClips(transcript, { ...opts, count: opts.llm ? Math.max(count, post * EDITOR_POOL_FACTOR) : count, analysis });
  const t3 = performance.now();
  let clips = pool.slice(0, count);
  let notes: ShowNotesOptions = { analysis, title: opts.title };
  let editor = "extractive";
  if (opts.llm) {
    const name = `llm:${opts.llm.model}`;
    try {
      const edit = await editWithLlm(transcript, analysis, pool, post, opts.llm, opts.signal);
      const chosen = new Set(edit.clips.map((c) => c.start_time));
      const rest = pool.filter((c) => !chosen.has(c.start_time)).slice(0, count - edit.clips.length);
      clips = [...edit.clips, ...rest.map((c, i) => ({ ...c, rank: edit.clips.length + i + 1 }))];
      notes = { ...notes, title: opts.title ?? edit.episodeTitle, summary: edit.summary, chapterTitles: edit.chapterTitles };
      editor = name;
    } catch (e) {
      if (!(e instanceof LlmEditError)) throw e;
      editor = `extractive (${name} failed: ${e.message})`;
      warnings.push(`language-model editor failed (${e.message}); clips and copy are the extractive result`);
      log.warn("llm editor failed; extractive result kept", { model: opts.llm.model, reason: e.message });
      clips = clips.map((c) => ({ ...c, reason: `${c.reason}; ${editor}` }));
    }
  }
  const t4 = performance.now();
  const centrality = opts.embedder ? await topicCentrality(transcript, analysis, opts.embedder) : undefined;
  const showNotes = buildShowNotes(transcript, clips, { ...notes, topicCentrality: centrality });
  const t5 = performance.now();
  return {
    clips,
    showNotes,
    chapters: analysis.chapters.map((c) => ({ start: c.start, title: c.title })),
    similarity: analysis.vectorSource,
    warnings,
    editor,
    timings: { embedMs: t1 - t0, analyzeMs: t2 - t1, selectMs: t3 - t2, editMs: t4 - t3, notesMs: t5 - t4 },
  };
}
