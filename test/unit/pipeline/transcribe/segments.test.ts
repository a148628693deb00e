import { describe, expect, test } from "bun:test";
import { formatTranscript, segmentsFromWords, segmentsOnTheVoice, transcriptSegments, VOICE_RUN_ON_SECONDS } from "../../../../src/pipeline/transcribe/segments.ts";

test("segments split on speaker change and long pauses", () => {
  const w = (word: string, start: number, speaker: string) => ({ word, start, end: start + 0.3, speaker });
  const segs = segmentsFromWords([w("Hello", 0, "Speaker 1"), w("there.", 0.4, "Speaker 1"), w("Hi!", 1, "Speaker 2"), w("So", 5, "Speaker 2")]);
  expect(segs.map((s) => [s.speaker, s.text, s.start])).toEqual([
    ["Speaker 1", "Hello there.", 0],
    ["Speaker 2", "Hi!", 1],
    ["Speaker 2", "So", 5],
  ]);
  expect(formatTranscript(segs, { "Speaker 2": "Sheila" }).split("\n")[1]).toBe("[0:01.0-0:01.3] Sheila (Speaker 2): Hi!");
});

test("segment text joins whisper's sub-word pieces and clitics as written", () => {
  const w = (word: string, start: number) => ({ word, start, end: start + 0.3, speaker: "Speaker 1" });
  const segs = segmentsFromWords([w("my", 0), w("co", 0.4), w("-host", 0.6), w("has", 1), w("60", 1.3), w(",000", 1.5), w("bees", 1.8), w("and", 2.1), w("does", 2.4), w("n't", 2.6), w("mind.", 2.8)]);
  expect(segs.map((s) => s.text)).toEqual(["my co-host has 60,000 bees and doesn't mind."]);
});

describe("segmentsOnTheVoice", () => {
  const seg = (speaker: string, start: number, end: number) => ({ speaker, start, end, text: "…" });
  const voice = (speaker: string, start: number, end: number) => ({ speaker, start, end });

  test("an end runs on through its speaker's voice; a start moves back at most the cap", () => {
    const out = segmentsOnTheVoice([seg("Speaker 1", 2, 5), seg("Speaker 2", 9, 12)], [voice("Speaker 1", 1.7, 5.4), voice("Speaker 2", 6, 14)], 1);
    // Speaker 1's voice runs 0.3 s before and 0.4 s after their words; Speaker 2's 3 s before (the start capped at 1 s) and 2 s after.
    expect(out.map((s) => [s.start, s.end])).toEqual([
      [1.7, 5.4],
      [8, 14],
    ]);
    expect(out.map((s) => s.text)).toEqual(["…", "…"]);
  });

  test("where someone talks over a speaker, both segments cover the overlap", () => {
    // Speaker 1 talks 0-7.5; Speaker 2 cuts in at 3, and the recogniser writes only Speaker 2's words from there to 7.
    const segs = [seg("Speaker 1", 0, 3), seg("Speaker 2", 3.2, 7)];
    const out = segmentsOnTheVoice(segs, [voice("Speaker 1", 0, 7.5), voice("Speaker 2", 3.1, 7)], 1);
    // Speaker 1's segment runs on under Speaker 2's words (more than 2 s past its own), to where they end.
    expect(out.map((s) => [s.start, s.end])).toEqual([
      [0, 7],
      [3.1, 7],
    ]);
    // Where nobody's words are, the end runs on at most VOICE_RUN_ON_SECONDS past the segment's own.
    expect(VOICE_RUN_ON_SECONDS).toBe(2);
    const alone = segmentsOnTheVoice([seg("Speaker 1", 0, 3), seg("Speaker 2", 3.2, 4)], [voice("Speaker 1", 0, 9)], 1);
    expect(alone.map((s) => [s.start, s.end])).toEqual([
      [0, 5],
      [3.2, 4],
    ]);
    // Only the segment's own speaker counts: Speaker 2's voice around Speaker 1's end moves nothing.
    expect(segmentsOnTheVoice([seg("Speaker 1", 0, 3)], [voice("Speaker 2", 0, 5)], 1)[0]).toMatchObject({ start: 0, end: 3 });
  });

  test("a segment never reaches its speaker's next one, and never starts before the segment before it", () => {
    // Speaker 1's voice runs through Speaker 2's interjection into their own next words.
    const segs = [seg("Speaker 1", 0, 4), seg("Speaker 2", 4.5, 5), seg("Speaker 1", 6, 9), seg("Speaker 2", 9.2, 10)];
    const out = segmentsOnTheVoice(segs, [voice("Speaker 1", 0, 12), voice("Speaker 2", 4.2, 5.1), voice("Speaker 2", 8.6, 10)], 1);
    expect(out.map((s) => [s.start, s.end])).toEqual([
      [0, 6],
      // Speaker 2 from where their voice starts, over Speaker 1's; Speaker 1's second segment stays
      // where its words start, as their first one runs up to there.
      [4.2, 5.1],
      // 2 s past its words (Speaker 2's words end before that): nobody's words are there to talk over it.
      [6, 11],
      // Back 0.6 s into the voice, before Speaker 1's end at 9: both talk there.
      [8.6, 10],
    ]);
    // A start never moves before the start of the segment before it, so the lines stay in order.
    const short = segmentsOnTheVoice([seg("Speaker 1", 5, 5.3), seg("Speaker 2", 5.5, 8)], [voice("Speaker 2", 4, 8)], 1);
    expect(short.map((s) => [s.start, s.end])).toEqual([
      [5, 5.3],
      [5, 8],
    ]);
  });

  test("a voice that does not touch the edge moves nothing; no voice gives the segments back", () => {
    const segs = [seg("Speaker 1", 2, 5)];
    expect(segmentsOnTheVoice(segs, [voice("Speaker 1", 5.5, 7), voice("Speaker 1", 0, 1.5)], 1)[0]).toMatchObject({ start: 2, end: 5 });
    expect(segmentsOnTheVoice(segs, undefined)).toBe(segs);
    expect(segmentsOnTheVoice(segs, [])).toBe(segs);
  });

  test("transcriptSegments widens the segments built from the words", () => {
    const w = (word: string, start: number, speaker: string) => ({ word, start, end: start + 0.3, speaker });
    const words = [w("Hello", 1, "Speaker 1"), w("there.", 1.4, "Speaker 1"), w("Hi!", 3, "Speaker 2")];
    expect(transcriptSegments(words).map((s) => [s.start, s.end])).toEqual([
      [1, 1.7],
      [3, 3.3],
    ]);
    expect(transcriptSegments(words, [voice("Speaker 1", 0.8, 2.2), voice("Speaker 2", 2.9, 3.9)]).map((s) => [s.start, s.end])).toEqual([
      [0.8, 2.2],
      [2.9, 3.9],
    ]);
  });
});
