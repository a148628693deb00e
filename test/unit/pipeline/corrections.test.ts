import { expect, test } from "bun:test";
import { correctHashtags, correctText, correctWords, rebuildSegments } from "../../../src/pipeline/corrections.ts";
import type { Word } from "../../../src/pipeline/types.ts";

/** Transcript corrections on word lists and on the text written from them. */
const said = (text: string, speaker = "SPEAKER_00", from = 0): Word[] =>
  text.split(" ").map((w, i) => ({ word: ` ${w}`, start: from + i * 0.5, end: from + i * 0.5 + 0.4, speaker, p: 0.5 }));
const text = (ws: Word[]) => ws.map((w) => w.word.trim()).join(" ");

test("replace swaps whole words case-insensitively, keeps punctuation and a sentence's capital, and leaves parts of words alone", () => {
  const words = said("Beehides on roofs. My beehides, the beehidesque ones, and BEEHIDES!");
  const { words: out, changed, rules } = correctWords(words, { replace: [{ find: "beehides", with: "beehives" }] });
  expect(text(out)).toBe("Beehives on roofs. My beehives, the beehidesque ones, and BEEHIVES!");
  expect(changed).toHaveLength(3);
  // One-for-one swaps keep each word's own times.
  expect(out.map((w) => [w.start, w.end])).toEqual(words.map((w) => [w.start, w.end]));
  expect(rules).toEqual([{ find: "beehides", with: "beehives" }]);
  // Applied again, nothing is left to change.
  expect(correctWords(out, { replace: [{ find: "beehides", with: "beehives" }] }).changed).toHaveLength(0);
});

test("a phrase may span words, and the replacement may have another number of words, spread over the same time", () => {
  const words = said("we met nor a vance at the hive");
  const { words: out } = correctWords(words, { replace: [{ find: "nor a vance", with: "Nora Vance" }] });
  expect(text(out)).toBe("we met Nora Vance at the hive");
  const nora = out[2]!;
  const vance = out[3]!;
  expect(nora.start).toBe(words[2]!.start);
  expect(vance.end).toBe(words[4]!.end);
  expect(nora.end).toBeCloseTo(vance.start, 3);
});

test("a words edit rewrites what was said between two times, keeps the speaker, and a repeat changes nothing", () => {
  const words = [...said("hello there friends", "SPEAKER_00"), ...said("the bees hum loudly", "SPEAKER_01", 2)];
  const edit = { start_time: 1.9, end_time: 2.8, text: "bumblebees" };
  const { words: out, changed, rules } = correctWords(words, { words: [edit] });
  expect(text(out)).toBe("hello there friends bumblebees hum loudly");
  expect(out[3]).toMatchObject({ word: " bumblebees", speaker: "SPEAKER_01", start: 2, end: 2.9 });
  expect(changed).toEqual([{ start: 1.9, end: 2.9 }]);
  expect(rules).toEqual([{ find: "the bees", with: "bumblebees" }]);
  expect(correctWords(out, { words: [{ start_time: 2, end_time: 2.9, text: "bumblebees" }] }).changed).toHaveLength(0);
  // Empty text: nothing was said there.
  expect(text(correctWords(words, { words: [{ start_time: 0, end_time: 0.6, text: "" }] }).words)).toBe("there friends the bees hum loudly");
});

test("text and hashtags written from the old words get the same swaps", () => {
  const rules = [{ find: "beehides", with: "beehives" }, { find: "nor a", with: "Nora" }];
  expect(correctText("Beehides above the bus stop: why nor a keeps beehides-free roofs", rules)).toBe("Beehives above the bus stop: why Nora keeps beehives-free roofs");
  expect(correctText("# Beehides\n\n- [00:10] beehides", rules)).toBe("# Beehives\n\n- [00:10] beehives");
  expect(correctHashtags(["#Beehides", "#RooftopBeehides", "#Bees"], rules)).toEqual(["#Beehives", "#RooftopBeehives", "#Bees"]);
});

test("segments are rebuilt from the words they hold", () => {
  const words = [...said("hi there", "A"), ...said("hello back", "B", 2)];
  const segs = [{ speaker: "A", start: 0, end: 0.9, text: "old" }, { speaker: "B", start: 2, end: 2.9, text: "old" }];
  expect(rebuildSegments(segs, correctWords(words, { replace: [{ find: "back", with: "again" }] }).words).map((s) => s.text)).toEqual(["hi there", "hello again"]);
});
