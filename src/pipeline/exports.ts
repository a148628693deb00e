/**
 * Studio exports: caption sidecars for each clip, the episode transcript as SRT/VTT/text, Podcasting
 * 2.0 JSON chapters and an OpenTimelineIO timeline of the clips as ranges of the source. Built from
 * what the pipeline already has (the words the renderer captions, the named transcript, the show
 * notes' chapters), so every export agrees with the clips and notes. The live notes stage and the
 * sandbox fixture generator both write them through writeExports.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringifySync, type NodeList } from "subtitle";
import { captionCues, chunkWords, type CaptionCue } from "./render/captions.ts";
import { plainText } from "./highlights/plain-text.ts";
import { joinWords } from "./highlights/sentences.ts";
import { formatTimestamp } from "./highlights/shownotes.ts";
import { fcpxmlTimeline, xmemlTimeline } from "./editor-timelines.ts";
import type { Segment, Word } from "./types.ts";

/** Transcript cues are subtitle lines, longer than burned-in captions (two lines of ~42 characters), broken at a comma only once they hold a readable phrase. */
const TRANSCRIPT_CHUNKING = { minWords: 8, maxWords: 16, maxChars: 84, maxGapSeconds: 1.5, holdSeconds: 0 };

export const PODCAST_CHAPTERS_VERSION = "1.2.0";
/** The OTIO time base for audio-only sources, which have no frame rate of their own. */
const AUDIO_TIMELINE_RATE = 25;

export interface ExportClip {
  start_time: number;
  end_time: number;
  hook: string;
  /** Names the clip's marker in the editor timelines (the hook stands in without one). */
  title?: string;
  /**
   * Seconds of brand intro card before the clip's speech in its delivered files: the clip's caption
   * sidecars are shifted by it so they stay on the file's audio. The editor timelines mark the
   * clip's range of the source and ignore it.
   */
  intro_seconds?: number;
}

export interface ExportInput {
  title: string;
  /** Every word with its diarized label; speaker names come from `speakerNames`. */
  words: Word[];
  segments: Segment[];
  speakerNames?: Record<string, string>;
  chapters: Array<{ start: number; title: string }>;
  clips: ExportClip[];
  /** What the timeline's media reference points at, and the source's length and frame rate. */
  source: { name: string; durationSeconds: number; fps?: number; hasVideo: boolean };
}

/** File names (in the output folder) of everything writeExports produced. */
export interface ExportFiles {
  clips: Array<{ srt: string; vtt: string }>;
  transcript_srt: string;
  transcript_vtt: string;
  transcript_txt: string;
  chapters: string;
  timeline: string;
  /** Final Cut Pro X / DaVinci Resolve (FCPXML) and Final Cut Pro 7 / Premiere Pro (xmeml) timelines; outputs from before these existed lack them. */
  timeline_fcpxml?: string;
  timeline_xmeml?: string;
}

const ms = (seconds: number) => Math.round(seconds * 1000);

function subtitleFile(cues: Array<CaptionCue & { voice?: string }>, format: "SRT" | "WebVTT"): string {
  const nodes: NodeList = cues.map((c) => ({
    type: "cue",
    data: {
      start: ms(c.start),
      end: ms(c.end),
      // WebVTT names the speaker in a voice span, which players style; SRT has no such markup.
      text: c.voice ? (format === "WebVTT" ? `<v ${c.voice.replace(/[<>&]/g, "")}>${c.text}` : `${c.voice}: ${c.text}`) : c.text,
    },
  }));
  return stringifySync(nodes, { format });
}

/** A clip's captions, times relative to the clip: the chunks the renderer burns in. */
export function clipCaptionCues(words: Word[], clip: ExportClip): CaptionCue[] {
  return captionCues(words, clip.start_time, clip.end_time - clip.start_time);
}

/** Recognisers time some short words with no duration; a cue that short never shows in a player. */
const MIN_CUE_SECONDS = 0.1;

/** Subtitle-length, single-speaker cues over the whole episode, each labelled with its speaker. */
export function transcriptCues(words: Word[], speakerNames: Record<string, string> = {}): Array<CaptionCue & { voice: string }> {
  const chunks = chunkWords(words, TRANSCRIPT_CHUNKING);
  return chunks.map((c, i) => ({
    start: c.start,
    // At least MIN_CUE_SECONDS on screen, unless the next cue starts sooner.
    end: Math.max(c.end, Math.min(c.start + MIN_CUE_SECONDS, chunks[i + 1]?.start ?? Infinity)),
    text: joinWords(c.words.map((w) => w.word)),
    voice: speakerNames[c.words[0]!.speaker] ?? c.words[0]!.speaker,
  }));
}

/** Plain text, one paragraph per speaker turn: "[mm:ss] Name: text". */
export function transcriptText(segments: Segment[], speakerNames: Record<string, string> = {}): string {
  return segments.map((s) => `[${formatTimestamp(s.start)}] ${speakerNames[s.speaker] ?? s.speaker}: ${s.text}`).join("\n\n") + "\n";
}

/**
 * Podcasting 2.0 JSON chapters (https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md#chapters).
 * Titles may be the language-model editor's: plain text here and in the timeline, as in the notes.
 */
export function podcastChapters(title: string, chapters: ExportInput["chapters"]) {
  return {
    version: PODCAST_CHAPTERS_VERSION,
    title: plainText(title),
    chapters: chapters.map((c) => ({ startTime: Math.round(c.start * 1000) / 1000, title: plainText(c.title) })),
  };
}

function rationalTime(seconds: number, rate: number) {
  return { OTIO_SCHEMA: "RationalTime.1", rate, value: Math.round(seconds * rate) };
}

function timeRange(start: number, duration: number, rate: number) {
  return { OTIO_SCHEMA: "TimeRange.1", start_time: rationalTime(start, rate), duration: rationalTime(duration, rate) };
}

/**
 * An OpenTimelineIO timeline: each clip as a range of the source, one after the other on a video
 * track (for video sources) and an audio track, so an editor (Resolve, Premiere via its OTIO
 * importer) opens the selects ready to trim. The media reference names the source file, which the
 * editor relinks to its local copy.
 */
export function otioTimeline(input: Pick<ExportInput, "title" | "clips" | "source">) {
  const { source } = input;
  const rate = source.hasVideo && source.fps ? source.fps : AUDIO_TIMELINE_RATE;
  const reference = () => ({
    OTIO_SCHEMA: "ExternalReference.1",
    name: source.name,
    target_url: source.name,
    available_range: timeRange(0, source.durationSeconds, rate),
    metadata: {},
  });
  const track = (kind: "Video" | "Audio", name: string) => ({
    OTIO_SCHEMA: "Track.1",
    name,
    kind,
    source_range: null,
    effects: [],
    markers: [],
    enabled: true,
    metadata: {},
    children: input.clips.map((c, i) => ({
      OTIO_SCHEMA: "Clip.2",
      name: `Clip ${i + 1}: ${plainText(c.hook)}`.slice(0, 120),
      source_range: timeRange(c.start_time, c.end_time - c.start_time, rate),
      media_references: { DEFAULT_MEDIA: reference() },
      active_media_reference_key: "DEFAULT_MEDIA",
      effects: [],
      markers: [],
      enabled: true,
      metadata: { clipyard: { rank: i + 1, start_time: c.start_time, end_time: c.end_time } },
    })),
  });
  return {
    OTIO_SCHEMA: "Timeline.1",
    name: plainText(input.title),
    global_start_time: null,
    metadata: {},
    tracks: {
      OTIO_SCHEMA: "Stack.1",
      name: "tracks",
      source_range: null,
      effects: [],
      markers: [],
      enabled: true,
      metadata: {},
      children: [...(source.hasVideo ? [track("Video", "V1")] : []), track("Audio", "A1")],
    },
  };
}

/** Writes one clip's caption sidecars as `<baseName>.srt` and `.vtt` in `dir`, times relative to its delivered file; returns their file names. */
export function writeClipCaptions(dir: string, words: Word[], clip: ExportClip, baseName: string): { srt: string; vtt: string } {
  const shift = clip.intro_seconds ?? 0;
  const cues = clipCaptionCues(words, clip).map((c) => (shift ? { ...c, start: c.start + shift, end: c.end + shift } : c));
  writeFileSync(join(dir, `${baseName}.srt`), subtitleFile(cues, "SRT"));
  writeFileSync(join(dir, `${baseName}.vtt`), subtitleFile(cues, "WebVTT"));
  return { srt: `${baseName}.srt`, vtt: `${baseName}.vtt` };
}

/** Writes every export into `dir` and returns their file names. */
export function writeExports(dir: string, input: ExportInput): ExportFiles {
  const clips = input.clips.map((clip, i) => writeClipCaptions(dir, input.words, clip, `clip${i + 1}`));
  return { clips, ...writeEpisodeExports(dir, input) };
}

/**
 * The episode-level exports (transcript files, chapters, timelines) into `dir`; `suffix` goes into
 * every file name (a corrected transcript's files get new names, so a cached URL never serves the old words).
 */
export function writeEpisodeExports(dir: string, input: ExportInput, suffix = ""): Omit<ExportFiles, "clips"> {
  const names = input.speakerNames ?? {};
  const write = (name: string, text: string) => {
    const named = name.replace(/(\.[a-z]+)$/, `${suffix}$1`);
    writeFileSync(join(dir, named), text);
    return named;
  };
  const cues = transcriptCues(input.words, names);
  const timeline = { title: input.title, source: input.source, clips: input.clips.map((c) => ({ ...c, captions: clipCaptionCues(input.words, c) })) };
  return {
    transcript_srt: write("transcript.srt", subtitleFile(cues, "SRT")),
    transcript_vtt: write("transcript.vtt", subtitleFile(cues, "WebVTT")),
    transcript_txt: write("transcript.txt", transcriptText(input.segments, names)),
    chapters: write("chapters.json", JSON.stringify(podcastChapters(input.title, input.chapters), null, 2) + "\n"),
    timeline: write("timeline.otio", JSON.stringify(otioTimeline(input), null, 2) + "\n"),
    timeline_fcpxml: write("timeline.fcpxml", fcpxmlTimeline(timeline)),
    timeline_xmeml: write("timeline.xml", xmemlTimeline(timeline)),
  };
}

/** The episode-level exports as stored file references ("job:NAME" or "fixture:NAME"). */
export type ExportRefs = Omit<ExportFiles, "clips">;

export function exportRefs(files: ExportFiles, kind: "job" | "fixture"): ExportRefs {
  const { clips: _clips, ...episode } = files;
  return Object.fromEntries(Object.entries(episode).map(([k, name]) => [k, `${kind}:${name}`])) as ExportRefs;
}

/** A clip's caption sidecars as stored file references. */
export function captionRefs(files: ExportFiles, clipIndex: number, kind: "job" | "fixture"): { srt: string; vtt: string } | undefined {
  const c = files.clips[clipIndex];
  return c && { srt: `${kind}:${c.srt}`, vtt: `${kind}:${c.vtt}` };
}
