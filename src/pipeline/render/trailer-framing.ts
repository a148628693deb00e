/**
 * The 9:16 framing of a trailer's passages, and keeping it for the next render. A passage's speaker
 * crop is planned from the source frames over its span and the speaker turns inside it
 * (planSpeakerCrop reads nothing else), so a framing planned before is the same answer as long as
 * the span and the turns are: a trailer re-rendered after a transcript correction that left them
 * alone (a word's spelling) reuses it instead of analysing the faces again.
 */
import { turnsFromWords } from "./faces.ts";
import { resolveCrop } from "./render.ts";
import type { CropPath } from "./graph.ts";
import type { MediaInfo, Word } from "../types.ts";

/** A passage's framing as a trailer used it, and what it was planned from. */
export interface PassageFraming {
  /** The span of the passage's segments, in source seconds. */
  start: number;
  end: number;
  /** The speaker turns inside the span ([speaker, start, end] as JSON): the words' part in the plan. */
  turns: string;
  /** null: the centred crop (a face analysis that found it right). */
  crop: CropPath | null;
}

/** The speaker turns of the words inside [start, end], as planSpeakerCrop takes them. */
export function turnsKey(words: Word[], start: number, end: number): string {
  return JSON.stringify(turnsFromWords(words.filter((w) => w.end > start && w.start < end)).map((t) => [t.speaker, t.start, t.end]));
}

/** A framing planned before for the same span and the same speaker turns, if any. */
export function reusableFraming(known: PassageFraming[] | undefined, start: number, end: number, turns: string): PassageFraming | undefined {
  return known?.find((f) => Math.abs(f.start - start) < 1e-6 && Math.abs(f.end - end) < 1e-6 && f.turns === turns);
}

export interface FramingRequest {
  source: MediaInfo;
  words: Word[];
  segments: { start: number; end: number; clip: number }[];
  /** A passage's framing already planned, by its rank: a rendered clip's own speaker crop. */
  passageCrops?: (CropPath | undefined)[];
  /** Framings an earlier render of this trailer used (its job's checkpoint). */
  known?: PassageFraming[];
}

/**
 * The framing of each passage the segments come from (by rank): the one given, one planned before
 * for the same span and turns, or one face analysis over the span of the passage's segments (they
 * are sentences of one passage, mostly back to back); undefined where a centred crop is right.
 * Also the framings to keep for the next render (a passage the face models could not frame is not kept).
 */
export async function framePassages(req: FramingRequest): Promise<{ crops: Map<number, CropPath | undefined>; framing: PassageFraming[] }> {
  const crops = new Map<number, CropPath | undefined>();
  const framing: PassageFraming[] = [];
  for (const clip of new Set(req.segments.map((s) => s.clip))) {
    const own = req.segments.filter((s) => s.clip === clip);
    const start = Math.min(...own.map((s) => s.start));
    const end = Math.max(...own.map((s) => s.end));
    const turns = turnsKey(req.words, start, end);
    const given = req.passageCrops?.[clip];
    const before = given ? undefined : reusableFraming(req.known, start, end, turns);
    let planned = given !== undefined || before !== undefined;
    const crop = given ?? (before ? (before.crop ?? undefined) : await resolveCrop({ source: req.source, words: req.words, start, end, format: "linkedin", crop: "speaker" }, () => (planned = true)));
    crops.set(clip, crop);
    if (planned) framing.push({ start, end, turns, crop: crop ?? null });
  }
  return { crops, framing };
}
