/** Which trailer framings planned before still hold (pure): same span, same speaker turns. */
import { describe, expect, test } from "bun:test";
import { reusableFraming, turnsKey, type PassageFraming } from "../../../../src/pipeline/render/trailer-framing.ts";
import { correctWords } from "../../../../src/pipeline/corrections.ts";
import type { Word } from "../../../../src/pipeline/types.ts";

const words: Word[] = [
  { word: "so", start: 10, end: 10.3, speaker: "A" },
  { word: "the", start: 10.4, end: 10.6, speaker: "A" },
  { word: "roof", start: 10.7, end: 11.1, speaker: "A" },
  { word: "yes", start: 11.5, end: 11.9, speaker: "B" },
  { word: "indeed", start: 12, end: 12.5, speaker: "B" },
];

describe("trailer framing reuse", () => {
  test("the key is the speaker turns inside the span", () => {
    expect(JSON.parse(turnsKey(words, 10, 13))).toEqual([["A", 10, 11.1], ["B", 11.5, 12.5]]);
    // Words outside the span do not count.
    expect(JSON.parse(turnsKey(words, 11.4, 13))).toEqual([["B", 11.5, 12.5]]);
  });

  test("a respelled word keeps the framing; a changed speaker or span plans it again", () => {
    const framing: PassageFraming = { start: 10, end: 13, turns: turnsKey(words, 10, 13), crop: { mode: "fit", width: 0, height: 0, keyframes: [] } };
    // A correction as the API applies it: a replace rule, and a words edit over "the roof".
    const respelled = correctWords(words, { replace: [{ find: "roof", with: "rooftop" }], words: [{ start_time: 10.35, end_time: 11.2, text: "this rooftop" }] }).words;
    expect(respelled.map((w) => w.word).join(" ")).toBe("so this rooftop yes indeed");
    expect(reusableFraming([framing], 10, 13, turnsKey(respelled, 10, 13))).toBe(framing);
    const reassigned = words.map((w) => (w.word === "yes" ? { ...w, speaker: "A" } : w));
    expect(reusableFraming([framing], 10, 13, turnsKey(reassigned, 10, 13))).toBeUndefined();
    expect(reusableFraming([framing], 10, 13.04, turnsKey(words, 10, 13.04))).toBeUndefined();
    expect(reusableFraming(undefined, 10, 13, framing.turns)).toBeUndefined();
  });
});
