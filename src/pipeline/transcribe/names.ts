/**
 * Speaker names from what people say: "I'm Diane", "my name is Sheila", "this is Diane in New Jersey"
 * name the speaker; "my guest today is Ada Lovelace" / "please welcome Ada" name the next other speaker.
 * Pure text rules over speaker-turn segments; a name must be capitalised and not a common word.
 */
import type { Segment } from "../types.ts";

const NAME = "([A-Z][a-z]+(?:[- ][A-Z][a-z]+)?)";
const SELF = [
  new RegExp(`\\b(?:I'm|I am|I’m)\\s+${NAME}`, "g"),
  new RegExp(`\\b[Mm]y name(?:'s| is)\\s+${NAME}`, "g"),
  new RegExp(`\\b(?:[Tt]his|[Ii]t)\\s+is\\s+${NAME}\\s+(?:in|from|here|speaking|with|and)\\b`, "g"),
  new RegExp(`\\b(?:[Tt]his is|[Hh]ere is)\\s+${NAME}[.,!]`, "g"),
];
const GUEST = [
  new RegExp(`\\b(?:[Mm]y|[Oo]ur)\\s+(?:guest|guests|co-host|cohost)\\s+(?:today\\s+|this week\\s+)?(?:is|are)\\s+${NAME}`, "g"),
  new RegExp(`\\b(?:[Pp]lease\\s+)?[Ww]elcome(?:\\s+to the show)?,?\\s+${NAME}`, "g"),
  new RegExp(`\\b[Jj]oining (?:me|us)(?: today)? is\\s+${NAME}`, "g"),
];

/** Capitalised words that follow "I'm" or "this is" without being names. */
const NOT_NAMES = new Set(
  "Sorry Sure Fine Okay Ok Good Great Glad Happy Here There So Not Just Really Very Going Gonna Also Still Actually Back Done Ready Right Yeah Yes No Well Oh And But The A An It This That In On At From With Trying Talking Looking Thinking Excited Honored Thrilled Delighted Curious American English Chicago Texas Jersey New York London California Today Tomorrow Monday Tuesday Wednesday Thursday Friday Saturday Sunday Everyone Everybody".split(" "),
);

function firstName(candidate: string): string | undefined {
  const first = candidate.split(/[ -]/)[0]!;
  if (NOT_NAMES.has(first)) return undefined;
  // "I'm Diane in New Jersey": keep only the name part when a second capitalised word is a place word.
  const parts = candidate.split(" ");
  return parts.length > 1 && NOT_NAMES.has(parts[1]!) ? parts[0] : candidate;
}

export function detectSpeakerNames(segments: Segment[]): Record<string, string> {
  const names: Record<string, string> = {};
  const taken = new Set<string>();
  const assign = (speaker: string, name: string) => {
    if (names[speaker] || taken.has(name)) return;
    names[speaker] = name;
    taken.add(name);
  };
  segments.forEach((seg, i) => {
    for (const re of SELF) {
      for (const m of seg.text.matchAll(re)) {
        const n = firstName(m[1]!);
        if (n) assign(seg.speaker, n);
      }
    }
    for (const re of GUEST) {
      for (const m of seg.text.matchAll(re)) {
        const n = firstName(m[1]!);
        const next = segments.slice(i + 1).find((s) => s.speaker !== seg.speaker);
        if (n && next) assign(next.speaker, n);
      }
    }
  });
  return names;
}
