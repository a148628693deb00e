import { describe, expect, test } from "bun:test";
import { diarizationErrorRate, normalizeWords, parseRttm, parseTurnText, parseUem, turnSentenceStats, turnsFromWords, wordErrorRate, wordSpeakerErrors } from "../../../../scripts/bench/asr-scoring.ts";

describe("word error rate", () => {
  test("ignores case and punctuation", () => {
    expect(normalizeWords("And so, my fellow Americans—ask not!")).toEqual(["and", "so", "my", "fellow", "americans", "ask", "not"]);
    expect(wordErrorRate("And so, my fellow Americans.", "and so my fellow americans").wer).toBe(0);
  });
  test("counts substitutions, deletions and insertions", () => {
    const r = wordErrorRate("a b c d", "a x c d e");
    expect(r.substitutions).toBe(1);
    expect(r.insertions).toBe(1);
    expect(r.deletions).toBe(0);
    expect(r.wer).toBeCloseTo(0.5);
    const d = wordErrorRate("one two three four", "one four");
    expect(d.deletions).toBe(2);
    expect(d.wer).toBeCloseTo(0.5);
  });
  test("empty hypothesis is 100%", () => {
    expect(wordErrorRate("hello world", "").wer).toBe(1);
  });
});

describe("diarization error rate", () => {
  const ref = [
    { speaker: "A", start: 0, end: 4 },
    { speaker: "B", start: 4, end: 10 },
  ];
  test("perfect up to label names", () => {
    const hyp = [
      { speaker: "x", start: 0, end: 4 },
      { speaker: "y", start: 4, end: 10 },
    ];
    expect(diarizationErrorRate(ref, hyp).der).toBeCloseTo(0, 3);
  });
  test("missed speech, false alarm and confusion", () => {
    const hyp = [
      { speaker: "x", start: 1, end: 6 }, // 0-1 missed; 4-6 confused (x maps to A)
      { speaker: "y", start: 6, end: 11 }, // 10-11 false alarm
    ];
    const r = diarizationErrorRate(ref, hyp, [[0, 11]]);
    expect(r.missed).toBeCloseTo(1, 1);
    expect(r.confusion).toBeCloseTo(2, 1);
    expect(r.falseAlarm).toBeCloseTo(1, 1);
    expect(r.der).toBeCloseTo(0.4, 2);
  });
  test("one label for everything confuses the minority speaker", () => {
    const r = diarizationErrorRate(ref, [{ speaker: "s", start: 0, end: 10 }]);
    expect(r.der).toBeCloseTo(0.4, 2);
  });
  test("scores only inside the UEM", () => {
    const r = diarizationErrorRate(ref, [{ speaker: "s", start: 0, end: 10 }], [[4, 10]]);
    expect(r.der).toBeCloseTo(0, 3);
  });
  test("parses RTTM, UEM and word turns", () => {
    expect(parseRttm("SPEAKER f 1 6.690 0.430 <NA> <NA> spk1 <NA> <NA>\n")).toEqual([{ speaker: "spk1", start: 6.69, end: 6.69 + 0.43 }]);
    expect(parseUem("f 1 0.000 30.000\n")).toEqual([[0, 30]]);
    const turns = turnsFromWords([
      { speaker: "S1", start: 0, end: 0.5 },
      { speaker: "S1", start: 0.7, end: 1 },
      { speaker: "S2", start: 1.1, end: 2 },
      { speaker: "S1", start: 4, end: 5 },
    ]);
    expect(turns).toEqual([
      { speaker: "S1", start: 0, end: 1 },
      { speaker: "S2", start: 1.1, end: 2 },
      { speaker: "S1", start: 4, end: 5 },
    ]);
  });
});

describe("turns and sentences", () => {
  const words = (spec: string) =>
    spec.split(" ").map((t, i) => {
      const [word, speaker] = t.split("/");
      return { word: word!, speaker: speaker!, start: i, end: i + 0.5 };
    });
  test("counts turn ends on sentence ends and sentences cut by a speaker change", () => {
    const s = turnSentenceStats(words("Hello?/A Hello./B Where/B are/B you/A from?/A Texas./B"));
    expect(s.changes).toBe(3);
    expect(s.changesAtSentenceEnd).toBe(2);
    expect(s.sentences).toBe(4);
    expect(s.splitSentences).toBe(1);
  });
  test("words given to the wrong speaker, under the best speaker mapping", () => {
    const ref = parseTurnText("Diane: Hello?\nSheila: Hello, who is this?\n");
    expect(ref).toEqual([{ speaker: "Diane", text: "Hello?" }, { speaker: "Sheila", text: "Hello, who is this?" }]);
    expect(wordSpeakerErrors(ref, words("Hello?/S1 Hello,/S2 who/S2 is/S2 this?/S2"))).toEqual({ aligned: 5, wrong: 0 });
    // one word moved across the change, one recognised wrongly (still aligned), one missing (not counted)
    expect(wordSpeakerErrors(ref, words("Hello?/S1 Hello,/S1 what/S2 this?/S2"))).toEqual({ aligned: 4, wrong: 1 });
  });
});
