import { expect, test } from "bun:test";
import { turnsOfSpeakersWithWords, wordlessVoiceTime } from "../../../../src/pipeline/transcribe/speaker-turns.ts";

const words = [
  { word: "Hi.", start: 1, end: 1.3, speaker: "Speaker 1" },
  { word: "Hello.", start: 2, end: 2.4, speaker: "Speaker 2" },
];

test("a voice that owns no words leaves the turns; the speakers of the words keep theirs", () => {
  const turns = [
    { speaker: "Speaker 3", start: 0, end: 0.8 },
    { speaker: "Speaker 1", start: 1, end: 1.5 },
    { speaker: "Speaker 2", start: 1.9, end: 2.5 },
    { speaker: "Speaker 3", start: 2.5, end: 2.7 },
  ];
  expect(turnsOfSpeakersWithWords(turns, words)).toEqual([turns[1], turns[2]]);
});

test("turns whose speakers all own words come back as they are, and none stay none", () => {
  const turns = [
    { speaker: "Speaker 1", start: 1, end: 1.5 },
    { speaker: "Speaker 2", start: 1.9, end: 2.5 },
  ];
  expect(turnsOfSpeakersWithWords(turns, words)).toBe(turns);
  expect(turnsOfSpeakersWithWords(undefined, words)).toBeUndefined();
});

test("without words the turns stay as the diarizer heard them", () => {
  const turns = [{ speaker: "Speaker 1", start: 0, end: 3 }];
  expect(turnsOfSpeakersWithWords(turns, [])).toBe(turns);
});

test("the time of the voices that own no words, as regions", () => {
  const turns = [
    { speaker: "Speaker 1", start: 0, end: 4 },
    { speaker: "Speaker 3", start: 4.2, end: 5.1 },
    { speaker: "Speaker 2", start: 5, end: 9 },
    { speaker: "Speaker 3", start: 9.5, end: 10 },
  ];
  const words = [{ speaker: "Speaker 1" }, { speaker: "Speaker 2" }];
  expect(wordlessVoiceTime(turns, words)).toEqual([
    [4.2, 5.1],
    [9.5, 10],
  ]);
  expect(wordlessVoiceTime(turns, [...words, { speaker: "Speaker 3" }])).toEqual([]);
});
