/**
 * Highlight selection: transcript in, ranked ClipPlans out. Pure and synchronous — sentence
 * embeddings, when the model is installed, are computed beforehand by the async planHighlights()
 * (highlights/plan.ts) and passed in.
 */
import { z } from "zod";
import { analyzeTranscript, type EpisodeAnalysis, type SentenceEmbeddings } from "./analysis.ts";
import { CLIP_CATEGORIES, generateCandidates, pickNonOverlapping, scoreSpan, type AudioFeatures, type Candidate } from "./rank.ts";
import { postingCopy } from "./posting-copy.ts";
import { copyUnits, isFinishedUnit, isQuoteSized, quotableUnits, type CopyUnit } from "./copy-units.ts";
import type { ClipPlan, Transcript } from "../types.ts";
import { laughterSpans } from "../transcribe/laughter-words.ts";

export { CLIP_CATEGORIES, type AudioFeatures, type ClipCategory } from "./rank.ts";

/** Clips per job unless options.clip_count says otherwise (as many as the sandbox returns). */
export const DEFAULT_CLIP_COUNT = 3;
export const DEFAULT_MIN_CLIP_SECONDS = 20;
export const DEFAULT_MAX_CLIP_SECONDS = 60;

/**
 * Job option fields for highlights, without the cross-field check, for an API schema that spreads
 * them into its own object (`z.object({ ...HighlightOptionsFields.shape, ... }).refine(...)`).
 */
export const HighlightOptionsFields = z.object({
  clip_count: z.number().int().min(1).max(10).default(DEFAULT_CLIP_COUNT),
  min_clip_seconds: z.number().min(5).max(300).default(DEFAULT_MIN_CLIP_SECONDS),
  max_clip_seconds: z.number().min(10).max(600).default(DEFAULT_MAX_CLIP_SECONDS),
});

/** The cross-field rule, reusable in a schema that embeds the fields above. */
export const clipWindowIsValid = (o: { min_clip_seconds: number; max_clip_seconds: number }): boolean => o.min_clip_seconds < o.max_clip_seconds;
export const CLIP_WINDOW_MESSAGE = "min_clip_seconds must be less than max_clip_seconds";

/** Job options for highlights, for the API to embed in its job options schema. */
export const HighlightOptionsSchema = HighlightOptionsFields.refine(clipWindowIsValid, {
  message: CLIP_WINDOW_MESSAGE,
  path: ["min_clip_seconds"],
});
export type HighlightOptions = z.infer<typeof HighlightOptionsSchema>;

export interface SelectClipsOptions {
  count?: number;
  minSeconds?: number;
  maxSeconds?: number;
  /** Largest allowed overlap between two clips, as a fraction of the shorter one (default 0.1). */
  maxOverlap?: number;
  audio?: AudioFeatures;
  /** Sentence embeddings aligned with splitSentences(transcript.words, transcript.language); TF-IDF is used without them. */
  embeddings?: SentenceEmbeddings;
  /** A precomputed analysis of the same transcript (saves a second pass when notes are built too). */
  analysis?: EpisodeAnalysis;
}

export type NoClipsReason = "no_speech" | "speech_too_short" | "no_candidate";

/** Zero clips qualify (music only, too little speech). The job layer maps this to no_clips_to_render. */
export class NoClipsError extends Error {
  readonly code = "no_clips_to_render" as const;
  constructor(
    readonly reason: NoClipsReason,
    message: string,
  ) {
    super(message);
    this.name = "NoClipsError";
  }
}

/** A hook is shown over the clip and pasted as its first line: one or two sentences, never cut. */
const HOOK_MAX_CHARS = 200;

const sentenceCount = (u: CopyUnit) => u.last - u.first + 1;

/**
 * The clip's first finished unit of one or two sentences that says something (4+ words); a greeting
 * ("Hello.") is joined to the line after it. Falls back to the shortest finished unit, then to the
 * clip's opening unit whole: copy is never truncated mid-sentence.
 */
function hookLine(a: EpisodeAnalysis, c: Candidate): string {
  const all = copyUnits(a, c.first, c.last);
  const units = all.filter((u) => isFinishedUnit(a, u) && u.text.length <= HOOK_MAX_CHARS);
  for (let k = 0; k < units.length; k++) {
    const u = units[k]!;
    if (u.words >= 4 && sentenceCount(u) <= 2) return u.text;
    const next = units[k + 1];
    const joined = next && next.first === u.last + 1 ? `${u.text} ${next.text}` : "";
    if (joined && sentenceCount(u) + sentenceCount(next!) <= 2 && joined.length <= HOOK_MAX_CHARS) return joined;
  }
  const shortest = [...units].sort((x, y) => x.text.length - y.text.length)[0];
  return (shortest ?? all[0])?.text ?? a.sentences[c.first]!.text;
}

/**
 * The clip's most quotable unit: finished, self-contained (not pointing back), 6-30 words, a
 * statement rather than a question. Each condition is relaxed in turn only when nothing meets it.
 */
function pullQuote(a: EpisodeAnalysis, c: Candidate, hook: string): string {
  const score = (u: CopyUnit) => {
    let best = 0;
    for (let i = u.first; i <= u.last; i++) best = Math.max(best, a.interest[i]! + 0.15 * a.centrality[i]!);
    const statement = a.features[u.last]!.question ? 0.5 : 1;
    const soft = a.features[u.first]!.dangling === "soft" ? 0.8 : 1;
    // Posted together, a quote that repeats the hook wastes the second line.
    const fresh = u.text === hook ? 0.7 : 1;
    return best * statement * soft * fresh;
  };
  const finished = copyUnits(a, c.first, c.last).filter((u) => isFinishedUnit(a, u));
  const tiers = [quotableUnits(a, c.first, c.last), finished.filter(isQuoteSized), finished.filter((u) => u.words <= 40)];
  for (const tier of tiers) {
    const best = [...tier].sort((x, y) => score(y) - score(x))[0];
    if (best) return best.text;
  }
  return hook;
}

const PART_LABELS: Record<string, string> = {
  hook: "hook",
  body: "content",
  payoff: "payoff",
  centrality: "topic centrality",
  fit: "length fit",
  liveliness: "liveliness",
};

function reasonLine(c: Candidate, vectorSource: string): string {
  const dur = Math.round(c.end - c.start);
  const strongest = (Object.entries(c.parts) as [string, number][])
    .filter(([k]) => k !== "penalty")
    .sort((x, y) => y[1] - x[1])
    .slice(0, 2)
    .map(([k, v]) => `${PART_LABELS[k]} ${v.toFixed(2)}`);
  const signals = c.signals.length ? c.signals.join("; ") : "steady, self-contained passage";
  const sim = vectorSource === "lexical-tfidf" ? "topic similarity from word overlap (no embedding model)" : `topic similarity from ${vectorSource.replace(/^embeddings:/, "")}`;
  return `${c.category.replace("_", " ")}: ${signals}; strongest ${strongest.join(", ")}; ${dur} s, whole sentences; ${sim}`;
}

export function selectClips(transcript: Transcript, opts: SelectClipsOptions = {}): ClipPlan[] {
  const count = opts.count ?? DEFAULT_CLIP_COUNT;
  const minSeconds = opts.minSeconds ?? DEFAULT_MIN_CLIP_SECONDS;
  const maxSeconds = opts.maxSeconds ?? DEFAULT_MAX_CLIP_SECONDS;
  if (!(minSeconds > 0 && maxSeconds > minSeconds)) throw new RangeError(`invalid clip length window ${minSeconds}-${maxSeconds} s`);
  if (!(count >= 1)) throw new RangeError(`invalid clip count ${count}`);

  if (transcript.words.length === 0 && transcript.segments.some((s) => s.text.trim())) {
    // Not "no clips": the transcript is unusable for clipping. The job layer reports analysis_failed.
    throw new Error("transcript has segments but no word timings; clip selection needs word-level timings");
  }
  const a = opts.analysis ?? analyzeTranscript(transcript, opts.embeddings);
  if (a.sentences.length === 0) throw new NoClipsError("no_speech", "the transcript contains no speech");
  const spoken = a.sentences.reduce((s, x) => s + (x.end - x.start), 0);
  const span = a.sentences[a.sentences.length - 1]!.end - a.sentences[0]!.start;
  if (span < minSeconds) {
    throw new NoClipsError("speech_too_short", `only ${span.toFixed(1)} s of speech (${spoken.toFixed(1)} s spoken); clips need at least ${minSeconds} s`);
  }

  const candidates = generateCandidates(a, {
    minSeconds,
    maxSeconds,
    maxOverlap: opts.maxOverlap ?? 0.1,
    // Laughter is heard where the recogniser wrote it down ("Ha ha ha!", "(laughs)"), unless the caller measured it.
    audio: { ...opts.audio, laughter: opts.audio?.laughter ?? laughterSpans(transcript.words) },
    maxInternalGapSeconds: 4,
  });
  if (candidates.length === 0) {
    throw new NoClipsError("no_candidate", `no run of whole sentences between ${minSeconds} and ${maxSeconds} s starts and ends cleanly`);
  }
  const chosen = pickNonOverlapping(candidates, count, opts.maxOverlap ?? 0.1, a);
  const hooks = chosen.map((c) => hookLine(a, c));
  const quotes = chosen.map((c, i) => pullQuote(a, c, hooks[i]!));
  const titles = new Set<string>();
  return chosen.map((c, i) => ({
    rank: i + 1,
    category: c.category,
    hook: hooks[i]!,
    pull_quote: quotes[i]!,
    start_time: round3(c.start),
    end_time: round3(c.end),
    transcript_text: a.sentences
      .slice(c.first, c.last + 1)
      .map((s) => s.text)
      .join(" "),
    score: Math.round(100 * c.raw),
    reason: reasonLine(c, a.vectorSource),
    ...postingCopy(transcript, a, c, hooks[i]!, quotes[i]!, titles),
  }));
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** What a clip the producer placed gets from the same rules as the machine's: its words, hook, quote and posting copy. */
export type SpanCopy = Pick<ClipPlan, "category" | "hook" | "pull_quote" | "transcript_text" | "title" | "description" | "hashtags">;

/**
 * Copy for the whole sentences inside [start, end] (bounds already snapped to sentence edges):
 * hook, pull quote, title, description and hashtags as selectClips writes them. `taken` holds the
 * job's other clips' titles, so the new title differs from theirs. Undefined when no sentence lies inside.
 */
export function copyForSpan(transcript: Transcript, start: number, end: number, taken: Set<string>): SpanCopy | undefined {
  const a = analyzeTranscript(transcript);
  const first = a.sentences.findIndex((s) => s.start >= start - 0.001);
  let last = -1;
  a.sentences.forEach((s, i) => {
    if (s.end <= end + 0.001) last = i;
  });
  if (first < 0 || last < first) return undefined;
  const dur = a.sentences[last]!.end - a.sentences[first]!.start;
  const c = scoreSpan(a, first, last, { minSeconds: Math.min(DEFAULT_MIN_CLIP_SECONDS, dur), maxSeconds: Math.max(DEFAULT_MAX_CLIP_SECONDS, dur + 1), maxOverlap: 1, maxInternalGapSeconds: Infinity, audio: { laughter: laughterSpans(transcript.words) } });
  const hook = hookLine(a, c);
  const quote = pullQuote(a, c, hook);
  return {
    category: c.category,
    hook,
    pull_quote: quote,
    transcript_text: a.sentences.slice(first, last + 1).map((s) => s.text).join(" "),
    ...postingCopy(transcript, a, c, hook, quote, taken),
  };
}
