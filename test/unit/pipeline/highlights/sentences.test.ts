import { describe, expect, test } from "bun:test";
import { joinWords, splitSentences } from "../../../../src/pipeline/highlights/sentences.ts";
import type { Word } from "../../../../src/pipeline/types.ts";
import { transcriptFromTurns } from "../../../helpers/synthetic-transcript.ts";

function words(tokens: string[], speaker = "A"): Word[] {
  return tokens.map((w, i) => ({ word: w, start: i * 0.5, end: i * 0.5 + 0.4, speaker }));
}

describe("splitSentences", () => {
  test("splits on terminal punctuation and keeps word indices and timings", () => {
    const w = words(["Hello", "there.", "How", "are", "you?", "Fine!"]);
    const s = splitSentences(w);
    expect(s.map((x) => x.text)).toEqual(["Hello there.", "How are you?", "Fine!"]);
    expect(s.map((x) => [x.firstWord, x.lastWord])).toEqual([[0, 1], [2, 4], [5, 5]]);
    expect(s[1]!.start).toBe(w[2]!.start);
    expect(s[1]!.end).toBe(w[4]!.end);
  });

  test("does not split after abbreviations, initials or before a lower-case word", () => {
    const s = splitSentences(words("Dr. Smith met J. R. Tolkien in the U.S. and talked. Then left.".split(" ")));
    expect(s.map((x) => x.text)).toEqual(["Dr. Smith met J. R. Tolkien in the U.S. and talked.", "Then left."]);
  });

  test("the pronoun I ends a sentence; an initial does not", () => {
    const s = splitSentences(words("Neither did I. Okay, I thought so. Ask J. Smith.".split(" ")));
    expect(s.map((x) => x.text)).toEqual(["Neither did I.", "Okay, I thought so.", "Ask J. Smith."]);
  });

  test("a dash ends a sentence cut off when a new one starts after it, not before lower case", () => {
    const s = splitSentences(words("So we could move the whole— Stop. Wait— no, it would break.".split(" ")));
    expect(s.map((x) => x.text)).toEqual(["So we could move the whole—", "Stop.", "Wait— no, it would break."]);
  });

  test("a speaker change always ends a sentence", () => {
    const w = [...words(["I", "think", "so"], "A"), ...words(["Really", "now."], "B")];
    const s = splitSentences(w);
    expect(s.map((x) => [x.speaker, x.text, x.boundary])).toEqual([
      ["A", "I think so", "speaker_change"],
      ["B", "Really now.", "end"],
    ]);
  });

  test("punctuation emitted as separate tokens is attached, and timings come from real words", () => {
    const w = words(["Yes", ",", "we", "did", ".", "Next", "one", "."]);
    const s = splitSentences(w);
    expect(s.map((x) => x.text)).toEqual(["Yes, we did.", "Next one."]);
    expect(s[0]!.lastWord).toBe(3);
    expect(s[1]!.firstWord).toBe(5);
  });

  test("annotations like [Music] are not speech", () => {
    const w = words(["[Music]", "Welcome", "back.", "(laughs)", "♪"]);
    const s = splitSentences(w);
    expect(s.map((x) => x.text)).toEqual(["Welcome back."]);
    expect(s[0]!.firstWord).toBe(1);
  });

  test("unpunctuated speech is cut at its longest pauses, never mid-word", () => {
    // LibriVox-style reference text: no punctuation at all.
    const text =
      "and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them he was not an ill disposed young man unless to be rather cold hearted and rather selfish is to be ill disposed had he married a more amiable woman he might have been made still more respectable than he was he might even have been made amiable himself";
    const toks = text.split(" ");
    let t = 0;
    const w: Word[] = toks.map((x, i) => {
      const start = t;
      t += 0.35 + ([21, 35, 49, 68].includes(i) ? 1.2 : 0.05);
      return { word: x, start, end: start + 0.3, speaker: "A" };
    });
    const s = splitSentences(w);
    expect(s.length).toBeGreaterThan(1);
    expect(s.every((x) => x.lastWord - x.firstWord + 1 <= 45 && x.end - x.start <= 18)).toBe(true);
    expect(s.slice(0, -1).every((x) => x.boundary === "pause")).toBe(true);
    // Cuts land on the long pauses that were planted.
    expect(s.slice(0, -1).every((x) => [21, 35, 49, 68].includes(x.lastWord))).toBe(true);
    expect(s.map((x) => x.text).join(" ")).toBe(text);
  });

  test("joinWords keeps clitics and punctuation tight", () => {
    expect(joinWords(["I", "do", "n't", "know", ",", "it", "'s", "fine", "."])).toBe("I don't know, it's fine.");
  });

  test("synthetic transcripts round-trip through the splitter", () => {
    const t = transcriptFromTurns([
      { speaker: "A", text: "First one. Second one?" },
      { speaker: "B", text: "Third one!" },
    ]);
    expect(splitSentences(t.words).map((s) => s.text)).toEqual(["First one.", "Second one?", "Third one!"]);
  });
});
