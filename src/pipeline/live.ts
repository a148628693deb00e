import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import type { Config } from "../config.ts";
import type { JobRow } from "../db/schema.ts";
import { jobOutputDir, type StoredOutput } from "./output.ts";
import { log } from "../log.ts";
import { DecodedTooLongError, decodeToSpeechWav } from "../media/decode-audio.ts";
import { decodedTooLongMessage } from "./decoded-length.ts";
import { detectEngine, encoderLabel } from "../media/ffmpeg-engine.ts";
import { tryLoadEmbedder, type Embedder } from "../inference/embedder.ts";
import { SpeechRuntimeMissingError } from "../inference/speech-runtime/runtime.ts";
import { ModelCorruptedError, ModelNotAvailableError, resolveModel } from "../models/store.ts";
import { acquire, sharedUploadFileName, uploadedFileName } from "./acquire.ts";
import type { ObjectStore } from "../storage/index.ts";
import { DEFAULT_CAPTION_STYLE, type CaptionStyle } from "./render/captions.ts";
import { captionRefs, exportRefs, writeExports, type ExportFiles } from "./exports.ts";
import { DEFAULT_CLIP_COUNT, DEFAULT_MAX_CLIP_SECONDS, DEFAULT_MIN_CLIP_SECONDS, NoClipsError } from "./highlights/select-clips.ts";
import { audioFeaturesFromWav } from "./highlights/audio.ts";
import { planHighlights } from "./highlights/plan.ts";
import { strengthenPunctuation } from "./highlights/redecode.ts";
import { renderClipFormats, type ClipFormat } from "./render/render.ts";
import { lookOf, type BrandLook, type BrandSnapshot } from "./render/brand.ts";
import { renderClipCovers } from "./render/cover.ts";
import { cardsOf, type CardTiming } from "./render/cards.ts";
import type { SpeakerCropPlan } from "./render/crop.ts";
import type { CropPath } from "./render/graph.ts";
import { PipelineError, type LivePipeline, type Stage } from "./stage.ts";
import { isOutOfSpace } from "../storage/disk-space.ts";
import { planTrailer, renderTrailer } from "./render/trailer.ts";
import type { PassageFraming } from "./render/trailer-framing.ts";
import { transcribeFile, TranscriptionError } from "./transcribe/transcribe.ts";
import type { SpeakersOption } from "./transcribe/cast.ts";
import { correctNearMisses } from "./transcribe/near-miss.ts";
import { transcriptSegments } from "./transcribe/segments.ts";
import { mergeVocabulary } from "./transcribe/vocabulary.ts";
import { notesText } from "./language/notes-text.ts";
import type { ClipPlan, MediaInfo, Transcript } from "./types.ts";

const FORMATS_RENDERED: ClipFormat[] = ["linkedin", "x"];
/** Three 20-60 s clips often hold under 60 s of whole sentences: a trailer may draw on this many more. */
const TRAILER_EXTRA_PASSAGES = 4;

export interface LiveOptions {
  include_trailer?: boolean;
  caption_style?: CaptionStyle;
  clip_count?: number;
  min_clip_seconds?: number;
  max_clip_seconds?: number;
  speakers?: SpeakersOption;
  vocabulary?: string[];
  /** ISO 639-1 code, or "auto" (default) to detect it. */
  language?: string;
  /** false: render without the organisation's brand. */
  brand?: boolean;
}

/** Everything a live job produces, stage by stage; JSON so each stage's result survives a restart. */
export type LiveState = {
  source?: MediaInfo;
  transcript?: Transcript;
  plan?: { clips: ClipPlan[]; showNotes: string; chapters?: Array<{ start: number; title: string }>; similarity: string; warnings: string[] };
  /** Further ranked passages, not rendered as clips, that give a trailer enough material. */
  trailerExtras?: ClipPlan[];
  rendered?: Array<{ plan: ClipPlan; files: Record<string, string>; thumbnails?: Record<string, string>; cards?: CardTiming }>;
  /**
   * The brand the job renders with, taken when its render stage first runs (null: none, or the job
   * said brand: false). Its re-renders use it too, so a later brand change never alters this job.
   */
  brand?: BrandSnapshot | null;
  trailer?: { file: string; duration_seconds: number } | null;
  /** The 9:16 framing of each trailer passage, and what it was planned from: a trailer re-rendered after a correction reuses what still holds. */
  trailerFraming?: PassageFraming[];
  /** An upload's file name as the client gave it, when it came from shared storage (the data directory has no metadata file then). */
  uploadName?: string;
  /** Caption sidecars, transcript files, chapters and timeline, written by the notes stage. */
  exports?: ExportFiles;
  warnings: string[];
  engine: Record<string, string>;
};

let embedderOnce: Promise<{ embedder: Embedder | null; reason?: string }> | undefined;

/** The transcript's speaker labels, with names where a speaker introduced themself. */
export function namedSegments(t: Transcript) {
  const name = (s: string) => t.speakerNames?.[s] ?? s;
  return t.segments.map((s) => ({ ...s, speaker: name(s.speaker) }));
}

/** The job's error message for a failed transcription: what the operator can do, never the internals. */
function transcriptionFailure(err: unknown): string {
  if (err instanceof ModelCorruptedError) return err.message;
  // An English-only model asked for another language: the message says which model to pick.
  if (err instanceof TranscriptionError) return err.message;
  if (err instanceof ModelNotAvailableError) return `speech model '${err.model}' is not installed or not verified; run \`clipyard models pull ${err.model}\``;
  if (err instanceof SpeechRuntimeMissingError) return "the speech runtime is not installed; run `clipyard runtime install`";
  return "transcription failed on an internal error; the appliance's log has the details under this job's id";
}

export interface LivePipelineOptions {
  /** Where a job's deliverables go; default the data directory's jobs/<id>/out (served by share pages). */
  outDir?(job: JobRow): string;
  /** Shared storage (CLIPYARD_STORAGE_URL): uploads are fetched from it. */
  store?: ObjectStore;
  /** The organisation's stored vocabulary for the job's world (GET/PUT /v1/vocabulary), merged with the job's own. */
  orgVocabulary?(job: JobRow): string[];
  /** The organisation's brand in the job's world (GET/PUT /v1/brand), or null when it has none. */
  orgBrand?(job: JobRow): BrandSnapshot | null;
}

/**
 * The live pipeline. A job's source is a URL (video_url, youtube_url), an upload (source type
 * "upload", its url the upload id) or, for `clipyard process`, a local file (source type "file").
 */
export function livePipeline(config: Config, opts: LivePipelineOptions = {}): LivePipeline<LiveState> {
  const outDir = opts.outDir ?? ((job: JobRow) => jobOutputDir(config.dataDir, job.id));
  const options = (job: JobRow) => JSON.parse(job.options) as LiveOptions;
  const vocabulary = (job: JobRow) => mergeVocabulary(options(job).vocabulary, opts.orgVocabulary?.(job));
  // Each rendered clip's 9:16 framing, in `rendered` order, for the trailer's segments inside it to
  // reuse rather than analyse faces again. Held by the run's state object, not checkpointed: a job
  // resumed after the render stage analyses the trailer's passages afresh.
  const clipFraming = new WeakMap<LiveState, (CropPath | undefined)[]>();

  const stages = (job: JobRow): Stage<LiveState>[] => [
    {
      name: "acquire",
      weight: job.sourceType === "youtube_url" ? 3 : 1,
      run: async (ctx) => {
        ctx.state.source = await acquire({ type: job.sourceType, url: job.sourceUrl }, join(ctx.workDir, "source"), config, {
          signal: ctx.signal,
          onProgress: ctx.report,
          store: opts.store,
        });
        if (opts.store?.shared && job.sourceType === "upload") ctx.state.uploadName = await sharedUploadFileName(opts.store, job.sourceUrl);
      },
    },
    {
      name: "transcribe",
      weight: 6,
      run: async (ctx) => {
        try {
          ctx.state.transcript = await transcribeFile(ctx.state.source!.path, { speakers: options(job).speakers, vocabulary: vocabulary(job), language: options(job).language, onProgress: ctx.report, signal: ctx.signal, maxSeconds: config.maxMediaSeconds });
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          if (err instanceof DecodedTooLongError) throw new PipelineError("media_fetch_failed", decodedTooLongMessage(err.limitSeconds, config.maxMediaSeconds), { cause: err });
          throw new PipelineError("analysis_failed", transcriptionFailure(err), { cause: err });
        }
        // From here on the source lasts what was decoded, never what its header claimed.
        const measured = ctx.state.transcript.durationSeconds;
        if (measured !== undefined) ctx.state.source = { ...ctx.state.source!, durationSeconds: measured };
        ctx.state.engine.asr = ctx.state.transcript.engine ?? "unknown";
        ctx.state.warnings.push(...(ctx.state.transcript.warnings ?? []));
      },
    },
    {
      name: "highlights",
      weight: 2,
      run: async (ctx) => {
        const o = options(job);
        embedderOnce ??= tryLoadEmbedder(config.modelsDir);
        const { embedder, reason } = await embedderOnce;
        // Loudness per half second feeds the liveliness score; 16 kHz mono is plenty for that.
        const wav = join(ctx.workDir, "speech.wav");
        // Bounded by what the transcribe stage measured (a second over it, for rounding).
        await decodeToSpeechWav(ctx.state.source!.path, wav, { maxSeconds: ctx.state.source!.durationSeconds + 1 });
        const audio = audioFeaturesFromWav(wav);
        // Long stretches with no evidenced sentence end get a second opinion from the bigger model.
        const strengthened = await strengthenPunctuation(ctx.state.transcript!, wav, ctx.signal);
        // Re-decoded stretches come from a recogniser that was not given the vocabulary: its near misses are corrected too.
        ctx.state.transcript = withVocabulary(strengthened.transcript, vocabulary(job));
        if (strengthened.engine) ctx.state.engine.redecode = strengthened.engine;
        if (strengthened.warning) ctx.state.warnings.push(strengthened.warning);
        rmSync(wav, { force: true });
        try {
          const count = o.clip_count ?? DEFAULT_CLIP_COUNT;
          const plan = await planHighlights(ctx.state.transcript!, {
            embedder,
            embedderUnavailableReason: reason,
            count: count + (o.include_trailer ? TRAILER_EXTRA_PASSAGES : 0),
            minSeconds: o.min_clip_seconds ?? DEFAULT_MIN_CLIP_SECONDS,
            maxSeconds: o.max_clip_seconds ?? DEFAULT_MAX_CLIP_SECONDS,
            audio,
            llm: config.llm,
            postCount: count,
            signal: ctx.signal,
          });
          ctx.state.plan = { clips: plan.clips.slice(0, count), showNotes: plan.showNotes, chapters: plan.chapters, similarity: plan.similarity, warnings: plan.warnings };
          ctx.state.trailerExtras = plan.clips.slice(count);
          ctx.state.engine.highlights = plan.similarity;
          ctx.state.engine.editor = plan.editor;
          ctx.state.warnings.push(...plan.warnings);
        } catch (err) {
          if (err instanceof NoClipsError) throw new PipelineError("no_clips_to_render", err.message);
          throw new PipelineError("analysis_failed", "clip selection failed on an internal error; the appliance's log has the details under this job's id", { cause: err });
        }
      },
    },
    {
      name: "render",
      weight: 10,
      run: async (ctx) => {
        const { source, transcript, plan } = ctx.state as Required<LiveState>;
        const o = options(job);
        const engine = await detectEngine();
        ctx.state.engine.ffmpeg = `${engine.kind} ${engine.version.replace(/^ffmpeg version (\S+).*$/, "$1")}, ${encoderLabel(engine)}`;
        if (ctx.state.brand === undefined) ctx.state.brand = o.brand === false ? null : (opts.orgBrand?.(job) ?? null);
        const look = await lookOf(ctx.state.brand, config.dataDir, opts.store);
        if (source.hasVideo) {
          // The renderer falls back to a centred 9:16 crop without the face models; the job says so.
          try {
            resolveModel("human-face", config.modelsDir);
          } catch (err) {
            log.warn("face model unavailable", { job: job.id, error: (err as Error).message });
            ctx.state.warnings.push("9:16 clips use a centred crop, not speaker tracking: the face model is not installed or not verified (`clipyard models pull human-face`)");
          }
        }
        mkdirSync(outDir(job), { recursive: true });
        const rendered: NonNullable<LiveState["rendered"]> = [];
        const framing: (CropPath | undefined)[] = [];
        clipFraming.set(ctx.state, framing);
        for (const [i, clip] of plan.clips.entries()) {
          const files: Record<string, string> = {};
          const paths: Partial<Record<ClipFormat, string>> = {};
          let faces: SpeakerCropPlan | undefined;
          let cards: CardTiming | undefined;
          try {
            await renderClipFormats(
              {
                source,
                words: transcript.words,
                start: clip.start_time,
                end: clip.end_time,
                style: o.caption_style ?? DEFAULT_CAPTION_STYLE,
                card: source.hasVideo ? undefined : audiogramCard(plan.showNotes, transcript, clip.title),
                look,
                cards: cardsOf(look),
              },
              FORMATS_RENDERED.map((format) => ({ format, outPath: join(outDir(job), `clip${i + 1}_${format}.mp4`) })),
              {
                onProgress: (f) => ctx.report((i + f) / plan.clips.length),
                onRendered: (format, path) => {
                  files[format] = `job:clip${i + 1}_${format}.mp4`;
                  paths[format] = path;
                },
                onCropPlan: (p) => (faces = p),
                onCards: (t) => (cards = t),
              },
            );
            const thumbnails = await clipThumbnails({ source, words: transcript.words, clip, look, faces, paths, base: join(outDir(job), `clip${i + 1}`), warnings: ctx.state.warnings, rank: i + 1, introSeconds: cards?.intro });
            ctx.report((i + 1) / plan.clips.length);
            rendered.push({ plan: clip, files, ...(thumbnails ? { thumbnails } : {}), ...(cards ? { cards } : {}) });
            framing.push(faces?.path);
          } catch (err) {
            // A full disk fails the job rather than completing it, and charging for it, with fewer clips.
            if (ctx.signal.aborted || isOutOfSpace(err)) throw err;
            log.warn("clip render failed", { job: job.id, clip: i + 1, error: (err as Error).message });
            ctx.state.warnings.push(`clip ${i + 1} (${clip.start_time.toFixed(1)}-${clip.end_time.toFixed(1)} s) could not be rendered; the appliance's log has the details`);
          }
        }
        if (rendered.length === 0) throw new PipelineError("all_renders_failed", `none of the ${plan.clips.length} clips could be rendered; the appliance's log has the details under this job's id`);
        ctx.state.rendered = rendered;
      },
    },
    {
      name: "trailer",
      weight: options(job).include_trailer ? 6 : 0,
      run: async (ctx) => {
        const { source, transcript, rendered } = ctx.state as Required<LiveState>;
        ctx.state.trailer = null;
        if (!options(job).include_trailer) return;
        if (!source.hasVideo) {
          ctx.state.warnings.push("no trailer: trailers are made for video sources only");
          return;
        }
        try {
          const passages = [...rendered.map((r) => r.plan), ...(ctx.state.trailerExtras ?? [])];
          const segments = planTrailer(passages.map((p) => ({ start: p.start_time, end: p.end_time })), transcript.words);
          const look = await lookOf(ctx.state.brand, config.dataDir, opts.store);
          const passageCrops = clipFraming.get(ctx.state);
          const t = await renderTrailer({ source, words: transcript.words, segments, style: options(job).caption_style, look, cards: cardsOf(look), passageCrops, outPath: join(outDir(job), "trailer.mp4") });
          ctx.state.trailer = { file: "job:trailer.mp4", duration_seconds: Math.round(t.durationSeconds * 1000) / 1000 };
          ctx.state.trailerFraming = t.framing;
        } catch (err) {
          if (ctx.signal.aborted || isOutOfSpace(err)) throw err;
          log.warn("trailer failed", { job: job.id, error: (err as Error).message });
          ctx.state.warnings.push("no trailer: it could not be rendered; the appliance's log has the details");
        }
      },
    },
    {
      name: "notes",
      weight: 0.2,
      run: async (ctx) => {
        const { transcript, plan, rendered, source } = ctx.state as Required<LiveState>;
        writeFileSync(join(outDir(job), "notes.md"), plan.showNotes);
        writeFileSync(join(outDir(job), "transcript.json"), JSON.stringify({ language: transcript.language, segments: namedSegments(transcript), words: publishedWords(transcript.words), speaker_names: transcript.speakerNameEvidence ?? [] }));
        ctx.state.exports = writeExports(outDir(job), {
          title: notesTitle(plan.showNotes) ?? "Episode",
          words: transcript.words,
          segments: transcript.segments,
          speakerNames: transcript.speakerNames,
          chapters: plan.chapters ?? [],
          clips: rendered.map((r) => (r.cards ? { ...r.plan, intro_seconds: r.cards.intro } : r.plan)),
          source: { name: sourceMediaName(job, source.path, config.dataDir, ctx.state.uploadName), durationSeconds: source.durationSeconds, fps: source.fps, hasVideo: source.hasVideo },
        });
      },
    },
  ];

  return {
    stages,
    initialState: () => ({ warnings: [], engine: {} }),
    output: (state, job) => buildOutput(state, job),
  };
}

/** Words as transcript.json gives them: the recogniser's confidence as `probability` (0..1) where it reported one. */
export function publishedWords(words: Transcript["words"]) {
  return words.map(({ p, ...w }) => (p === undefined ? w : { ...w, probability: p }));
}

/** The transcript with near misses of the vocabulary corrected, its segments rebuilt from the corrected words. */
export function withVocabulary(t: Transcript, vocabulary: string[]): Transcript {
  const { words, corrections } = correctNearMisses(t.words, vocabulary);
  if (!corrections.length) return t;
  return { ...t, words, segments: transcriptSegments(words, t.speakerActivity ?? t.speakerTurns) };
}

export const notesTitle = (notes: string): string | undefined => /^# (.+)$/m.exec(notes)?.[1]?.trim();

/** The source's own file name where it has one, so an editor can relink the timeline to its copy. */
export function sourceMediaName(job: JobRow, acquiredPath: string, dataDir: string, uploadName?: string): string {
  const named =
    job.sourceType === "video_url" ? decodeURIComponent(basename(new URL(job.sourceUrl).pathname))
    : job.sourceType === "upload" ? (uploadName ?? uploadedFileName(dataDir, job.sourceUrl) ?? "")
    : job.sourceType === "file" ? basename(acquiredPath)
    : "";
  return extname(named) ? named : `source${extname(acquiredPath)}`;
}

/**
 * Covers of one rendered clip, as stored file references per format ("job:NAME.jpg"); a failure is a
 * warning, never a lost clip. `base` is the path the files are named from (`<base>_<format>.jpg`).
 */
export async function clipThumbnails(o: {
  source: MediaInfo; words: Transcript["words"]; clip: { start_time: number; end_time: number; title?: string; hook: string };
  look: BrandLook; faces?: SpeakerCropPlan; paths: Partial<Record<ClipFormat, string>>; base: string; warnings: string[]; rank: number; introSeconds?: number;
}): Promise<Record<string, string> | undefined> {
  try {
    const made = await renderClipCovers({
      source: o.source, words: o.words, start: o.clip.start_time, end: o.clip.end_time, title: o.clip.title ?? o.clip.hook, look: o.look, plan: o.faces,
      rendered: o.paths, introSeconds: o.introSeconds, outPath: (format) => `${o.base}_${format}.jpg`,
    });
    return Object.fromEntries(Object.entries(made).map(([format, path]) => [format, `job:${basename(path)}`]));
  } catch (err) {
    if (isOutOfSpace(err)) throw err;
    log.warn("thumbnail failed", { clip: o.rank, error: (err as Error).message });
    o.warnings.push(`clip ${o.rank} has no thumbnail: it could not be made; the appliance's log has the details`);
    return undefined;
  }
}

/**
 * The audiogram's title and speaker names, in the episode's language ("Intervenant 2", not "Speaker
 * 2"). The title is the clip's own where it has one: each audiogram is posted alone.
 */
export function audiogramCard(notes: string, t: Transcript, clipTitle?: string) {
  const text = notesText(t.language);
  const title = clipTitle ?? notesTitle(notes) ?? text.episode;
  const turns = t.speakerTurns ?? t.segments;
  return { title, speakers: turns.map((s) => ({ start: s.start, end: s.end, name: t.speakerNames?.[s.speaker] ?? text.speaker(s.speaker) })) };
}

/** A clip's card timing as the output stores it, to the millisecond. */
export function cardSeconds(t: CardTiming): { intro_seconds: number; outro_seconds: number } {
  const ms = (n: number) => Math.round(n * 1000) / 1000;
  return { intro_seconds: ms(t.intro), outro_seconds: ms(t.outro) };
}

/** The job's stored output: clips re-ranked over those that rendered, in rank order. */
export function buildOutput(state: LiveState, job: JobRow): StoredOutput {
  const suffix = job.id.slice("job_".length);
  const clips = (state.rendered ?? []).map((r, i) => ({
    id: `clip_${suffix}${i + 1}`,
    rank: i + 1,
    category: r.plan.category,
    hook: r.plan.hook,
    pull_quote: r.plan.pull_quote,
    start_time: r.plan.start_time,
    end_time: r.plan.end_time,
    duration_seconds: Math.round((r.plan.end_time - r.plan.start_time) * 1000) / 1000,
    transcript_text: r.plan.transcript_text,
    files: r.files,
    ...(r.thumbnails ? { thumbnails: r.thumbnails } : {}),
    ...(r.cards ? { cards: cardSeconds(r.cards) } : {}),
    ...(state.exports ? { captions: captionRefs(state.exports, i, "job") } : {}),
    score: r.plan.score,
    reason: r.plan.reason,
    title: r.plan.title,
    description: r.plan.description,
    hashtags: r.plan.hashtags,
  }));
  return {
    title: notesTitle(state.plan?.showNotes ?? ""),
    ...(state.transcript?.language ? { language: state.transcript.language } : {}),
    clips,
    trailer: state.trailer ?? null,
    show_notes: state.plan!.showNotes,
    transcript: namedSegments(state.transcript!),
    ...(state.transcript?.speakerNameEvidence?.length ? { speaker_names: state.transcript.speakerNameEvidence } : {}),
    ...(state.exports ? { exports: exportRefs(state.exports, "job") } : {}),
    warnings: state.warnings.length ? state.warnings : undefined,
    engine: state.engine,
  };
}
