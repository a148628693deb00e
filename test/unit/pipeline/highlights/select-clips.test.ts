import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { z } from "zod";
import { CLIP_CATEGORIES, CLIP_WINDOW_MESSAGE, DEFAULT_CLIP_COUNT, HighlightOptionsFields, HighlightOptionsSchema, NoClipsError, clipWindowIsValid, selectClips } from "../../../../src/pipeline/highlights/select-clips.ts";
import { overlapFraction } from "../../../../src/pipeline/highlights/rank.ts";
import type { ClipPlan, Transcript } from "../../../../src/pipeline/types.ts";
import { INTERVIEW_FIXTURE, SHARED_MEDIA, parseTurns, transcriptFromTurns, transcriptFromTurnsFile } from "../../../helpers/synthetic-transcript.ts";
import { SHARED_PRESENT, testShared } from "../../../helpers/shared.ts";

const interview = transcriptFromTurnsFile(INTERVIEW_FIXTURE);
/** The shared jfk.wav's words (its jfk.ref.txt), as text is all this test needs. */
const JFK_LINE = "And so, my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";
const call = SHARED_PRESENT ? transcriptFromTurnsFile(SHARED_MEDIA + "two_speakers_call.turns.txt") : undefined!;

function expectWellFormed(t: Transcript, clips: ClipPlan[], min: number, max: number) {
  const a = analyzeTranscript(t);
  const starts = new Set(a.sentences.map((s) => s.start));
  const ends = new Set(a.sentences.map((s) => s.end));
  clips.forEach((c, i) => {
    expect(c.rank).toBe(i + 1);
    expect(starts.has(c.start_time)).toBe(true);
    expect(ends.has(c.end_time)).toBe(true);
    const d = c.end_time - c.start_time;
    expect(d).toBeGreaterThanOrEqual(min);
    expect(d).toBeLessThanOrEqual(max);
    expect(CLIP_CATEGORIES as readonly string[]).toContain(c.category);
    expect(c.score).toBeGreaterThanOrEqual(0);
    expect(c.score).toBeLessThanOrEqual(100);
    expect(c.transcript_text.startsWith(c.hook.replace(/…$/, ""))).toBe(true);
    expect(c.transcript_text).toContain(c.pull_quote.replace(/…$/, ""));
    expect(c.reason.length).toBeGreaterThan(20);
    // The clip opens on a line that stands alone.
    expect(c.hook).not.toMatch(/^(?:he|she|they|them|that|these|those|which|and|but|because)\b/i);
    if (i > 0) expect(c.score).toBeLessThanOrEqual(clips[i - 1]!.score);
  });
  for (let i = 0; i < clips.length; i++)
    for (let j = i + 1; j < clips.length; j++) {
      const x = { start: clips[i]!.start_time, end: clips[i]!.end_time };
      const y = { start: clips[j]!.start_time, end: clips[j]!.end_time };
      expect(overlapFraction(x, y)).toBeLessThanOrEqual(0.1);
    }
}

describe("selectClips", () => {
  test("interview: clips start and end on sentence boundaries, fit the window, do not overlap, rank by score", () => {
    const clips = selectClips(interview, { count: 6 });
    expect(clips.length).toBe(6);
    expectWellFormed(interview, clips, 20, 60);
  });

  test("custom window and count are honoured", () => {
    const clips = selectClips(interview, { count: 3, minSeconds: 10, maxSeconds: 25 });
    expect(clips.length).toBe(3);
    expectWellFormed(interview, clips, 10, 25);
  });

  testShared("the real two-speaker call yields a clip from whole sentences", () => {
    const clips = selectClips(call, { count: 3 });
    expect(clips.length).toBeGreaterThanOrEqual(1);
    expectWellFormed(call, clips, 20, 60);
  });

  test("too little speech throws NoClipsError (the 11 s JFK line)", () => {
    const jfk = transcriptFromTurns([{ speaker: "JFK", text: JFK_LINE }]);
    let err: unknown;
    try {
      selectClips(jfk);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NoClipsError);
    expect((err as NoClipsError).reason).toBe("speech_too_short");
    expect((err as NoClipsError).code).toBe("no_clips_to_render");
    // The same line qualifies once the window allows it.
    expect(selectClips(jfk, { minSeconds: 3, maxSeconds: 30 }).length).toBe(1);
  });

  test("music only / empty transcripts throw NoClipsError no_speech", () => {
    const music = transcriptFromTurns([{ speaker: "A", text: "[Music] ♪ [Music] (applause)" }]);
    expect(() => selectClips(music)).toThrow(NoClipsError);
    expect(() => selectClips({ language: "en", segments: [], words: [] })).toThrow(NoClipsError);
  });

  test("long speech with no clean start anywhere throws no_candidate", () => {
    // Every sentence points back ("He ...", "That ..."), so no clip can stand alone.
    const text = Array.from({ length: 30 }, (_, i) => (i % 2 ? "That was the plan all along for him." : "He said it again to the people there.")).join(" ");
    let err: unknown;
    try {
      selectClips(transcriptFromTurns([{ speaker: "A", text }]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NoClipsError);
    expect((err as NoClipsError).reason).toBe("no_candidate");
  });

  test("a passage repeated later in the episode (an ad read) is chosen once", () => {
    const ad =
      "This episode is brought to you by Acme Coffee, the best beans we have ever tasted. Use code SMALLBATCH for 20% off your first bag. Seriously, 20% off, that is the best deal in coffee right now. Go to acme coffee dot com today.";
    const t = transcriptFromTurns([
      { speaker: "Host", text: ad },
      ...parseTurns(readFileSync(INTERVIEW_FIXTURE, "utf8")).slice(0, 12),
      { speaker: "Host", text: ad },
    ]);
    const clips = selectClips(t, { count: 5, minSeconds: 10, maxSeconds: 40 });
    const adClips = clips.filter((c) => c.transcript_text.includes("SMALLBATCH"));
    expect(adClips.length).toBeLessThanOrEqual(1);
  });

  test("segments without word timings are an analysis error, not 'no clips'", () => {
    const t: Transcript = { language: "en", segments: [{ speaker: "A", start: 0, end: 40, text: "A long turn of speech." }], words: [] };
    let err: unknown;
    try {
      selectClips(t);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(NoClipsError);
    expect((err as Error).message).toContain("word-level timings");
  });

  test("rejects an invalid window", () => {
    expect(() => selectClips(interview, { minSeconds: 30, maxSeconds: 20 })).toThrow(RangeError);
  });

  test("a clip never ends right before the same speaker's 'because ...'", () => {
    const clips = selectClips(interview, { count: 10, minSeconds: 8, maxSeconds: 30 });
    const a = analyzeTranscript(interview);
    for (const c of clips) {
      const i = a.sentences.findIndex((s) => s.end === c.end_time);
      const next = a.sentences[i + 1];
      if (next && next.speaker === a.sentences[i]!.speaker) expect(next.text).not.toMatch(/^(?:because|which)\b/i);
    }
  });
});

/** A bland stretch of talk (no hooks) around one passage, each passage its own turn. */
function episodeWith(passage: string, speaker = "Guest"): Transcript {
  const bland =
    "We talked about the schedule for the week. The meeting is at the usual place. The room was booked for the afternoon. " +
    "The list of items was reviewed one by one. The notes were shared with the team later. The agenda was the same as before. ";
  return transcriptFromTurns([
    { speaker: "Host", text: bland + bland },
    { speaker, text: passage },
    { speaker: "Host", text: bland + bland },
  ]);
}

describe("ranking and categories", () => {
  const cases: Array<[string, string]> = [
    [
      "data",
      "Here are the numbers from our survey of 2,400 listeners. Sixty-two percent said they listen at 1.5x speed. Only 8% finish an episode longer than 90 minutes. The median listener gives a new show 7 minutes before deciding. Revenue per listener rose from $1.20 to $3.40 in two years.",
    ],
    [
      "advice",
      "If you want to start a podcast, my advice is simple. Record ten episodes before you publish a single one. Don't buy expensive gear, just get a decent microphone. Make sure you edit out the first two minutes of every recording. You should publish on the same day every single week.",
    ],
    [
      "story",
      "I remember the night I almost quit. I was sitting in my car in the parking lot at two in the morning. My dad called me and I told him I had failed. He said something I will never forget. When I was a kid, he had lost his own business, and he started again the next year.",
    ],
    [
      "hot_take",
      "Unpopular opinion, but morning routines are overrated. Everyone says you have to wake up at five to be successful. Honestly, I think that advice is nonsense for most people. Nobody talks about the fact that sleep matters more than any routine. I disagree with the whole productivity industry on this.",
    ],
  ];
  for (const [category, passage] of cases) {
    test(`a ${category} passage is ranked first and labelled ${category}`, () => {
      const t = episodeWith(passage);
      const clips = selectClips(t, { count: 3, minSeconds: 12, maxSeconds: 40 });
      expect(clips[0]!.category).toBe(category);
      // The top clip is the planted passage, and it outscores the bland talk around it.
      expect(clips[0]!.transcript_text).toContain(passage.split(". ")[1]!.slice(0, 20));
      expect(clips[0]!.score).toBeGreaterThan(clips[clips.length - 1]!.score);
    });
  }

  test("a leading question that the clip answers is a question clip", () => {
    const t = transcriptFromTurns([
      ...parseTurns(
        "Host: We talked about the schedule for the week. The meeting is at the usual place. The room was booked for the afternoon. The list of items was reviewed one by one.\n" +
          "Host: Why do most new podcasts stop after seven episodes?\n" +
          "Guest: Because nobody tells you how slow the first year is. You publish, you hear nothing back, and you assume it's failing. The shows that last simply kept going past that silence.\n" +
          "Host: The notes were shared with the team later. The agenda was the same as before. The list of items was reviewed one by one. The room was booked for the afternoon.",
      ),
    ]);
    const clips = selectClips(t, { count: 2, minSeconds: 10, maxSeconds: 30 });
    expect(clips[0]!.category).toBe("question");
    expect(clips[0]!.hook).toStartWith("Why do most new podcasts");
  });

  test("laughter from the audio lifts a clip's score and makes it humor", () => {
    const passage = "So the dentist bites into the bun and finds the ring. He holds it up to the whole room. He looks at the couple and says he is already married. The whole shop was in tears by the end of it.";
    const t = episodeWith(passage);
    const opts = { count: 1, minSeconds: 8, maxSeconds: 30 };
    const without = selectClips(t, opts)[0]!;
    const laughAt = without.end_time - 2;
    const withLaugh = selectClips(t, { ...opts, audio: { laughter: [{ start: laughAt, end: laughAt + 1.5 }] } })[0]!;
    expect(withLaugh.start_time).toBe(without.start_time);
    expect(withLaugh.score).toBeGreaterThan(without.score);
    expect(withLaugh.category).toBe("humor");
    expect(withLaugh.reason).toContain("laughter");
  });

  test("laughter the recogniser wrote down counts as laughter heard", () => {
    const passage = "So the dentist bites into the bun and finds the ring. He holds it up to the whole room. He looks at the couple and says he is already married. The whole shop was in tears by the end of it. Ha ha ha!";
    const t = episodeWith(passage);
    const opts = { count: 1, minSeconds: 8, maxSeconds: 30 };
    const heard = selectClips(t, opts)[0]!;
    // A caller's own measurement wins over the words: here none was heard.
    const measured = selectClips(t, { ...opts, audio: { laughter: [] } })[0]!;
    expect(heard.reason).toContain("laughter x1");
    expect(heard.category).toBe("humor");
    expect(measured.reason).not.toContain("laughter");
    expect(heard.start_time).toBe(measured.start_time);
    expect(heard.score).toBeGreaterThan(measured.score);
  });

  test("higher vocal energy over a clip raises its score", () => {
    const t = episodeWith(cases[0]![1]);
    const base = selectClips(t, { count: 1, minSeconds: 12, maxSeconds: 40 })[0]!;
    const frames = Math.ceil(t.words[t.words.length - 1]!.end / 0.5);
    const values = Array.from({ length: frames }, (_, i) => (i * 0.5 >= base.start_time && i * 0.5 < base.end_time ? 0.9 : 0.3));
    const loud = selectClips(t, { count: 1, minSeconds: 12, maxSeconds: 40, audio: { energy: { frameSeconds: 0.5, values } } })[0]!;
    expect(loud.start_time).toBe(base.start_time);
    expect(loud.score).toBeGreaterThan(base.score);
  });
});

describe("HighlightOptionsSchema", () => {
  test("fills defaults", () => {
    expect(HighlightOptionsSchema.parse({})).toEqual({ clip_count: DEFAULT_CLIP_COUNT, min_clip_seconds: 20, max_clip_seconds: 60 });
  });
  test("rejects min >= max and out-of-range counts", () => {
    expect(HighlightOptionsSchema.safeParse({ min_clip_seconds: 60, max_clip_seconds: 30 }).success).toBe(false);
    expect(HighlightOptionsSchema.safeParse({ clip_count: 0 }).success).toBe(false);
    expect(HighlightOptionsSchema.safeParse({ clip_count: 11 }).success).toBe(false);
    expect(HighlightOptionsSchema.safeParse({ clip_count: 2.5 }).success).toBe(false);
    expect(HighlightOptionsSchema.safeParse({ clip_count: 10, min_clip_seconds: 15, max_clip_seconds: 45 }).success).toBe(true);
  });
  test("the fields embed in a larger job options schema with the same rule", () => {
    const Job = z.object({ include_trailer: z.boolean().optional(), ...HighlightOptionsFields.shape }).refine(clipWindowIsValid, { message: CLIP_WINDOW_MESSAGE });
    expect(Job.parse({ include_trailer: true })).toEqual({ include_trailer: true, clip_count: DEFAULT_CLIP_COUNT, min_clip_seconds: 20, max_clip_seconds: 60 });
    const bad = Job.safeParse({ min_clip_seconds: 40, max_clip_seconds: 30 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.message).toBe(CLIP_WINDOW_MESSAGE);
  });
});
