/**
 * Speaker corrections: a producer's fixes to who said what, when the estimate was wrong. Three kinds,
 * applied in order, each to the result of the ones before:
 * - `name`: the voice is called so (a name the conversation did not give, or a wrong one);
 * - `same_as`: the voice is the same person as another (the diarizer split one person in two, the
 *   "Speaker 4 who does not exist"); its words, turns and time become the other's;
 * - `start_time`/`end_time`: the words whose middle lies between are the voice's (a sentence given to
 *   the wrong person); a voice the transcript does not have yet is a person the diarizer missed, and
 *   is added under the next free label, with the name given.
 * A voice is referred to as the transcript shows it: its name, or its label ("Speaker 3"), either
 * case-insensitively. Labels never change (a merged voice's label is gone, the others keep theirs), so
 * what a producer wrote down about "Speaker 3" stays true.
 */
import type { Transcript } from "./types.ts";
import { transcriptSegments } from "./transcribe/segments.ts";

export interface SpeakerEdit {
  speaker: string;
  name?: string;
  same_as?: string;
  start_time?: number;
  end_time?: number;
}

/** An edit that cannot apply (an unknown voice, a name another voice has): which field, and why. */
export class SpeakerEditError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
    this.name = "SpeakerEditError";
  }
}

export interface CorrectedSpeakers {
  transcript: Transcript;
  /** Edits that changed something (0: all of it was already so). */
  changes: number;
  /** Labels whose words moved to another voice (merged away), with the label they went to. */
  merged: Map<string, string>;
  /** Labels whose shown name changed (named, renamed, or taking a merged voice's name). */
  renamed: Set<string>;
  /** Stretches whose words were given to another voice (`start_time`/`end_time` edits). */
  moved: Array<{ start: number; end: number }>;
}

/** The evidence a producer's name carries in `speaker_names`. */
export const PRODUCER_EVIDENCE = "named by the producer (transcript correction)";

type Turn = { speaker: string; start: number; end: number };

/** Every label the transcript shows, in order of first word (then the segments': a sandbox job's turns have no words). */
function labelsOf(t: Transcript): string[] {
  const seen = new Set<string>();
  for (const w of [...t.words].sort((a, b) => a.start - b.start)) seen.add(w.speaker);
  for (const s of t.segments) seen.add(s.speaker);
  return [...seen];
}

const fold = (s: string) => s.trim().toLocaleLowerCase();

/** The label a reference names: a voice's shown name first, then its label. */
function find(t: Transcript, labels: string[], ref: string): string | undefined {
  const want = fold(ref);
  return labels.find((l) => t.speakerNames?.[l] !== undefined && fold(t.speakerNames[l]!) === want) ?? labels.find((l) => fold(l) === want);
}

/** As `find`, refusing a reference to no voice with the voices there are. */
function resolve(t: Transcript, labels: string[], ref: string, param: string): string {
  const label = find(t, labels, ref);
  if (!label) {
    const shown = labels.map((l) => t.speakerNames?.[l] ?? l);
    throw new SpeakerEditError(param, `No speaker "${ref.trim()}" in this transcript; it has ${shown.map((s) => `"${s}"`).join(", ") || "none"}.`);
  }
  return label;
}

/** One speaker's turns, merged where they touch or overlap (a merged voice's turns over the other's). */
function joined(turns: Turn[]): Turn[] {
  const bySpeaker = new Map<string, Turn[]>();
  for (const t of turns) bySpeaker.set(t.speaker, [...(bySpeaker.get(t.speaker) ?? []), { ...t }]);
  const out: Turn[] = [];
  for (const list of bySpeaker.values()) {
    list.sort((a, b) => a.start - b.start);
    for (const t of list) {
      const last = out.at(-1);
      if (last && last.speaker === t.speaker && t.start <= last.end) last.end = Math.max(last.end, t.end);
      else out.push(t);
    }
  }
  return out.sort((a, b) => a.start - b.start || a.speaker.localeCompare(b.speaker));
}

function relabel<T extends { speaker: string }>(items: T[] | undefined, from: string, to: string): T[] | undefined {
  return items?.map((x) => (x.speaker === from ? { ...x, speaker: to } : x));
}

/** Turns with `span` cut out of everyone's and given to `speaker`. */
function withSpan(turns: Turn[], speaker: string, span: { start: number; end: number }): Turn[] {
  const cut = turns.flatMap((t) =>
    t.end <= span.start || t.start >= span.end ? [t] : [{ ...t, end: span.start }, { ...t, start: span.end }].filter((p) => p.end - p.start > 1e-6),
  );
  return joined([...cut, { speaker, ...span }]);
}

/** The first "Speaker N" no voice has. */
function freeLabel(labels: string[]): string {
  for (let n = labels.length + 1; ; n++) if (!labels.some((l) => fold(l) === fold(`Speaker ${n}`))) return `Speaker ${n}`;
}

/**
 * Applies `edits` to a copy of the transcript: words, turns and activity relabelled, names and their
 * evidence set, segments rebuilt from the words where any word changed voice. Throws
 * SpeakerEditError (param `speakers.N.…`) for an edit that cannot apply; nothing is changed then.
 */
export function correctSpeakers(transcript: Transcript, edits: SpeakerEdit[]): CorrectedSpeakers {
  let t: Transcript = { ...transcript, speakerNames: { ...(transcript.speakerNames ?? {}) }, speakerNameEvidence: [...(transcript.speakerNameEvidence ?? [])] };
  const merged = new Map<string, string>();
  const renamed = new Set<string>();
  const moved: CorrectedSpeakers["moved"] = [];
  let changes = 0;
  edits.forEach((edit, i) => {
    const labels = labelsOf(t);
    if (edit.start_time !== undefined && edit.end_time !== undefined) {
      const inside = (w: { start: number; end: number }) => (w.start + w.end) / 2 >= edit.start_time! && (w.start + w.end) / 2 <= edit.end_time!;
      // Without word timings (a sandbox job's fixture turns), whole segments by their middles.
      const timed = t.words.length > 0;
      const said: Array<{ speaker: string; start: number; end: number }> = timed ? t.words.filter(inside) : t.segments.filter(inside);
      if (!said.length) throw new SpeakerEditError(`speakers.${i}.start_time`, `Nothing said has its middle between ${edit.start_time} and ${edit.end_time} s.`);
      // Someone the transcript does not have yet: a person the speaker models missed, added under a free label.
      let label = find(t, labels, edit.speaker);
      if (label === undefined) {
        const asLabel = /^speaker \d+$/i.test(edit.speaker.trim());
        label = asLabel ? `Speaker ${edit.speaker.trim().split(/\s+/)[1]}` : freeLabel(labels);
        if (!asLabel) {
          t.speakerNames![label] = edit.speaker.trim();
          t.speakerNameEvidence = [...t.speakerNameEvidence!, { speaker: label, name: edit.speaker.trim(), evidence: [PRODUCER_EVIDENCE] }];
          renamed.add(label);
        }
      }
      if (said.every((w) => w.speaker === label)) return;
      const span = { start: said[0]!.start, end: said.at(-1)!.end };
      t = {
        ...t,
        words: t.words.map((w) => (inside(w) ? { ...w, speaker: label } : w)),
        segments: timed ? t.segments : t.segments.map((x) => (inside(x) ? { ...x, speaker: label } : x)),
        speakerTurns: t.speakerTurns && withSpan(t.speakerTurns, label, span),
        speakerActivity: t.speakerActivity && withSpan(t.speakerActivity, label, span),
      };
      moved.push(span);
      changes++;
      return;
    }
    const label = resolve(t, labels, edit.speaker, `speakers.${i}.speaker`);
    const names = t.speakerNames!;
    const setName = (l: string, name: string | undefined, evidence: string[]) => {
      if (name === undefined) delete names[l];
      else names[l] = name;
      t.speakerNameEvidence = [...t.speakerNameEvidence!.filter((e) => e.speaker !== l), ...(name === undefined ? [] : [{ speaker: l, name, evidence }])];
      renamed.add(l);
    };
    if (edit.name !== undefined) {
      const name = edit.name.trim();
      if (names[label] === name) return;
      const holder = labels.find((l) => l !== label && names[l] !== undefined && fold(names[l]!) === fold(name));
      if (holder) throw new SpeakerEditError(`speakers.${i}.name`, `"${names[holder]}" is already the name of ${holder}; to say the two are one person, use same_as.`);
      setName(label, name, [PRODUCER_EVIDENCE]);
      changes++;
      return;
    }
    const target = resolve(t, labels, edit.same_as!, `speakers.${i}.same_as`);
    if (target === label) throw new SpeakerEditError(`speakers.${i}.same_as`, `"${edit.same_as!.trim()}" is ${edit.speaker.trim()} already.`);
    // The person keeps the name the target has, else the one the merged voice had.
    const evidence = t.speakerNameEvidence!;
    if (names[target] === undefined && names[label] !== undefined) setName(target, names[label], evidence.find((e) => e.speaker === label)?.evidence ?? [PRODUCER_EVIDENCE]);
    if (names[label] !== undefined) setName(label, undefined, []);
    renamed.delete(label);
    for (const [from, to] of merged) if (to === label) merged.set(from, target);
    merged.set(label, target);
    t = {
      ...t,
      words: relabel(t.words, label, target)!,
      segments: relabel(t.segments, label, target)!,
      speakerTurns: t.speakerTurns && joined(relabel(t.speakerTurns, label, target)!),
      speakerActivity: t.speakerActivity && joined(relabel(t.speakerActivity, label, target)!),
    };
    changes++;
  });
  // Without word timings (a sandbox job's fixture turns) the segments, relabelled, are all there is.
  if ((merged.size || moved.length) && t.words.length) t = { ...t, segments: transcriptSegments(t.words, t.speakerActivity ?? t.speakerTurns) };
  // A voice whose every word went to others is gone; its name goes with it.
  const left = new Set(t.words.length ? t.words.map((w) => w.speaker) : t.segments.map((x) => x.speaker));
  for (const l of Object.keys(t.speakerNames!)) if (!left.has(l)) delete t.speakerNames![l];
  t.speakerNameEvidence = t.speakerNameEvidence!.filter((e) => left.has(e.speaker));
  if (!Object.keys(t.speakerNames!).length) delete t.speakerNames;
  if (!t.speakerNameEvidence.length) delete t.speakerNameEvidence;
  return { transcript: t, changes, merged, renamed, moved };
}

/** The label whose words a label's now are: itself, or the voice it was merged into. */
export function survivor(c: Pick<CorrectedSpeakers, "merged">, label: string): string {
  return c.merged.get(label) ?? label;
}
