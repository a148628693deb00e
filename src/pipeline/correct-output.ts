/**
 * A transcript correction applied to a finished job: the corrected words go into the job's
 * checkpoint (what re-renders cut and caption from), the text written from the old words (clip copy,
 * show notes, chapter titles) gets the same swaps, and the episode exports are written again under new
 * names. What still needs rendering (clips whose burned-in captions changed, the trailer) is reported
 * for the caller to queue; nothing here renders.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JobRow } from "../db/schema.ts";
import { correctHashtags, correctText, correctWords, rebuildSegments, type CorrectionRequest, type ReplaceRule } from "./corrections.ts";
import { clipCaptionCues, exportRefs, writeEpisodeExports } from "./exports.ts";
import { namedSegments, notesTitle, publishedWords, sourceMediaName, type LiveState } from "./live.ts";
import { jobOutputDir, jobWorkDir, type StoredClip, type StoredOutput } from "./output.ts";
import { trailerPassages } from "./render/rerender.ts";
import { planTrailer } from "./render/trailer.ts";
import { readCheckpoint, writeCheckpoint } from "./stage.ts";
import type { ClipPlan, Word } from "./types.ts";

export interface CorrectionOutcome {
  /** Places in the words that changed (0: the correction changes nothing, e.g. a replay). */
  changes: number;
  /** Clips whose burned-in captions now read differently: they need a render. */
  captionsChanged: string[];
  trailerChanged: boolean;
}

type Copy = Pick<StoredClip, "hook" | "pull_quote" | "transcript_text" | "title" | "description" | "hashtags">;

/** The swaps applied to a clip's (or a plan's) copy, in place. */
export function correctCopy(c: Copy, rules: ReplaceRule[]): void {
  c.hook = correctText(c.hook, rules);
  c.pull_quote = correctText(c.pull_quote, rules);
  c.transcript_text = correctText(c.transcript_text, rules);
  if (c.title !== undefined) c.title = correctText(c.title, rules).slice(0, 70);
  if (c.description !== undefined) c.description = correctText(c.description, rules);
  if (c.hashtags) c.hashtags = correctHashtags(c.hashtags, rules);
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

/**
 * Corrects a live job's checkpoint, output (in place) and files. Undefined when the job's checkpoint
 * is gone. `tag` goes into the new export files' names.
 */
export function correctLiveJob(dataDir: string, job: JobRow, output: StoredOutput, req: CorrectionRequest, tag: string): CorrectionOutcome | undefined {
  const workDir = jobWorkDir(dataDir, job.id);
  const cp = readCheckpoint<LiveState>(workDir);
  const state = cp?.state;
  if (!cp || !state?.transcript || !state.plan) return undefined;
  const old: Word[] = state.transcript.words;
  const { words, changed, rules } = correctWords(old, req);
  if (changed.length === 0) return { changes: 0, captionsChanged: [], trailerChanged: false };

  state.transcript = { ...state.transcript, words, segments: rebuildSegments(state.transcript.segments, words) };
  state.plan.showNotes = correctText(state.plan.showNotes, rules);
  state.plan.chapters = state.plan.chapters?.map((c) => ({ ...c, title: correctText(c.title, rules) }));
  for (const p of [...state.plan.clips, ...(state.rendered ?? []).map((r) => r.plan), ...(state.trailerExtras ?? [])] as ClipPlan[]) correctCopy(p, rules);

  // A clip with a pending render is judged by the bounds it is about to have too: a render already
  // under way read the words before this correction, and the sentence it brings in may be the one corrected.
  const pendingBounds = (c: StoredClip) => (c.render && c.render.status !== "failed" ? [c, { ...c, start_time: c.render.start_time, end_time: c.render.end_time }] : [c]);
  const captionsChanged = output.clips
    .filter((c) => pendingBounds(c).some((b) => JSON.stringify(clipCaptionCues(old, b)) !== JSON.stringify(clipCaptionCues(words, b))))
    .map((c) => c.id);
  for (const clip of output.clips) correctCopy(clip, rules);
  let trailerChanged = false;
  if (output.trailer && state.source?.hasVideo) {
    const passages = trailerPassages(state);
    // A trailer that could not be planned again is judged by its passages whole.
    const plan = (ws: Word[]) => {
      try {
        return planTrailer(passages, ws);
      } catch {
        return passages;
      }
    };
    const segments = [...plan(old), ...plan(words)];
    trailerChanged = changed.some((span) => segments.some((s) => overlaps(span, s)));
  }
  output.show_notes = state.plan.showNotes;
  output.transcript = namedSegments(state.transcript);
  output.title = notesTitle(state.plan.showNotes) ?? output.title;

  writeCheckpoint(workDir, cp);
  const outDir = jobOutputDir(dataDir, job.id);
  writeFileSync(join(outDir, "notes.md"), state.plan.showNotes);
  writeFileSync(join(outDir, "transcript.json"), JSON.stringify({ language: state.transcript.language, segments: output.transcript, words: publishedWords(words), speaker_names: state.transcript.speakerNameEvidence ?? [] }));
  if (output.exports && state.source) {
    const files = writeEpisodeExports(
      outDir,
      {
        title: notesTitle(state.plan.showNotes) ?? "Episode",
        words,
        segments: state.transcript.segments,
        speakerNames: state.transcript.speakerNames,
        chapters: state.plan.chapters ?? [],
        clips: output.clips,
        source: { name: sourceMediaName(job, state.source.path, dataDir, state.uploadName), durationSeconds: state.source.durationSeconds, fps: state.source.fps, hasVideo: state.source.hasVideo },
      },
      `_${tag}`,
    );
    output.exports = exportRefs({ clips: [], ...files }, "job");
  }
  return { changes: changed.length, captionsChanged, trailerChanged };
}

/** A sandbox job has the fixture's turns and no word timings: the `replace` swaps apply to its stored text only. */
export function correctSandboxOutput(output: StoredOutput, req: CorrectionRequest): CorrectionOutcome {
  const rules = (req.replace ?? []).filter((r) => r.find.trim().toLowerCase() !== r.with.trim().toLowerCase());
  const before = JSON.stringify(output);
  output.transcript = output.transcript.map((s) => ({ ...s, text: correctText(s.text, rules) }));
  for (const clip of output.clips) correctCopy(clip, rules);
  output.show_notes = correctText(output.show_notes, rules);
  const changes = output.transcript.reduce((n, s, i) => n + (s.text !== (JSON.parse(before) as StoredOutput).transcript[i]!.text ? 1 : 0), 0);
  return { changes: JSON.stringify(output) === before ? 0 : Math.max(1, changes), captionsChanged: [], trailerChanged: false };
}
