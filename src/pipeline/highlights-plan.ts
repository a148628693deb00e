/**
 * The highlight stage as the job runner calls it: one analysis of the transcript (with sentence
 * embeddings when the model is installed), the ranked clips and the show notes. The result says
 * which similarity signal was used, so a missing embedding model is visible, never silent.
 */
import type { Embedder } from "../models/embedder.ts";
import { log } from "../log.ts";
import { analyzeTranscript, type EpisodeAnalysis } from "./highlights-analysis.ts";
import { selectClips, type SelectClipsOptions } from "./highlights.ts";
import { splitSentences } from "./sentences.ts";
import { buildShowNotes } from "./shownotes.ts";
import type { ClipPlan, Transcript } from "./types.ts";

export interface HighlightPlan {
  clips: ClipPlan[];
  showNotes: string;
  /** The show notes' chapters, with exact start times (for the Podcasting 2.0 chapters file). */
  chapters: Array<{ start: number; title: string }>;
  /** "embeddings:<model>" or "lexical-tfidf". */
  similarity: string;
  /** Human-readable notes about degraded operation (e.g. no embedding model). */
  warnings: string[];
  timings: { embedMs: number; analyzeMs: number; selectMs: number; notesMs: number };
}

export interface PlanOptions extends Omit<SelectClipsOptions, "embeddings" | "analysis"> {
  title?: string;
  /** A loaded embedder, or null with the reason it is unavailable. */
  embedder: Embedder | null;
  embedderUnavailableReason?: string;
}

/** Throws NoClipsError (from selectClips) when nothing qualifies; the job layer maps it. */
export async function planHighlights(transcript: Transcript, opts: PlanOptions): Promise<HighlightPlan> {
  const warnings: string[] = [];
  const t0 = performance.now();
  let embeddings: { model: string; vectors: Float32Array[] } | undefined;
  if (opts.embedder) {
    const texts = splitSentences(transcript.words).map((s) => s.text);
    embeddings = { model: opts.embedder.model, vectors: await opts.embedder.embed(texts) };
  } else {
    const why = opts.embedderUnavailableReason ?? "no embedder configured";
    warnings.push(`sentence embeddings unavailable (${why}); topic segmentation and centrality use TF-IDF word overlap`);
    log.warn("highlights without sentence embeddings", { reason: why });
  }
  const t1 = performance.now();
  const analysis: EpisodeAnalysis = analyzeTranscript(transcript, embeddings);
  const t2 = performance.now();
  const clips = selectClips(transcript, { ...opts, analysis });
  const t3 = performance.now();
  const showNotes = buildShowNotes(transcript, clips, { analysis, title: opts.title });
  const t4 = performance.now();
  return {
    clips,
    showNotes,
    chapters: analysis.chapters.map((c) => ({ start: c.start, title: c.title })),
    similarity: analysis.vectorSource,
    warnings,
    timings: { embedMs: t1 - t0, analyzeMs: t2 - t1, selectMs: t3 - t2, notesMs: t4 - t3 },
  };
}
