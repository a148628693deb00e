import { expect, test } from "bun:test";
import { snapToSentenceEdges } from "../../../../src/pipeline/highlights/clip-bounds.ts";
import type { Word } from "../../../../src/pipeline/types.ts";

/** Words of one speaker, 0.3 s each, 0.1 s apart within a sentence and 0.6 s after a full stop. */
function speak(sentences: string[][], speaker = "S1"): Word[] {
  const words: Word[] = [];
  let t = 1;
  for (const s of sentences) {
    for (const w of s) {
      words.push({ word: w, start: t, end: t + 0.3, speaker });
      t += 0.4;
    }
    t += 0.5;
  }
  return words;
}

const words = speak([
  ["We", "keep", "bees."],
  ["The", "roof", "is", "warm."],
  ["Honey", "sells", "well", "in", "spring."],
  ["That", "is", "all."],
]);
// Sentence starts: 1.0, 2.7, 4.8, 7.3; ends: 2.1, 4.2, 6.7, 8.4.

test("rough times snap to the nearest sentence start and the nearest finished sentence's end", () => {
  expect(snapToSentenceEdges(words, 2.5, 6.0)).toEqual({ start: 2.7, end: 6.7, text: "The roof is warm. Honey sells well in spring." });
  expect(snapToSentenceEdges(words, 0, 100)).toEqual({ start: 1, end: 8.4, text: "We keep bees. The roof is warm. Honey sells well in spring. That is all." });
  // An end nearer a sentence end before the start still ends after the start.
  expect(snapToSentenceEdges(words, 7.0, 7.2)!.end).toBe(8.4);
});

test("a word inside a sentence is never an edge, and a comma is not a sentence end", () => {
  const lists = speak([["Bees,", "wasps", "and", "ants", "sting."], ["Moths", "do", "not."]]);
  // 2.2 s is the start of "and": the clip starts at the sentence's first word instead.
  expect(snapToSentenceEdges(lists, 2.2, 3.2)).toMatchObject({ start: 1, end: 2.9, text: "Bees, wasps and ants sting." });
});

test("a full stop without a pause does not end a sentence (the evidence rule)", () => {
  const rushed: Word[] = ["One.", "Two", "three."].map((word, i) => ({ word, start: 1 + i * 0.35, end: 1.3 + i * 0.35, speaker: "S1" }));
  // "One." is followed 0.05 s later by the same speaker: not an evidenced end, so the only end is the last word's.
  expect(snapToSentenceEdges(rushed, 1, 1.3)).toMatchObject({ start: 1, end: 2 });
});

test("no sentence ends after the start: undefined", () => {
  expect(snapToSentenceEdges([], 0, 5)).toBeUndefined();
});
