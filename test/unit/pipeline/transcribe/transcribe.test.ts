import { describe, expect, test } from "bun:test";
import { keepingEverySpeaker, numberedByFirstAppearance } from "../../../../src/pipeline/transcribe/transcribe.ts";

describe("numberedByFirstAppearance", () => {
  test("words, turns and activity get one renaming: by first word, then by first turn of a voice with no words", () => {
    const words = [
      { word: "Hi", start: 1, end: 1.2, speaker: "Speaker 2" },
      { word: "there.", start: 1.2, end: 1.5, speaker: "Speaker 2" },
      { word: "Hello.", start: 2, end: 2.4, speaker: "Speaker 1" },
    ];
    const turns = [
      { speaker: "Speaker 3", start: 0, end: 0.8 },
      { speaker: "Speaker 2", start: 1, end: 1.5 },
      { speaker: "Speaker 1", start: 2, end: 2.4 },
    ];
    const activity = [...turns, { speaker: "Speaker 1", start: 1.3, end: 1.5 }];
    const out = numberedByFirstAppearance(words, turns, activity);
    expect(out.words.map((w) => w.speaker)).toEqual(["Speaker 1", "Speaker 1", "Speaker 2"]);
    expect(out.timelines[0]!.map((t) => t.speaker)).toEqual(["Speaker 3", "Speaker 1", "Speaker 2"]);
    expect(out.timelines[1]!.map((t) => t.speaker)).toEqual(["Speaker 3", "Speaker 1", "Speaker 2", "Speaker 2"]);
    // The words' timings are untouched, and a missing timeline stays missing.
    expect(out.words.map((w) => w.start)).toEqual([1, 1.2, 2]);
    expect(numberedByFirstAppearance(words, undefined).timelines).toEqual([undefined]);
  });
});

test("with a given count, a speaker realignment would leave without words keeps its own", () => {
  const w = (word: string, speaker: string) => ({ word, start: 0, end: 0.1, speaker });
  const labelled = [w("Okay,", "Speaker 1"), w("does", "Speaker 2"), w("it", "Speaker 2"), w("work?", "Speaker 2")];
  const aligned = labelled.map((x) => ({ ...x, speaker: "Speaker 2" }));
  expect(keepingEverySpeaker(labelled, aligned).map((x) => x.speaker)).toEqual(["Speaker 1", "Speaker 2", "Speaker 2", "Speaker 2"]);
  const moved = [labelled[0]!, { ...labelled[1]!, speaker: "Speaker 1" }, labelled[2]!, labelled[3]!];
  expect(keepingEverySpeaker(labelled, moved)).toBe(moved);
});
