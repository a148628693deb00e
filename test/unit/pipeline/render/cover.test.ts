import { describe, expect, test } from "bun:test";
import { pickCoverTime, wrapTitle } from "../../../../src/pipeline/render/cover.ts";
import type { FaceTrack } from "../../../../src/pipeline/render/faces.ts";
import type { Word } from "../../../../src/pipeline/types.ts";

describe("pickCoverTime", () => {
  const words: Word[] = [
    { word: "Hello", start: 1, end: 1.4, speaker: "A" },
    { word: "there.", start: 1.5, end: 2, speaker: "A" },
    { word: "Bees", start: 4, end: 4.5, speaker: "B" },
    { word: "buzz.", start: 4.6, end: 5.2, speaker: "B" },
    { word: "Yes", start: 8, end: 8.4, speaker: "A" },
  ];
  const obs = (t: number, score: number, w = 0.2) => ({ t, cx: 0.5, cy: 0.4, w, h: w, score });
  const tracks: FaceTrack[] = [
    { id: 1, obs: [obs(1.2, 0.6), obs(4.2, 0.99), obs(8.2, 0.7)] },
    { id: 2, obs: [obs(1.2, 0.99), obs(4.2, 0.95), obs(4.8, 0.9)] },
  ];
  const speakers = { bySpeaker: new Map([["A", 1], ["B", 2]]), confidence: new Map() };

  test("the speaker's own face while they speak: never a listener's face, however sure", () => {
    // B's face is surest at 1.2 s and A's at 4.2 s, but each while the other speaks; of B's face while
    // B speaks (4.2 s, 4.8 s), the one nearer the clip's middle wins.
    expect(pickCoverTime(words, 0, 10, { tracks, speakers })).toBe(4.8);
  });
  test("a small face counts for less than a clear one", () => {
    const small: FaceTrack[] = [{ id: 1, obs: [obs(1.2, 0.9, 0.2)] }, { id: 2, obs: [obs(4.2, 0.99, 0.03)] }];
    expect(pickCoverTime(words, 0, 10, { tracks: small, speakers })).toBe(1.2);
  });
  test("without faces: the middle of the word spoken nearest the clip's middle; without words, the clip's middle", () => {
    expect(pickCoverTime(words, 0, 10)).toBe(4.9);
    expect(pickCoverTime(words, 0, 10, { tracks: [], speakers: { bySpeaker: new Map(), confidence: new Map() } })).toBe(4.9);
    expect(pickCoverTime([], 2, 6)).toBe(4);
    // Words outside the clip do not count.
    expect(pickCoverTime(words, 6, 10)).toBe(8.2);
  });
});

describe("wrapTitle", () => {
  test("greedy lines of at most maxChars; a long title is cut with an ellipsis", () => {
    expect(wrapTitle("Bees on the Roof Above the Bus Stop", 16)).toEqual(["Bees on the Roof", "Above the Bus", "Stop"]);
    expect(wrapTitle("one two three four five six", 3, 2)).toEqual(["one", "two…"]);
    expect(wrapTitle("Supercalifragilistic word", 10)).toEqual(["Supercalifragilistic", "word"]);
  });
});
