import { expect, test } from "bun:test";
import { labelsForGivenCount } from "../../../../src/pipeline/transcribe/given-count.ts";
import type { Region } from "../../../../src/pipeline/transcribe/vad.ts";

/** A labelling whose words have these speakers, and whose diarizer also heard `wordless` voices. */
function labelling(speakers: string[], wordless: string[] = []) {
  return {
    labelled: speakers.map((speaker) => ({ speaker })),
    diarized: { activity: [...speakers, ...wordless].map((speaker, i) => ({ speaker, start: i, end: i + 1 })) },
  };
}

test("the voices found unaided stand when they are already the count's people with words", () => {
  const calls: Array<[number | undefined, Region[] | undefined]> = [];
  const out = labelsForGivenCount(2, (count, notSpeech) => {
    calls.push([count, notSpeech]);
    return count === undefined ? labelling(["A", "B"], ["laugh"]) : labelling(["A"], ["laugh"]);
  });
  expect(new Set(out.labelled.map((w) => w.speaker))).toEqual(new Set(["A", "B"]));
  expect(calls).toEqual([[undefined, undefined]]);
});

test("a place a wordless voice took is given again without its time, and kept only if more people speak", () => {
  const seen: Array<Region[] | undefined> = [];
  const out = labelsForGivenCount(2, (count, notSpeech) => {
    seen.push(notSpeech);
    if (count === undefined) return labelling(["A", "B", "C"]);
    // Forced to two, the laugh (heard at 1-2 s) took a place and A and B share a voice.
    return notSpeech ? labelling(["A", "B"]) : labelling(["A"], ["laugh"]);
  });
  expect(new Set(out.labelled.map((w) => w.speaker)).size).toBe(2);
  expect(seen.at(-1)).toEqual([[1, 2]]);
  // When leaving the wordless time out finds no one more, the forced labels stay.
  const stays = labelsForGivenCount(3, (count, notSpeech) => (count === undefined ? labelling(["A"]) : notSpeech ? labelling(["A"]) : labelling(["A", "B"], ["cough"])));
  expect(new Set(stays.labelled.map((w) => w.speaker))).toEqual(new Set(["A", "B"]));
  // Forced labels that already have the count's people are not asked again.
  let asked = 0;
  labelsForGivenCount(2, (count, notSpeech) => {
    if (notSpeech) asked++;
    return count === undefined ? labelling(["A"]) : labelling(["A", "B"], ["noise"]);
  });
  expect(asked).toBe(0);
});
