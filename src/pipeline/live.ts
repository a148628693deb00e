import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import type { JobRow } from "../db/schema.ts";
import type { LivePipeline } from "../jobs/live-runner.ts";
import type { StoredOutput } from "../jobs/output.ts";
import { log } from "../log.ts";
import { decodeToSpeechWav } from "../media/decode-audio.ts";
import { detectEngine } from "../media/ffmpeg-engine.ts";
import { tryLoadEmbedder, type Embedder } from "../models/embedder.ts";
import { resolveModel } from "../models/store.ts";
import { jobOutputDir } from "../web/share.ts";
import { acquire } from "./acquire.ts";
import { DEFAULT_CAPTION_STYLE, type CaptionStyle } from "./captions.ts";
import { DEFAULT_CLIP_COUNT, DEFAULT_MAX_CLIP_SECONDS, DEFAULT_MIN_CLIP_SECONDS, NoClipsError } from "./highlights.ts";
import { audioFeaturesFromWav } from "./highlights-audio.ts";
import { planHighlights } from "./highlights-plan.ts";
import { renderClipFormats, type ClipFormat } from "./render.ts";
import { PipelineError, type Stage } from "./stage.ts";
import { planTrailer, renderTrailer } from "./trailer.ts";
import { transcribeFile } from "./transcribe.ts";
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
}

/** Everything a live job produces, stage by stage; JSON so each stage's result survives a restart. */
export type LiveState = {
  source?: MediaInfo;
  transcript?: Transcript;
  plan?: { clips: ClipPlan[]; showNotes: string; similarity: string; warnings: string[] };
  /** Further ranked passages, not rendered as clips, that give a trailer enough material. */
  trailerExtras?: ClipPlan[];
  rendered?: Array<{ plan: ClipPlan; files: Record<string, string> }>;
  trailer?: { file: string; duration_seconds: number } | null;
  warnings: string[];
  engine: Record<string, string>;
};

let embedderOnce: Promise<{ embedder: Embedder | null; reason?: string }> | undefined;

/** The transcript's speaker labels, with names where a speaker introduced themself. */
export function namedSegments(t: Transcript) {
  const name = (s: string) => t.speakerNames?.[s] ?? s;
  return t.segments.map((s) => ({ ...s, speaker: name(s.speaker) }));
}

export interface LivePipelineOptions {
  /** Where a job's deliverables go; default the data directory's jobs/<id>/out (served by share pages). */
  outDir?(job: JobRow): string;
}

/**
 * The live pipeline. A job's source is a URL (video_url, youtube_url) or, for `clipyard process`,
 * a local file (source type "file").
 */
export function livePipeline(config: Config, opts: LivePipelineOptions = {}): LivePipeline<LiveState> {
  const outDir = opts.outDir ?? ((job: JobRow) => jobOutputDir(config.dataDir, job.id));
  const options = (job: JobRow) => JSON.parse(job.options) as LiveOptions;

  const stages = (job: JobRow): Stage<LiveState>[] => [
    {
      name: "acquire",
      weight: job.sourceType === "youtube_url" ? 3 : 1,
      run: async (ctx) => {
        ctx.state.source = await acquire({ type: job.sourceType, url: job.sourceUrl }, join(ctx.workDir, "source"), config, {
          signal: ctx.signal,
          onProgress: ctx.report,
        });
      },
    },
    {
      name: "transcribe",
      weight: 6,
      run: async (ctx) => {
        try {
          ctx.state.transcript = await transcribeFile(ctx.state.source!.path, { onProgress: ctx.report, signal: ctx.signal });
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          throw new PipelineError("analysis_failed", `transcription failed: ${(err as Error).message}`);
        }
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
        await decodeToSpeechWav(ctx.state.source!.path, wav);
        const audio = audioFeaturesFromWav(wav);
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
          });
          ctx.state.plan = { clips: plan.clips.slice(0, count), showNotes: plan.showNotes, similarity: plan.similarity, warnings: plan.warnings };
          ctx.state.trailerExtras = plan.clips.slice(count);
          ctx.state.engine.highlights = plan.similarity;
          ctx.state.warnings.push(...plan.warnings);
        } catch (err) {
          if (err instanceof NoClipsError) throw new PipelineError("no_clips_to_render", err.message);
          throw new PipelineError("analysis_failed", `clip selection failed: ${(err as Error).message}`);
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
        ctx.state.engine.ffmpeg = `${engine.kind} ${engine.version.replace(/^ffmpeg version (\S+).*$/, "$1")}, ${engine.encoder}`;
        const card = source.hasVideo ? undefined : audiogramCard(plan.showNotes, transcript);
        if (source.hasVideo) {
          // The renderer falls back to a centred 9:16 crop without the face models; the job says so.
          try {
            resolveModel("human-face", config.modelsDir);
          } catch (err) {
            ctx.state.warnings.push(`9:16 clips use a centred crop, not speaker tracking: ${(err as Error).message}`);
          }
        }
        mkdirSync(outDir(job), { recursive: true });
        const rendered: NonNullable<LiveState["rendered"]> = [];
        for (const [i, clip] of plan.clips.entries()) {
          const files: Record<string, string> = {};
          try {
            await renderClipFormats(
              {
                source,
                words: transcript.words,
                start: clip.start_time,
                end: clip.end_time,
                style: o.caption_style ?? DEFAULT_CAPTION_STYLE,
                card,
              },
              FORMATS_RENDERED.map((format) => ({ format, outPath: join(outDir(job), `clip${i + 1}_${format}.mp4`) })),
              {
                onProgress: (f) => ctx.report((i + f) / plan.clips.length),
                onRendered: (format) => (files[format] = `job:clip${i + 1}_${format}.mp4`),
              },
            );
            ctx.report((i + 1) / plan.clips.length);
            rendered.push({ plan: clip, files });
          } catch (err) {
            if (ctx.signal.aborted) throw err;
            log.warn("clip render failed", { job: job.id, clip: i + 1, error: (err as Error).message });
            ctx.state.warnings.push(`clip ${i + 1} (${clip.start_time.toFixed(1)}-${clip.end_time.toFixed(1)} s) could not be rendered: ${(err as Error).message.slice(0, 300)}`);
          }
        }
        if (rendered.length === 0) throw new PipelineError("all_renders_failed", `none of the ${plan.clips.length} clips could be rendered: ${ctx.state.warnings.at(-1) ?? ""}`);
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
          const t = await renderTrailer({ source, words: transcript.words, segments, style: options(job).caption_style, outPath: join(outDir(job), "trailer.mp4") });
          ctx.state.trailer = { file: "job:trailer.mp4", duration_seconds: Math.round(t.durationSeconds * 1000) / 1000 };
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          ctx.state.warnings.push(`no trailer: ${(err as Error).message}`);
        }
      },
    },
    {
      name: "notes",
      weight: 0.2,
      run: async (ctx) => {
        const { transcript, plan } = ctx.state as Required<LiveState>;
        writeFileSync(join(outDir(job), "notes.md"), plan.showNotes);
        writeFileSync(join(outDir(job), "transcript.json"), JSON.stringify({ language: transcript.language, segments: namedSegments(transcript), words: transcript.words }));
      },
    },
  ];

  return {
    stages,
    initialState: () => ({ warnings: [], engine: {} }),
    output: (state, job) => buildOutput(state, job),
  };
}

function audiogramCard(notes: string, t: Transcript) {
  const title = /^# (.+)$/m.exec(notes)?.[1]?.trim() ?? "Episode";
  const turns = t.speakerTurns ?? t.segments;
  return { title, speakers: turns.map((s) => ({ start: s.start, end: s.end, name: t.speakerNames?.[s.speaker] ?? s.speaker })) };
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
    score: r.plan.score,
    reason: r.plan.reason,
  }));
  return {
    title: /^# (.+)$/m.exec(state.plan?.showNotes ?? "")?.[1]?.trim(),
    clips,
    trailer: state.trailer ?? null,
    show_notes: state.plan!.showNotes,
    transcript: namedSegments(state.transcript!),
    warnings: state.warnings.length ? state.warnings : undefined,
    engine: state.engine,
  };
}
