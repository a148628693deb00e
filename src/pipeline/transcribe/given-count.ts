/**
 * The speaker labels for a count the caller gave (the job's `speakers`): a count of people who say
 * something.
 *
 * Why: forcing the clustering to N voices lets a voice that says no word take a place (a laugh the
 * segmentation model heard as speech, a cough, a tune), and then two people share one voice. With real
 * laughs in the pauses of two-person talk and `speakers: 2` (scripts/bench/laughter.ts --given), the
 * transcript showed one person on 4 of 23 mixes. So:
 * - where the voices found unaided already are N people with words, they stand;
 * - else the count is forced, and a place a wordless voice took is given again with that voice's time
 *   left out of confident speech, kept if more people then speak.
 */
import { wordlessVoiceTime, type SpeakerTurn } from "./speaker-turns.ts";
import type { Region } from "./vad.ts";

export interface Labelling {
  /** The words with their speakers, as the transcript will show them. */
  labelled: ReadonlyArray<{ speaker: string }>;
  diarized?: { activity: SpeakerTurn[] } | false;
}

const voices = (l: Labelling) => new Set(l.labelled.map((w) => w.speaker)).size;

/** `label(count, notSpeech)` labels the words with the clustering cut at `count` voices (unaided when undefined). */
export function labelsForGivenCount<L extends Labelling>(given: number, label: (count?: number, notSpeech?: Region[]) => L): L {
  const unaided = label();
  if (voices(unaided) === given) return unaided;
  const forced = label(given);
  const wordless = forced.diarized ? wordlessVoiceTime(forced.diarized.activity, forced.labelled) : [];
  if (!wordless.length || voices(forced) >= given) return forced;
  const again = label(given, wordless);
  return voices(again) > voices(forced) ? again : forced;
}
