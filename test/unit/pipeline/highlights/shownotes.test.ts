import { describe, expect, test } from "bun:test";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { selectClips } from "../../../../src/pipeline/highlights/select-clips.ts";
import { buildShowNotes, formatTimestamp, notesSection } from "../../../../src/pipeline/highlights/shownotes.ts";
import { INTERVIEW_FIXTURE, SHARED_MEDIA, transcriptFromTurnsFile } from "../../../helpers/synthetic-transcript.ts";
import { testShared } from "../../../helpers/shared.ts";


const toSeconds = (ts: string) => ts.split(":").map(Number).reduce((a, b) => a * 60 + b, 0);

describe("buildShowNotes on the interview", () => {
  const t = transcriptFromTurnsFile(INTERVIEW_FIXTURE);
  const a = analyzeTranscript(t);
  const clips = selectClips(t, { analysis: a });
  const md = buildShowNotes(t, clips, { analysis: a });

  test("title and a 2-3 sentence summary", () => {
    const lines = md.split("\n");
    expect(lines[0]).toMatch(/^# \S/);
    const summary = lines[2]!;
    const sentences = summary.match(/[.!?]["”]?(?=\s|$)/g) ?? [];
    expect(sentences.length).toBeGreaterThanOrEqual(2);
    expect(sentences.length).toBeLessThanOrEqual(3);
    expect(summary).toMatch(/^In this \d+-minute episode(?: of [^,]+)?, /);
  });

  test("key takeaways are sentences said in the episode", () => {
    const items = notesSection(md, "Key takeaways");
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(items.length).toBeLessThanOrEqual(5);
    const said = a.sentences.map((s) => s.text.toLowerCase());
    for (const item of items) expect(said.some((s) => s.endsWith(item.slice(2).toLowerCase()))).toBe(true);
  });

  test("chapters start at 00:00, ascend, and follow the topic segmentation", () => {
    const items = notesSection(md, "Chapters");
    expect(items.length).toBe(a.chapters.length);
    expect(items.length).toBeGreaterThanOrEqual(2);
    const times = items.map((l) => toSeconds(/^- (\d+:\d\d(?::\d\d)?) \S/.exec(l)![1]!));
    expect(times[0]).toBe(0);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
  });

  test("notable quotes carry the speaker's name and timestamp", () => {
    const items = notesSection(md, "Notable quotes");
    const attributions = items.filter((l) => l.startsWith("> —"));
    expect(attributions.length).toBeGreaterThanOrEqual(3);
    for (const l of attributions) expect(l).toMatch(/^> — (Priya|Maya), \d\d:\d\d$/);
    expect(items.filter((l) => l.startsWith("> “")).length).toBe(attributions.length);
  });

  test("names, organisations and resources mentioned", () => {
    const items = notesSection(md, "Mentioned").join("\n");
    for (const name of ["Portland", "Chicago", "Milwaukee", "Walter", "Alberta Street"]) expect(items).toContain(name);
    expect(items).toMatch(/Organisations: .*Second Rise Bakery/);
    expect(items).toMatch(/Resources: .*Instagram: second rise bakery/);
    // Speakers are listed under Speakers, not as mentions; weekdays are not names.
    expect(items).not.toMatch(/\bPriya\b|\bTuesday\b/);
  });

  test("speakers with names, labels and shares of speaking time", () => {
    const items = notesSection(md, "Speakers");
    expect(items.length).toBe(2);
    expect(items[0]).toMatch(/^- Priya \(SPEAKER_01\): \d+% of speaking time, \d+ turns$/);
    const shares = items.map((l) => Number(/(\d+)%/.exec(l)![1]));
    expect(Math.abs(shares.reduce((x, y) => x + y, 0) - 100)).toBeLessThanOrEqual(1);
  });

  test("a given title is used verbatim", () => {
    expect(buildShowNotes(t, clips, { analysis: a, title: "Episode 42: Bread" }).split("\n")[0]).toBe("# Episode 42: Bread");
  });
});

describe("buildShowNotes edge cases", () => {
  testShared("the real two-speaker call lists its places", () => {
    const t = transcriptFromTurnsFile(SHARED_MEDIA + "two_speakers_call.turns.txt");
    const md = buildShowNotes(t, selectClips(t));
    const mentioned = notesSection(md, "Mentioned").join(" ");
    for (const p of ["New Jersey", "Texas", "Chicago"]) expect(mentioned).toContain(p);
    expect(notesSection(md, "Speakers").join(" ")).toContain("Diane");
  });

  test("no speech gives a short note instead of empty sections", () => {
    const md = buildShowNotes({ language: "en", segments: [], words: [] }, [], { title: "Silence" });
    expect(md).toBe("# Silence\n\nThis episode has no recognised speech.\n");
  });

  test("formatTimestamp", () => {
    expect(formatTimestamp(0)).toBe("00:00");
    expect(formatTimestamp(65.9)).toBe("01:05");
    expect(formatTimestamp(3599)).toBe("59:59");
    expect(formatTimestamp(3725)).toBe("1:02:05");
  });
});
