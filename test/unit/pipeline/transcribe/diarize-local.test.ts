import { describe, expect, test } from "bun:test";
import { reconstructSpeakers, wordSpeakersFromActivity, type LocalFrames } from "../../../../src/pipeline/transcribe/diarize-local.ts";
import type { SpeakerTurn } from "../../../../src/pipeline/transcribe/speaker-turns.ts";

/** 0.1 s frames; a chunk's classes written as runs: [[class, seconds], ...]. */
const STEP = 0.1;
function chunk(start: number, runs: Array<[number, number]>): LocalFrames["chunks"][number] {
  return { start, classes: runs.map(([c, s]) => String(c).repeat(Math.round(s / STEP))).join("") };
}
const frames = (chunks: LocalFrames["chunks"]): LocalFrames => ({ chunks, frameSeconds: STEP, firstFrameSeconds: 0 });

/** Seconds each speaker is active inside [a, b). */
function within(turns: SpeakerTurn[], a: number, b: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of turns) {
    const s = Math.max(0, Math.min(b, t.end) - Math.max(a, t.start));
    if (s > 1e-9) out[t.speaker] = Math.round(((out[t.speaker] ?? 0) + s) * 10) / 10;
  }
  return out;
}

/** The overlap-aware activity alone. */
const reconstructActivity = (...args: Parameters<typeof reconstructSpeakers>) => reconstructSpeakers(...args).activity;

describe("reconstructSpeakers", () => {
  // The windows put the change from A to B at 5.5 s; the model hears it at 5.0 s.
  const primary: SpeakerTurn[] = [
    { speaker: "A", start: 0, end: 5.5 },
    { speaker: "B", start: 5.5, end: 10 },
  ];

  test("a turn's edge comes from the model's frames, its speaker from the windows' voice", () => {
    const local = frames([chunk(0, [[1, 5], [2, 5]])]);
    const out = reconstructActivity(local, primary, primary, 10);
    expect(within(out, 0, 5)).toEqual({ A: 5 });
    expect(within(out, 5, 10)).toEqual({ B: 5 });
  });

  test("local numbers are per chunk: the same voice under different numbers in two chunks", () => {
    // Chunk 2 numbers B as its speaker 1 and A as its speaker 2.
    const local = frames([chunk(0, [[1, 5], [2, 5]]), chunk(2.5, [[2, 2.5], [1, 5], [0, 0.5]])]);
    const out = reconstructActivity(local, primary, primary, 10);
    expect(within(out, 0, 5)).toEqual({ A: 5 });
    expect(within(out, 5, 10)).toEqual({ B: 5 });
  });

  test("where the model hears two at once, both voices are active, the second being the chunk's other speaker", () => {
    const local = frames([chunk(0, [[1, 4], [4, 1], [2, 5]])]);
    const both = reconstructSpeakers(local, primary, primary, 10);
    expect(within(both.activity, 4, 5)).toEqual({ A: 1, B: 1 });
    expect(within(both.activity, 0, 4)).toEqual({ A: 4 });
    // One at a time, the overlap goes to the voice most chunks name there, a tie to the windows' voice.
    expect(within(both.turns, 0, 10)).toEqual({ A: 5, B: 5 });
  });

  test("a local speaker whose alone-time is split between voices is not named; the windows' voice stands", () => {
    // Speaker 1 of the chunk talks alone over A (3 s) and over B (3 s): no clear voice.
    const local = frames([chunk(0, [[1, 6], [2, 4]])]);
    const windows: SpeakerTurn[] = [
      { speaker: "A", start: 0, end: 3 },
      { speaker: "B", start: 3, end: 10 },
    ];
    const out = reconstructActivity(local, windows, windows, 10);
    expect(within(out, 0, 3)).toEqual({ A: 3 });
    expect(within(out, 3, 10)).toEqual({ B: 7 });
  });

  test("speech the windows have but the model calls silence stays; two local speakers never take one voice", () => {
    const local = frames([chunk(0, [[1, 3], [0, 2], [2, 5]])]);
    const onlyA: SpeakerTurn[] = [{ speaker: "A", start: 0, end: 10 }];
    const out = reconstructActivity(local, onlyA, onlyA, 10);
    // Speaker 2 of the chunk cannot also be A: its frames fall back to the windows' A, and nothing is doubled.
    expect(within(out, 0, 10)).toEqual({ A: 10 });
  });

  test("without chunks the windows' activity comes back unchanged (on the frame grid)", () => {
    const act: SpeakerTurn[] = [...primary, { speaker: "A", start: 6, end: 7 }];
    const out = reconstructActivity(frames([]), primary, act, 10);
    expect(within(out, 0, 10)).toEqual({ A: 6.5, B: 4.5 });
  });
});

describe("wordSpeakersFromActivity", () => {
  const activity: SpeakerTurn[] = [
    { speaker: "A", start: 0, end: 5 },
    { speaker: "B", start: 4.5, end: 10 },
    { speaker: "A", start: 6, end: 6.4 },
  ];
  const word = (start: number, end: number) => ({ start, end });

  test("each word takes the speaker heard over most of it, whatever the windows said", () => {
    expect(wordSpeakersFromActivity([word(1, 1.3), word(5.1, 5.5), word(4.8, 5.4)], activity, ["B", "A", "A"])).toEqual(["A", "B", "B"]);
  });

  test("where two are heard equally long the windows' label stands if it is one of them; unheard words keep it", () => {
    // 6.0-6.4: A and B both active (a backchannel over B).
    expect(wordSpeakersFromActivity([word(6, 6.4), word(6, 6.4)], activity, ["A", "B"])).toEqual(["A", "B"]);
    expect(wordSpeakersFromActivity([word(6, 6.4)], activity, ["C"])[0]).toMatch(/^[AB]$/);
    expect(wordSpeakersFromActivity([word(12, 12.5)], activity, ["C"])).toEqual(["C"]);
  });
});
