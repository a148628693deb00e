import { describe, expect, test } from "bun:test";
import { copyUnits, quotableUnits } from "../../../../src/pipeline/highlights/copy-units.ts";
import { checkCopy, textSentences } from "../../../../src/pipeline/highlights/editorial-check.ts";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { selectClips } from "../../../../src/pipeline/highlights/select-clips.ts";
import { buildShowNotes, notesSection } from "../../../../src/pipeline/highlights/shownotes.ts";
import { asrTranscript } from "../../../helpers/asr-fixture.ts";

const wordCount = (s: string) => s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;


describe("hooks, pull quotes and takeaways on real transcripts are complete sentences", () => {
  for (const name of ["rooftop-hours", "meeting_trn03", "two_speakers_call"] as const) {
    describe(name, () => {
      const t = asrTranscript(name);
      const a = analyzeTranscript(t);
      const clips = selectClips(t, { analysis: a, count: 5 });
      const notes = buildShowNotes(t, clips, { analysis: a });

      test("hooks: one or two finished sentences on sentence edges, never truncated", () => {
        for (const c of clips) {
          expect({ hook: c.hook, problems: checkCopy(t.words, c.hook, c.start_time).problems }).toEqual({ hook: c.hook, problems: [] });
          expect(textSentences(c.hook).length).toBeLessThanOrEqual(2);
          expect(c.hook).not.toMatch(/…$/);
          expect(c.transcript_text).toContain(c.hook);
        }
      });

      test("pull quotes: finished, self-contained, 6-30 words, inside the clip", () => {
        for (const c of clips) {
          expect({ quote: c.pull_quote, problems: checkCopy(t.words, c.pull_quote, c.start_time).problems }).toEqual({ quote: c.pull_quote, problems: [] });
          expect(wordCount(c.pull_quote)).toBeGreaterThanOrEqual(6);
          expect(wordCount(c.pull_quote)).toBeLessThanOrEqual(30);
          expect(c.transcript_text).toContain(c.pull_quote);
          expect(c.pull_quote).not.toMatch(/^(?:he|she|they|that|which|because|and|but)\b/i);
        }
      });

      test("takeaways: verbatim finished statements on sentence edges", () => {
        for (const item of notesSection(notes, "Key takeaways")) {
          const text = item.replace(/^- /, "");
          expect({ text, problems: checkCopy(t.words, text).problems }).toEqual({ text, problems: [] });
          expect(text).not.toMatch(/\?$/);
        }
      });
    });
  }
});

describe("copy units", () => {
  test("a full stop without a pause keeps two sentences together in one unit", () => {
    const a = analyzeTranscript(asrTranscript("rooftop-hours"));
    const unit = copyUnits(a).find((u) => u.text.includes("And budget for a second hive."))!;
    expect(unit.text).toContain("Since one colony alone gives you nothing to compare against.");
    expect(a.sentences[unit.first]!.text).toBe("And budget for a second hive.");
  });

  test("sentences split between speakers by the diarizer are never quotable", () => {
    const a = analyzeTranscript(asrTranscript("meeting_trn09"));
    for (const u of quotableUnits(a)) expect(u.text).not.toMatch(/^\p{Ll}/u);
    // "My view on this was that" / "the need for people …" / "users." crosses two speaker changes mid-sentence.
    expect(quotableUnits(a).some((u) => u.text.includes("My view on this"))).toBe(false);
  });
});

describe("per-clip posting copy on real transcripts", () => {
  for (const name of ["rooftop-hours", "meeting_trn03", "two_speakers_call"] as const) {
    test(name, () => {
      const t = asrTranscript(name);
      const names = Object.values(t.speakerNames ?? {});
      const clips = selectClips(t, { count: 5, minSeconds: 6, maxSeconds: 30 });
      expect(new Set(clips.map((c) => c.title.toLowerCase())).size).toBe(clips.length);
      for (const c of clips) {
        expect(c.title.length).toBeGreaterThan(0);
        expect(c.title.length).toBeLessThanOrEqual(70);
        expect(c.title).not.toMatch(/Speaker \d/);
        // The description is one or two finished sentences said in the clip, credited when the speaker is named.
        const said = c.description.replace(new RegExp(`^(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") || "$^"}): `), "");
        expect(c.transcript_text).toContain(said);
        expect(textSentences(said).length).toBeGreaterThanOrEqual(1);
        expect(textSentences(said).length).toBeLessThanOrEqual(2);
        expect(checkCopy(t.words, said, c.start_time).problems).toEqual([]);
        expect(c.hashtags.length).toBeGreaterThanOrEqual(3);
        expect(c.hashtags.length).toBeLessThanOrEqual(5);
        expect(new Set(c.hashtags.map((h) => h.toLowerCase())).size).toBe(c.hashtags.length);
        for (const h of c.hashtags) expect(h).toMatch(/^#[\p{L}\p{N}]{3,30}$/u);
      }
    });
  }

  test("a clip is titled by its strongest standalone line when it has one: said in the clip, finished, short, on the episode's subject", () => {
    const t = asrTranscript("rooftop-hours-piper");
    const a = analyzeTranscript(t);
    const clips = selectClips(t, { count: 5, analysis: a });
    const lines = clips.filter((c) => !c.title.endsWith("?") && c.title.split(" ").length >= 4);
    expect(lines.length).toBeGreaterThan(0);
    for (const c of lines) {
      // The same words, in the clip, as one whole sentence of the transcript (title case aside).
      const sentence = a.sentences.find((s) => s.text.replace(/[.…]+$/, "").toLowerCase() === c.title.toLowerCase());
      expect(sentence).toBeDefined();
      expect(sentence!.start).toBeGreaterThanOrEqual(c.start_time - 0.01);
      expect(sentence!.end).toBeLessThanOrEqual(c.end_time + 0.01);
      expect(c.title.split(" ").length).toBeLessThanOrEqual(12);
      // Never a line that points back ("It", "That", "So …").
      expect(c.title).not.toMatch(/^(?:It|That|This|They|He|She|So|And|But|Because)\b/);
    }
  });

  test("no standalone line on the subject: the clip is titled by its topic phrase", () => {
    const t = asrTranscript("meeting_trn03");
    const clips = selectClips(t, { count: 1 });
    expect(clips[0]!.title.split(" ").length).toBeLessThanOrEqual(5);
  });

  test("the rooftop clips are tagged with the show's name and titled in title case", () => {
    const clips = selectClips(asrTranscript("rooftop-hours"), { count: 5 });
    for (const c of clips) expect(c.hashtags).toContain("#RooftopHours");
    expect(clips.some((c) => c.title === "What Went Wrong First?")).toBe(true);
  });
});
