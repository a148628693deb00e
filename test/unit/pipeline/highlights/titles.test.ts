import { describe, expect, test } from "bun:test";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { analyzeSentence } from "../../../../src/pipeline/highlights/nlp.ts";
import { selectClips } from "../../../../src/pipeline/highlights/select-clips.ts";
import { buildShowNotes, notesSection, onceEach, partOfShowName, soundsLikeShow, topicWeight } from "../../../../src/pipeline/highlights/shownotes.ts";
import { rankTitlePhrases, showName, titleCase, titlePhrases } from "../../../../src/pipeline/highlights/titles.ts";
import { ASR_FIXTURES, asrTranscript } from "../../../helpers/asr-fixture.ts";


/** Title case as a reader checks it: every word capitalised except small words inside. */
function isTitleCase(title: string): boolean {
  const small = new Set(["a", "an", "the", "and", "but", "or", "for", "of", "on", "in", "at", "to", "by", "with", "from", "as", "about"]);
  return title.split(/\s+/).every((w, i, all) => (i > 0 && i < all.length - 1 && small.has(w)) || /^[\p{Lu}\p{N}]/u.test(w));
}

describe("title case and phrases", () => {
  test("title case keeps small words low, proper and mixed-case words as said", () => {
    expect(titleCase("3B-hives on the roof")).toBe("3B-Hives on the Roof");
    expect(titleCase("duplication of effort")).toBe("Duplication of Effort");
    expect(titleCase("the iPhone of New Jersey")).toBe("The iPhone of New Jersey");
  });

  test("phrases are noun groups with an optional complement, without determiners or pronouns", () => {
    const s = "For the last two years I have kept 3B-hives on the roof of an apartment block.";
    const texts = titlePhrases(s, analyzeSentence(s)).map((p) => p.text);
    expect(texts).toContain("3B-hives on the roof");
    expect(texts.some((t) => /^(?:the|a|an|I)\b/.test(t))).toBe(false);
  });

  test("a count after a noun starts a new phrase (\"a roof | two streets away\") unless it numbers the noun (\"the number 9 bus\")", () => {
    const s = "The label said it came from a roof two streets away, and I waited for the number 9 bus.";
    const texts = titlePhrases(s, analyzeSentence(s)).map((p) => p.text);
    expect(texts).not.toContain("roof two streets");
    expect(texts).toContain("number 9 bus");
  });

  test("topics weigh by their centrality to the episode: the more central of two equally repeated phrases wins", () => {
    const texts = ["We keep bees on the roof.", "The bus stop is below the roof.", "The bees make honey.", "The bus was late."];
    const nlps = texts.map((t) => analyzeSentence(t));
    const central = new Map([["bees", 0.6], ["bus", 0.2]]);
    const ranked = rankTitlePhrases(texts, nlps, { weight: topicWeight(central) }).map((p) => p.text);
    expect(ranked.indexOf("bees")).toBeLessThan(ranked.indexOf("bus"));
    const flipped = rankTitlePhrases(texts, nlps, { weight: topicWeight(new Map([["bees", 0.2], ["bus", 0.6]])) }).map((p) => p.text);
    expect(flipped.indexOf("bus")).toBeLessThan(flipped.indexOf("bees"));
    // Nothing embedded: recurrence alone.
    expect(topicWeight(new Map())({ text: "bees", terms: ["bees"] })).toBe(1);
  });

  test("the show's name, and the recogniser's tries at it, are not something the episode mentions", () => {
    expect(soundsLikeShow("Roofop Hours", "Roofop Hours")).toBe(true);
    expect(soundsLikeShow("Roof Hot Bowers", "Roofop Hours")).toBe(true);
    expect(soundsLikeShow("Rooftop Hours", "the Rooftop Hours")).toBe(true);
    expect(soundsLikeShow("Theo Marsh", "Roofop Hours")).toBe(false);
    expect(soundsLikeShow("New Jersey", "Roofop Hours")).toBe(false);
    expect(soundsLikeShow("Roof Hot Bowers", null)).toBe(false);
    const notes = buildShowNotes(asrTranscript("rooftop-hours-piper"), []);
    expect(notesSection(notes, "Mentioned").join(" ")).not.toMatch(/Roof/);
  });

  test("a capitalised piece of the show's name, as said, is not a mention either", () => {
    const words = (s: string) => s.split(" ");
    // The recogniser capitalised only some of the name's words: "Hours", "Roof Hot" alone are too short to sound like it.
    expect(partOfShowName(words("back to Roof Up Hours the show"), 4, 5, "Roof Up Hours")).toBe(true);
    expect(partOfShowName(words("week of Roof Hot Pours"), 2, 4, "Roof Up Hours")).toBe(true);
    // A real name said next to the show's keeps its place.
    expect(partOfShowName(words("welcome to Rooftop Hours Chicago's favourite"), 4, 5, "Rooftop Hours")).toBe(false);
    expect(partOfShowName(words("we met Sarah Hour at the market"), 2, 4, "Rooftop Hours")).toBe(false);
    expect(partOfShowName(words("back to Roof Up Hours"), 4, 5, null)).toBe(false);
  });

  test("the show's name is read from the welcome line", () => {
    expect(showName(["Welcome back to rooftop hours, the show about small projects."])).toBe("rooftop hours");
    expect(showName(["So what did you think?"])).toBeNull();
  });
});

describe("episode and chapter titles on real transcripts", () => {
  for (const name of ASR_FIXTURES) {
    test(`${name}: a title-case topic, never a speaker label or a list`, () => {
      const t = asrTranscript(name);
      const a = analyzeTranscript(t);
      let clips: ReturnType<typeof selectClips> = [];
      try {
        clips = selectClips(t, { analysis: a });
      } catch {}
      const md = buildShowNotes(t, clips, { analysis: a });
      const title = md.split("\n")[0]!.replace(/^# /, "");
      expect(title).not.toMatch(/Speaker \d/);
      expect(isTitleCase(title)).toBe(true);
      // A list of noun phrases ("Rooftop hours and colony") is not a title; "X with Name" is.
      expect(title.replace(/ with .*$/, "")).not.toMatch(/ and /);
      expect(md).not.toMatch(/Speaker \d+ (?:and|talks?|on)\b/);
      const chapters = notesSection(md, "Chapters").map((l) => l.replace(/^- [\d:]+ /, ""));
      expect(new Set(chapters).size).toBe(chapters.length);
      for (const c of chapters) {
        expect(isTitleCase(c)).toBe(true);
        expect(c).not.toMatch(/ and /);
      }
    });
  }

  test("the 3-minute episode gets at least two chapters, starting on sentence starts", () => {
    const a = analyzeTranscript(asrTranscript("rooftop-hours"));
    expect(a.chapters.length).toBeGreaterThanOrEqual(2);
    for (const c of a.chapters.slice(1)) expect(a.sentences[c.firstSentence - 1]!.complete).toBe(true);
  });

  test("the rooftop episode is titled by what it is about and who is named", () => {
    const t = asrTranscript("rooftop-hours");
    const md = buildShowNotes(t, []);
    const title = md.split("\n")[0]!;
    expect(title).toMatch(/hive|bee|roof|colon/i);
    expect(title).toContain("Theo Marsh");
    const summary = md.split("\n")[2]!;
    expect(summary).toContain("episode of Rooftop Hours");
    expect(summary).toContain("Theo Marsh and one other speaker");
  });
});

describe("people and organisations once each", () => {
  test("a shorter form of a longer name is dropped", () => {
    expect(onceEach(["Commander William McCool", "Commander", "McCool", "Rick Husband", "Husband", "Columbia"])).toEqual([
      "Commander William McCool",
      "Rick Husband",
      "Columbia",
    ]);
  });
});
