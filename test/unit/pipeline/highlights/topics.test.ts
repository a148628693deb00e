import { describe, expect, test } from "bun:test";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { analyzeSentence } from "../../../../src/pipeline/highlights/nlp.ts";
import { sentenceFeatures, sentenceInterest } from "../../../../src/pipeline/highlights/features.ts";
import { centrality, cosine, lexicalVectors } from "../../../../src/pipeline/highlights/topics.ts";
import { transcriptFromTurns } from "../../../helpers/synthetic-transcript.ts";

const features = (s: string) => sentenceFeatures(s, analyzeSentence(s));

describe("sentence features", () => {
  test("questions, quantities and advice", () => {
    expect(features("Why do most podcasts stop after seven episodes?").question).toBe(true);
    expect(features("Revenue rose 40% to $3 million in 2023.").quantities).toBeGreaterThanOrEqual(3);
    expect(features("We went through them one by one.").numbers).toBe(0);
    expect(features("Make sure you record ten episodes first.").advice).toBeGreaterThan(0);
  });

  test("dangling openers: pronouns and conjunctions point back, introductions do not", () => {
    expect(features("He told me it would never work.").dangling).toBe("hard");
    expect(features("That's why we moved to Portland.").dangling).toBe("hard");
    expect(features("But the fear of staying was bigger.").dangling).toBe("hard");
    expect(features("It was a Tuesday in February.").dangling).toBe("soft");
    expect(features("This is Diane in New Jersey.").dangling).toBeNull();
    expect(features("Bread brings people through the door.").dangling).toBeNull();
    expect(features("Because nobody tells you.").continuation).toBe(true);
  });

  test("a hooky line outscores small talk", () => {
    const hook = sentenceInterest(features("Unpopular opinion: growth for its own sake is overrated."));
    const small = sentenceInterest(features("The meeting is at the usual place."));
    expect(hook).toBeGreaterThan(0.4);
    expect(small).toBeLessThan(0.15);
  });
});

describe("topic segmentation", () => {
  const bread = [
    "Our bakery starts the dough at four in the morning.",
    "The sourdough needs a long cold fermentation overnight.",
    "We bake six hundred loaves of bread every day.",
    "The oven holds forty loaves of sourdough at once.",
    "Flour prices for the bakery doubled this year.",
    "Every loaf of bread is shaped by hand before baking.",
  ];
  const football = [
    "The football season opens with a derby match on Saturday.",
    "Our striker scored twelve goals in the league last season.",
    "The coach changed the formation for the away match.",
    "The stadium sold every ticket for the derby.",
    "The goalkeeper saved two penalties in the cup match.",
    "Football fans travelled across the country for the final.",
  ];
  // About 5 minutes on each subject, one speaker, so only the words can tell the topics apart.
  const turns = [...Array(10).fill(bread).flat(), ...Array(10).fill(football).flat()].map((text) => ({ speaker: "A", text }));
  const t = transcriptFromTurns(turns);
  const a = analyzeTranscript(t);

  test("finds the switch from bread to football", () => {
    const switchAt = a.sentences.findIndex((s) => s.text.startsWith("The football season"));
    const starts = a.chapters.map((c) => c.firstSentence);
    expect(a.chapters.length).toBeGreaterThanOrEqual(2);
    expect(starts[0]).toBe(0);
    // One boundary lands on (or within two sentences of) the real switch.
    expect(starts.some((s) => Math.abs(s - switchAt) <= 2)).toBe(true);
  });

  test("chapter titles come from the chapter's own words", () => {
    const first = a.chapters[0]!.keyphrases.join(" ").toLowerCase();
    const last = a.chapters[a.chapters.length - 1]!.keyphrases.join(" ").toLowerCase();
    expect(first).toMatch(/bread|bakery|loaf|loaves|sourdough|dough|oven|flour/);
    expect(last).toMatch(/football|match|derby|stadium|striker|goal|coach|season|cup|final|fans/);
  });

  test("TF-IDF vectors: same-topic sentences are closer than cross-topic ones", () => {
    const v = lexicalVectors(a.nlp.slice(0, 12).concat(a.nlp.slice(-6)));
    expect(cosine(v[1]!, v[3]!)).toBeGreaterThan(cosine(v[1]!, v[14]!));
    const c = centrality(v);
    expect(c.every((x) => x >= 0 && x <= 1)).toBe(true);
  });
});
