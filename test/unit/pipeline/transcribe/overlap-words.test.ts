import { describe, expect, test } from "bun:test";
import { overlappedSentencesToFramingVoice, overlapWordsToSentenceSpeaker } from "../../../../src/pipeline/transcribe/overlap-words.ts";
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

describe("sentences heard wholly in overlap go to the voice whose turn frames them", () => {
  // A talks throughout (0-7.7 s); the words are all labelled A, as the windows around them vote.
  const text = "My view was that it was clear to users. They didn't miss it. Right, okay. I was just thinking about the rest.";
  const ws = words(text, "A".repeat(22));
  // "They didn't miss it. Right, okay." is words 9-14: 3.15 s to 5.2 s.
  const interjection = { start: 3.15, end: 5.2 };

  test("another voice's turn that starts and ends with them takes them", () => {
    const activity = [
      { speaker: A, start: 0, end: 7.7 },
      { speaker: B, start: interjection.start - 0.1, end: interjection.end + 0.2 },
    ];
    const out = overlappedSentencesToFramingVoice(ws, activity);
    expect(labelsOf(out)).toBe("AAAAAAAAABBBBBBAAAAAAA");
    expect(out.map((w) => [w.word, w.start, w.end])).toEqual(ws.map((w) => [w.word, w.start, w.end]));
  });

  test("a last word whose time runs past the voice does not keep its sentence out", () => {
    // "They didn't miss it." is words 9-12 (3.15-4.5 s); B's turn ends halfway through "it." (4.2-4.5).
    const said = words("My view was that it was clear to users. They didn't miss it. I was just thinking about the rest of it.", "A".repeat(22));
    const activity = [
      { speaker: A, start: 0, end: 7.7 },
      { speaker: B, start: 3.1, end: 4.35 },
    ];
    expect(labelsOf(overlappedSentencesToFramingVoice(said, activity))).toBe("AAAAAAAAABBBBAAAAAAAAA");
  });

  test("a backchannel inside a sentence moves nothing: the sentence is not wholly in overlap", () => {
    const activity = [
      { speaker: A, start: 0, end: 7.7 },
      { speaker: B, start: 3.5, end: 4.2 },
    ];
    expect(labelsOf(overlappedSentencesToFramingVoice(ws, activity))).toBe("A".repeat(22));
  });

  test("when both turns run on around the sentences, or both frame them, the label stays", () => {
    const longer = [
      { speaker: A, start: 0, end: 7.7 },
      { speaker: B, start: 1.0, end: 7.7 },
    ];
    expect(labelsOf(overlappedSentencesToFramingVoice(ws, longer))).toBe("A".repeat(22));
    const both = [
      { speaker: A, start: interjection.start - 0.2, end: interjection.end + 0.1 },
      { speaker: B, start: interjection.start - 0.05, end: interjection.end + 0.1 },
    ];
    expect(labelsOf(overlappedSentencesToFramingVoice(ws, both))).toBe("A".repeat(22));
    // A turn that runs a second and more past the sentences does not frame them either.
    const loose = [
      { speaker: A, start: 0, end: 7.7 },
      { speaker: B, start: interjection.start - 0.7, end: interjection.end + 0.7 },
    ];
    expect(labelsOf(overlappedSentencesToFramingVoice(ws, loose))).toBe("A".repeat(22));
  });

  test("without activity nothing changes", () => {
    expect(overlappedSentencesToFramingVoice(ws, undefined)).toBe(ws);
    expect(overlappedSentencesToFramingVoice(ws, [])).toBe(ws);
  });
});
