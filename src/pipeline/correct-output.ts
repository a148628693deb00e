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
import type { ClipPlan, Transcript, Word } from "./types.ts";
import { correctSpeakers, survivor, type CorrectedSpeakers } from "./speaker-corrections.ts";
import { notesForSpeakers } from "./highlights/shownotes.ts";

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
  const spoken = { ...state.transcript, words, segments: changed.length ? rebuildSegments(state.transcript.segments, words) : state.transcript.segments };
  // Throws (before anything is written) for a speaker edit that cannot apply.
  const voices = req.speakers?.length ? correctSpeakers(spoken, req.speakers) : undefined;
  if (changed.length === 0 && !voices?.changes) return { changes: 0, captionsChanged: [], trailerChanged: false };

  state.transcript = voices?.transcript ?? spoken;
  state.plan.showNotes = correctText(state.plan.showNotes, rules);
  if (voices) state.plan.showNotes = notesForSpeakers(state.plan.showNotes, spoken, state.transcript, (l) => survivor(voices, l));
  state.plan.chapters = state.plan.chapters?.map((c) => ({ ...c, title: correctText(c.title, rules) }));
  const credit = voices ? creditFor(spoken, state.transcript, voices) : (d: string) => d;
  for (const p of [...state.plan.clips, ...(state.rendered ?? []).map((r) => r.plan), ...(state.trailerExtras ?? [])] as ClipPlan[]) {
    correctCopy(p, rules);
    if (p.description !== undefined) p.description = credit(p.description);
  }

  // Where the picture or the cards change with the speakers: a merged voice's turns and the words given
  // to another voice (the crop follows the voice, and an audiogram card names it), and on audiograms a
  // renamed voice's turns.
  const reframed = voices ? [...voiceSpans(spoken, (l) => voices.merged.has(l) || (!state.source?.hasVideo && voices.renamed.has(l))), ...voices.moved] : [];
  // A clip with a pending render is judged by the bounds it is about to have too: a render already
  // under way read the words before this correction, and the sentence it brings in may be the one corrected.
  const pendingBounds = (c: StoredClip) => (c.render && c.render.status !== "failed" ? [c, { ...c, start_time: c.render.start_time, end_time: c.render.end_time }] : [c]);
  const span = (b: { start_time: number; end_time: number }) => ({ start: b.start_time, end: b.end_time });
  const captionsChanged = output.clips
    .filter((c) => pendingBounds(c).some((b) => JSON.stringify(clipCaptionCues(old, b)) !== JSON.stringify(clipCaptionCues(words, b)) || reframed.some((r) => overlaps(r, span(b)))))
    .map((c) => c.id);
  for (const clip of output.clips) {
    correctCopy(clip, rules);
    if (clip.description !== undefined) clip.description = credit(clip.description);
  }
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
    trailerChanged = [...changed, ...reframed].some((span) => segments.some((s) => overlaps(span, s)));
  }
  output.show_notes = state.plan.showNotes;
  output.transcript = namedSegments(state.transcript);
  if (state.transcript.speakerNameEvidence?.length) output.speaker_names = state.transcript.speakerNameEvidence;
  else delete output.speaker_names;
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
  return { changes: changed.length + (voices?.changes ?? 0), captionsChanged, trailerChanged };
}

/** Where the voices `pick` chooses talk, as the transcript had them before a speaker correction: their turns and their segments. */
function voiceSpans(t: Transcript, pick: (label: string) => boolean): Array<{ start: number; end: number }> {
  return [...(t.speakerTurns ?? []), ...t.segments].filter((s) => pick(s.speaker));
}

/**
 * A clip's description credits its pull quote to the speaker by name ("Ana: …"): after a speaker
 * correction, to the name the voice has now, or to nobody when it has none.
 */
function creditFor(before: Transcript, after: Transcript, voices: CorrectedSpeakers): (description: string) => string {
  const names = Object.entries(before.speakerNames ?? {}).map(([label, name]) => [name, after.speakerNames?.[survivor(voices, label)]] as const);
  return (description) => {
    for (const [from, to] of names) if (from !== to && description.startsWith(`${from}: `)) return `${to ? `${to}: ` : ""}${description.slice(from.length + 2)}`;
    return description;
  };
}

/**
 * A sandbox job has the fixture's turns and no word timings: the `replace` swaps apply to its stored
 * text, and speaker edits to its turns' speakers (the fixture's notes and copy are left as written).
 */
export function correctSandboxOutput(output: StoredOutput, req: CorrectionRequest): CorrectionOutcome {
  const rules = (req.replace ?? []).filter((r) => r.find.trim().toLowerCase() !== r.with.trim().toLowerCase());
  const before = JSON.stringify(output);
  let speakerChanges = 0;
  if (req.speakers?.length) {
    // The stored turns show names where there are any: back to labels, corrected, shown again.
    const names = Object.fromEntries((output.speaker_names ?? []).map((r) => [r.speaker, r.name]));
    const labelOf = new Map(Object.entries(names).map(([label, name]) => [name, label]));
    const segments = output.transcript.map((s) => ({ ...s, speaker: labelOf.get(s.speaker) ?? s.speaker }));
    const corrected = correctSpeakers({ language: output.language ?? "en", words: [], segments, speakerNames: names, speakerNameEvidence: output.speaker_names ?? [] }, req.speakers);
    const fixed = corrected.transcript;
    speakerChanges = corrected.changes;
    output.transcript = namedSegments(fixed);
    if (fixed.speakerNameEvidence?.length) output.speaker_names = fixed.speakerNameEvidence;
    else delete output.speaker_names;
  }
  output.transcript = output.transcript.map((s) => ({ ...s, text: correctText(s.text, rules) }));
  for (const clip of output.clips) correctCopy(clip, rules);
  output.show_notes = correctText(output.show_notes, rules);
  const changes = output.transcript.reduce((n, s, i) => n + (s.text !== (JSON.parse(before) as StoredOutput).transcript[i]!.text ? 1 : 0), 0) + speakerChanges;
  return { changes: JSON.stringify(output) === before ? 0 : Math.max(1, changes), captionsChanged: [], trailerChanged: false };
}
