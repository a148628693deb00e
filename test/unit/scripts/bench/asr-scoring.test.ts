import { describe, expect, test } from "bun:test";
import { bestMapping, diarizationErrorRate, normalizeWords, parseRttm, parseTurnText, parseUem, turnSentenceStats, turnsFromWords, wordErrorRate, wordSpeakerErrors } from "../../../../scripts/bench/asr-scoring.ts";

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

describe("speaker mapping", () => {
  /** The exhaustive search the Hungarian method replaced: every one-to-one mapping, the best total. */
  const bestTotal = (overlap: number[][]) => {
    const nr = overlap[0]!.length;
    const go = (h: number, used: Set<number>): number => {
      if (h === overlap.length) return 0;
      let best = go(h + 1, used);
      for (let r = 0; r < nr; r++) {
        if (used.has(r)) continue;
        used.add(r);
        best = Math.max(best, overlap[h]![r]! + go(h + 1, used));
        used.delete(r);
      }
      return best;
    };
    return go(0, new Set());
  };
  const total = (overlap: number[][], map: number[]) => map.reduce((s, r, h) => s + (r >= 0 ? overlap[h]![r]! : 0), 0);

  test("finds the best one-to-one total on random matrices of every shape, and maps nothing without overlap", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 60; trial++) {
      const nh = 1 + (trial % 6);
      const nr = 1 + Math.floor(trial / 10);
      const overlap = Array.from({ length: nh }, () => Array.from({ length: nr }, () => (rand() < 0.3 ? 0 : Math.round(rand() * 100) / 10)));
      const map = bestMapping(overlap);
      expect(total(overlap, map)).toBeCloseTo(bestTotal(overlap), 6);
      expect(new Set(map.filter((r) => r >= 0)).size).toBe(map.filter((r) => r >= 0).length);
      map.forEach((r, h) => r >= 0 && expect(overlap[h]![r]!).toBeGreaterThan(0));
    }
  });

  test("twenty speakers a side map at once", () => {
    const overlap = Array.from({ length: 20 }, (_, h) => Array.from({ length: 21 }, (_, r) => (r === (h * 5) % 21 ? 5 : (h + r) % 3)));
    const map = bestMapping(overlap);
    expect(map).toEqual(Array.from({ length: 20 }, (_, h) => (h * 5) % 21));
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
