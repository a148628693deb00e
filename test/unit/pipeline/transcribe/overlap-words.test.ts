import { expect, test } from "bun:test";
import { overlapWordsToSentenceSpeaker } from "../../../../src/pipeline/transcribe/overlap-words.ts";
import type { Word } from "../../../../src/pipeline/types.ts";

/** Words 0.3 s long every 0.35 s, labelled by the diarizer as `labels` says (one letter per word). */
function words(text: string, labels: string): Word[] {
  return text.split(" ").map((word, i) => ({ word, start: i * 0.35, end: i * 0.35 + 0.3, speaker: labels[i] === "A" ? "Speaker 1" : "Speaker 2" }));
}
const A = "Speaker 1";
const B = "Speaker 2";
const labelsOf = (ws: Word[]) => ws.map((w) => (w.speaker === A ? "A" : "B")).join("");

test("a word heard in overlap goes to the speaker whose sentence it is", () => {
  // A says one sentence; B's "yeah" comes in over its 4th-5th words (1.05-1.75 s), where the diarizer gave them to B.
  const ws = words("I think we should ship it on Monday. Yeah.", "AAABBAAAB");
  const activity = [
    { speaker: A, start: 0, end: 2.75 },
    { speaker: B, start: 1.05, end: 1.75 },
    { speaker: B, start: 2.8, end: 3.1 },
  ];
  const out = overlapWordsToSentenceSpeaker(ws, activity);
  expect(labelsOf(out)).toBe("AAAAAAAAB");
  // Everything else about the words is kept.
  expect(out.map((w) => [w.word, w.start, w.end])).toEqual(ws.map((w) => [w.word, w.start, w.end]));
});

test("a word heard by one voice alone keeps its label, even inside another's sentence", () => {
  const ws = words("I think we should ship it on Monday.", "AAABBAAA");
  const activity = [
    { speaker: A, start: 0, end: 1.05 },
    { speaker: B, start: 1.05, end: 1.75 },
    { speaker: A, start: 1.75, end: 2.75 },
  ];
  expect(labelsOf(overlapWordsToSentenceSpeaker(ws, activity))).toBe("AAABBAAA");
});

test("the sentence's speaker must be one of the two heard over the word", () => {
  // Overlap of B and a third voice C over words 4-5: A is not heard there, so the words are not A's.
  const ws = words("I think we should ship it on Monday.", "AAABBAAA");
  const activity = [
    { speaker: A, start: 0, end: 1.05 },
    { speaker: B, start: 1.05, end: 1.75 },
    { speaker: "Speaker 3", start: 1.05, end: 1.75 },
    { speaker: A, start: 1.75, end: 2.75 },
  ];
  expect(labelsOf(overlapWordsToSentenceSpeaker(ws, activity))).toBe("AAABBAAA");
});

test("a sentence no one clearly owns outside overlap is left alone", () => {
  // Two words each outside overlap, two in it: no speaker says more than half of the clear words.
  const ws = words("so what do you think now", "AABBBB");
  const activity = [
    { speaker: A, start: 0, end: 1.4 },
    { speaker: B, start: 0.7, end: 2.1 },
  ];
  expect(labelsOf(overlapWordsToSentenceSpeaker(ws, activity))).toBe("AABBBB");
  // One more clear word of A's, and the sentence is A's: its overlapped words follow.
  const longer = words("so what do you think now", "AABBBB").map((w, i) => (i === 4 ? { ...w, speaker: A } : w));
  expect(labelsOf(overlapWordsToSentenceSpeaker(longer, activity))).toBe("AAAAAB");
  // Without any activity, nothing changes.
  expect(overlapWordsToSentenceSpeaker(ws, undefined)).toBe(ws);
});
