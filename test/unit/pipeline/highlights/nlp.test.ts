import { describe, expect, test } from "bun:test";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { isCommonWord } from "../../../../src/pipeline/highlights/nlp.ts";
import { mentions } from "../../../../src/pipeline/highlights/shownotes.ts";
import { transcriptFromTurns } from "../../../helpers/synthetic-transcript.ts";

describe("isCommonWord", () => {
  test("common nouns and verbs are; names and places wink knows as proper nouns are not", () => {
    for (const w of ["beekeeper", "Beekeeper", "hope", "apple", "ladder", "commuters"]) expect(isCommonWord(w)).toBe(true);
    for (const w of ["Walter", "Chicago", "Texas", "Vance", "Milwaukee", "Zanzibar", "qwrtzplk"]) expect(isCommonWord(w)).toBe(false);
  });

  test("a phrase is not one word", () => {
    expect(isCommonWord("bus stop")).toBe(false);
  });
});

describe("mentions", () => {
  const said = (...texts: string[]) =>
    transcriptFromTurns(texts.map((text, i) => ({ speaker: i % 2 ? "SPEAKER_01" : "SPEAKER_00", text })));

  test("a lone common word capitalised once mid-sentence is not a name; said so twice, or a name, it is one", () => {
    const t = said(
      "The bus pulled in and I retired Beekeeper waiting for that bus talked me through it.",
      "Our head baker, Walter, told me on my first day that I would hate it.",
      "We drove down to Texas for the honey fair last spring.",
    );
    const names = mentions(t, analyzeTranscript(t)).names;
    expect(names).toContain("Walter");
    expect(names).toContain("Texas");
    expect(names).not.toContain("Beekeeper");

    const twice = said("My hive scale came from Apple last year.", "I think Apple sold it for a while.");
    expect(mentions(twice, analyzeTranscript(twice)).names).toContain("Apple");
  });
});
