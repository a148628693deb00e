import { z } from "zod";
import { CAPTION_STYLES } from "../pipeline/render/captions.ts";
import { FORMATS, type ClipFormat } from "../pipeline/render/graph.ts";
import { MAX_SPEAKER_NAME_LENGTH, NAME_CHARACTERS, NAME_CHARACTERS_MESSAGE, SpeakerNameSchema, SpeakersOptionSchema } from "../pipeline/transcribe/cast.ts";
import { SOURCE_TYPES } from "./source-url.ts";
import { VocabularySchema } from "./vocabulary-schema.ts";
import { LANGUAGE_OPTIONS } from "../pipeline/language/languages.ts";
import { BoundedUrlSchema, MAX_URL_LENGTH } from "../net/url-bounds.ts";
import { CLIP_WINDOW_MESSAGE, clipWindowIsValid, DEFAULT_CLIP_COUNT, DEFAULT_MAX_CLIP_SECONDS, DEFAULT_MIN_CLIP_SECONDS, HighlightOptionsFields } from "../pipeline/highlights/select-clips.ts";

// The highlight stage owns its option bounds; the API takes them without defaults, so options echo
// exactly what the caller sent.
const clip = HighlightOptionsFields.shape;

/**
 * The Job resource and its submission body: one set of zod schemas drives request validation,
 * TypeScript types, the OpenAPI document and the MCP tool schemas.
 */

export const JobOptionsSchema = z
  .object({
    include_trailer: z.boolean().optional().describe("Render a vertical 60-90 s highlights trailer (video sources)."),
    caption_style: z.enum(CAPTION_STYLES).optional().describe(`Caption preset: ${CAPTION_STYLES.join(", ")}.`),
    clip_count: clip.clip_count.unwrap().optional().describe(`Extension: number of clips, 1-10 (default ${DEFAULT_CLIP_COUNT}).`),
    min_clip_seconds: clip.min_clip_seconds.unwrap().optional().describe(`Extension: shortest clip in seconds, 5-300 (default ${DEFAULT_MIN_CLIP_SECONDS}).`),
    max_clip_seconds: clip.max_clip_seconds.unwrap().optional().describe(`Extension: longest clip in seconds, 10-600 (default ${DEFAULT_MAX_CLIP_SECONDS}).`),
    speakers: SpeakersOptionSchema.optional(),
    vocabulary: VocabularySchema.optional(),
    language: z
      .enum(LANGUAGE_OPTIONS as [string, ...string[]], { message: "must be auto or a language code Whisper knows (ISO 639-1, e.g. en, fr, de)" })
      .optional()
      .describe("Extension: the episode's spoken language, an ISO 639-1 code Whisper knows (en, fr, de, es, …), or auto to detect it (default auto)."),
    brand: z.boolean().optional().describe("Extension: false renders the job without the organisation's brand (GET/PUT /v1/brand); default true."),
  })
  .strict()
  .refine(
    (o) =>
      clipWindowIsValid({ min_clip_seconds: o.min_clip_seconds ?? DEFAULT_MIN_CLIP_SECONDS, max_clip_seconds: o.max_clip_seconds ?? DEFAULT_MAX_CLIP_SECONDS }),
    { message: CLIP_WINDOW_MESSAGE, path: ["min_clip_seconds"] },
  );

export const UrlSourceSchema = z
  .object({
    type: z.enum(SOURCE_TYPES as [string, ...string[]]).describe("video_url or youtube_url"),
    url: BoundedUrlSchema.describe(`HTTPS URL valid for the type, at most ${MAX_URL_LENGTH} characters`),
  })
  .strict();

export const UploadSourceSchema = z
  .object({
    type: z.literal("upload").describe("Extension: media sent to POST /v1/uploads"),
    upload_id: z.string().describe("Extension: the upl_ id POST /v1/uploads returned (same organisation and environment, not expired, fully received)"),
  })
  .strict();

/** A URL source (the spec's) or an upload (extension); the type picks which, so errors name source.type. */
export const JobSourceSchema = z.discriminatedUnion("type", [UrlSourceSchema, UploadSourceSchema]);

export const JobCreateSchema = z
  .object({
    source: JobSourceSchema,
    options: JobOptionsSchema.optional(),
  })
  .strict();

export type JobCreate = z.infer<typeof JobCreateSchema>;
export type JobOptions = z.infer<typeof JobOptionsSchema>;

export const ClipRenderStateSchema = z.object({
  id: z.string().describe("rnd_ prefix"),
  status: z.enum(["queued", "rendering", "complete", "failed"]),
  caption_style: z.string(),
  start_time: z.number().describe("snapped to sentence edges"),
  end_time: z.number().describe("snapped to sentence edges"),
  formats: z.array(z.string()),
  requested_at: z.string(),
  completed_at: z.string().nullable(),
  error: z.string().nullable(),
  warnings: z.array(z.string()).optional().describe("Extension: what a complete render made without (a cover that could not be made: the clip then has no thumbnail_urls); absent when nothing"),
});

/** POST /v1/jobs/{id}/clips/{clip_id}/renders (extension): what to change; anything left out keeps the clip's value. */
export const ClipRenderCreateSchema = z
  .object({
    caption_style: z.enum(CAPTION_STYLES).optional().describe(`Caption preset: ${CAPTION_STYLES.join(", ")}.`),
    start_time: z.number().min(0).optional().describe("Seconds into the source; snapped to the nearest sentence start"),
    end_time: z.number().positive().optional().describe("Seconds into the source; snapped to the nearest finished sentence's end after the start"),
    formats: z.array(z.enum(Object.keys(FORMATS) as [ClipFormat, ...ClipFormat[]])).min(1).optional().describe("The formats the clip has afterwards (linkedin 9:16, x 16:9); default its current ones"),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "name at least one of caption_style, start_time, end_time, formats" })
  .refine((b) => b.start_time === undefined || b.end_time === undefined || b.end_time > b.start_time, { message: "must be after start_time", path: ["end_time"] });

/** Most entries in one transcript correction, of each kind. */
export const MAX_CORRECTIONS = 100;
/** Speaker edits in one correction: more than a cast has voices, with room for a rename after each merge. */
export const MAX_SPEAKER_EDITS = 20;

/** POST /v1/jobs/{id}/transcript/corrections (extension): whole-word swaps and/or what was said between two times. */
export const TranscriptCorrectionSchema = z
  .object({
    replace: z
      .array(
        z
          .object({
            find: z.string().trim().min(1).max(200).regex(/[\p{L}\p{N}]/u, "must contain a letter or digit").describe("Word or phrase as transcribed; matched as whole words, case-insensitively"),
            with: z.string().trim().min(1).max(200).describe("What was said"),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_CORRECTIONS)
      .optional(),
    words: z
      .array(
        z
          .object({
            start_time: z.number().min(0).describe("Seconds into the source"),
            end_time: z.number().positive().describe("Seconds into the source; the words whose middle lies between the two times are replaced"),
            text: z.string().trim().max(1000).describe("What was said there (empty: nothing was)"),
          })
          .strict()
          .refine((w) => w.end_time > w.start_time, { message: "must be after start_time", path: ["end_time"] }),
      )
      .min(1)
      .max(MAX_CORRECTIONS)
      .optional(),
    speakers: z
      .array(
        z
          .object({
            speaker: z.string().trim().min(1).max(MAX_SPEAKER_NAME_LENGTH).regex(NAME_CHARACTERS, NAME_CHARACTERS_MESSAGE).describe("A voice as the transcript shows it: its name or its label (`Speaker 3`), case-insensitively"),
            name: SpeakerNameSchema.optional().describe("What the voice is called from now on (used trimmed)"),
            same_as: z.string().trim().min(1).max(MAX_SPEAKER_NAME_LENGTH).regex(NAME_CHARACTERS, NAME_CHARACTERS_MESSAGE).optional().describe("Another voice (name or label) that is the same person: this voice's words and time become that one's"),
            start_time: z.number().min(0).optional().describe("With end_time: the words whose middle lies between the two times (seconds into the source) are this voice's; a voice the transcript does not have yet is added, named so"),
            end_time: z.number().positive().optional().describe("Seconds into the source; see start_time"),
          })
          .strict()
          .refine((e) => (e.start_time === undefined) === (e.end_time === undefined), { message: "give start_time and end_time together", path: ["end_time"] })
          .refine((e) => e.start_time === undefined || e.end_time === undefined || e.end_time > e.start_time, { message: "must be after start_time", path: ["end_time"] })
          .refine((e) => [e.name, e.same_as, e.start_time].filter((x) => x !== undefined).length === 1, { message: "give one of name, same_as, or start_time with end_time", path: ["name"] }),
      )
      .min(1)
      .max(MAX_SPEAKER_EDITS)
      .optional()
      .describe("Who said what, applied after replace and words, in order: name a voice, say it is the same person as another, or give it the words between two times"),
    add_to_vocabulary: z.boolean().optional().describe("Add each replacement (`replace[].with`) the organisation's vocabulary (GET/PUT /v1/vocabulary) lacks to it, so later jobs hear it"),
  })
  .strict()
  .refine((b) => b.replace !== undefined || b.words !== undefined || b.speakers !== undefined, { message: "name replace, words, speakers or more than one", path: ["replace"] });

export const TranscriptCorrectionResultSchema = z.object({
  id: z.string().describe("cor_ prefix"),
  object: z.literal("transcript_correction"),
  job_id: z.string(),
  changes: z.number().int().describe("Places in the transcript that changed; 0 when there was nothing left to change (a replay)"),
  clips_rerendered: z.array(z.string()).describe("Clips whose burned-in captions changed: a render of each is queued (see each clip's render)"),
  trailer_rerendered: z.boolean().describe("Whether the trailer's captions changed and its render is queued"),
  vocabulary_added: z.array(z.string()).optional().describe("With add_to_vocabulary: the entries added to the organisation's vocabulary"),
  created_at: z.string(),
});

/** Most clips a producer may add to one job (POST /v1/jobs/{id}/clips), besides the machine's. */
export const MAX_EDITOR_CLIPS_PER_JOB = 10;

/** POST /v1/jobs/{id}/clips (extension): a clip the producer places; bounds are snapped to sentence edges. */
export const ClipCreateSchema = z
  .object({
    start_time: z.number().min(0).describe("Seconds into the source; snapped to the nearest sentence start"),
    end_time: z.number().positive().describe("Seconds into the source; snapped to the nearest finished sentence's end after the start"),
    caption_style: z.enum(CAPTION_STYLES).optional().describe(`Caption preset: ${CAPTION_STYLES.join(", ")}; default the job's`),
    formats: z.array(z.enum(Object.keys(FORMATS) as [ClipFormat, ...ClipFormat[]])).min(1).optional().describe("Formats to render (linkedin 9:16, x 16:9); default both"),
    title: z.string().trim().min(1).max(70).optional().describe("The clip's title (posting copy); default one written like the machine's clips'"),
  })
  .strict()
  .refine((b) => b.end_time > b.start_time, { message: "must be after start_time", path: ["end_time"] });

export const ClipSchema = z.object({
  id: z.string().describe("clip_ prefix"),
  rank: z.number().int().describe("1 is best"),
  category: z.string(),
  hook: z.string(),
  pull_quote: z.string(),
  start_time: z.number(),
  end_time: z.number(),
  duration_seconds: z.number(),
  rendered_urls: z.record(z.string(), z.string()).describe("linkedin: 9:16 MP4, x: 16:9 MP4"),
  transcript_text: z.string(),
  thumbnail_urls: z.record(z.string(), z.string()).optional().describe("Extension: a JPEG cover per format, keyed like rendered_urls (the frame's size): a frame where the speaker's face is clear, mid-speech, with the clip's title in the brand's colours; an audiogram's is its card"),
  score: z.number().optional().describe("Extension: 0-100 highlight score"),
  reason: z.string().optional().describe("Extension: why the clip ranks where it does"),
  captions_srt_url: z.string().optional().describe("Extension: the clip's captions as SRT, times relative to the clip's file (shifted by cards.intro_seconds when it opens with a brand intro card)"),
  captions_vtt_url: z.string().optional().describe("Extension: the clip's captions as WebVTT, times relative to the clip's file (shifted by cards.intro_seconds when it opens with a brand intro card)"),
  cards: z
    .object({ intro_seconds: z.number(), outro_seconds: z.number() })
    .optional()
    .describe("Extension: seconds of the brand's intro and outro cards in the clip's files (0 for one not there): a file lasts intro_seconds + duration_seconds + outro_seconds, and the caption sidecars are shifted by intro_seconds; absent when the files have no cards"),
  title: z.string().max(70).optional().describe("Extension (posting copy): the clip's title, at most 70 characters"),
  description: z.string().optional().describe("Extension (posting copy): one or two sentences to post with the clip"),
  hashtags: z.array(z.string().regex(/^#[\p{L}\p{N}]+$/u)).min(3).max(5).optional().describe("Extension (posting copy): 3-5 hashtags, '#' included"),
  caption_style: z.string().optional().describe("Extension: the caption preset burned into the clip's files"),
  review: z
    .object({ decision: z.enum(["approved", "rejected"]), reviewed_at: z.string() })
    .optional()
    .describe("Extension: the guest's decision on the share page; absent until one is made"),
  render: ClipRenderStateSchema.optional().describe("Extension: the latest re-render asked for this clip; absent until one is"),
  origin: z.enum(["machine", "editor"]).optional().describe("Extension: who placed the clip: the highlight stage (machine) or the producer through POST /v1/jobs/{id}/clips (editor)"),
});

export type Clip = z.infer<typeof ClipSchema>;

export const TranscriptSegmentSchema = z
  .object({
    speaker: z.string().describe("speaker label: the speaker's name where one is known, else Speaker N"),
    start: z.number().describe("seconds: at most 1 s before the segment's first word, where the voice starts"),
    end: z.number().describe("seconds: where the speaker's voice stops, before their next segment; at most 2 s past the last word except under another speaker's words (talked over)"),
    text: z.string(),
  })
  .describe("One speaker turn. Segments are in the order they start; two speakers' segments overlap where both talk at once (one speaker's never do)");

export const JobOutputSchema = z.object({
  clips: z.array(ClipSchema),
  trailer: z.object({ url: z.string(), duration_seconds: z.number() }).nullable().describe("null when no trailer was requested"),
  guest_share_url: z.string(),
  show_notes: z.string(),
  transcript: z.array(TranscriptSegmentSchema),
  speaker_names: z
    .array(z.object({ speaker: z.string().describe("the voice's label (Speaker N)"), name: z.string().describe("the name the transcript shows for it"), evidence: z.array(z.string()).describe("why: the words that named it, or the speakers option") }))
    .optional()
    .describe("Extension: the speakers the transcript names, and why each name was given; absent when nobody was named"),
  warnings: z.array(z.string()).optional().describe("Extension: what could not be produced (a clip or the trailer that failed to render)"),
  engine: z.record(z.string(), z.string()).optional().describe("Extension: engines and models that ran (asr, highlights, ffmpeg)"),
  transcript_srt_url: z.string().optional().describe("Extension: the speaker-labelled transcript as SRT"),
  transcript_vtt_url: z.string().optional().describe("Extension: the speaker-labelled transcript as WebVTT (speakers in <v> voice spans)"),
  transcript_txt_url: z.string().optional().describe("Extension: the transcript as plain text, one paragraph per speaker turn"),
  chapters_url: z.string().optional().describe("Extension: Podcasting 2.0 JSON chapters (version 1.2.0)"),
  timeline_url: z.string().optional().describe("Extension: OpenTimelineIO timeline (.otio) with the clips as ranges of the source"),
  timeline_fcpxml_url: z.string().optional().describe("Extension: FCPXML 1.9 timeline (Final Cut Pro, DaVinci Resolve): the episode with each clip as a marked range and its captions"),
  timeline_xmeml_url: z.string().optional().describe("Extension: Final Cut Pro 7 XML (xmeml 4, Premiere Pro) timeline: the episode with each clip as a marked range"),
});

export const JobSchema = z.object({
  id: z.string(),
  object: z.literal("job"),
  status: z.enum(["queued", "processing", "complete", "failed"]),
  source: z.object({
    type: z.string(),
    url: z.string().optional().describe("Present for URL sources"),
    upload_id: z.string().optional().describe("Extension: present for upload sources"),
  }),
  options: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  output: JobOutputSchema.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  progress: z
    .object({ stage: z.string(), percent: z.number() })
    .optional()
    .describe("Extension: present while processing"),
  livemode: z.boolean().describe("Extension: true for live keys, false for sandbox"),
});

export type Job = z.infer<typeof JobSchema>;
export type JobOutput = z.infer<typeof JobOutputSchema>;

export const JobListSchema = z.object({
  object: z.literal("list"),
  has_more: z.boolean(),
  data: z.array(JobSchema),
});
