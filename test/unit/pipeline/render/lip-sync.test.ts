/**
 * Lip sync ties a voice to the face whose mouth opens with it: speech whose loudness follows a
 * syllable pattern, one face whose mouth follows the same pattern and one whose mouth moves more
 * but to a pattern of its own (a listener nodding and mouthing along).
 */
import { describe, expect, test } from "bun:test";
import { assignSpeakers, attachLipReadings, buildTracks, type FaceObs } from "../../../../src/pipeline/render/faces.ts";
import { envelopeAt, LIP_SYNC_FPS, lipSync, lipSyncWindows, pearson, speechEnvelope } from "../../../../src/pipeline/render/lip-sync.ts";

/** Seeded PRNG (mulberry32): the same syllables on every run. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Loudness 0..1 over [from, to): syllables of 150-300 ms, 50-150 ms apart, each at its own level. */
function syllables(seed: number, from: number, to: number): (t: number) => number {
  const r = rng(seed);
  const spans: [number, number, number][] = [];
  for (let t = from + r() * 0.1; t < to; ) {
    const len = 0.15 + r() * 0.15;
    spans.push([t, Math.min(to, t + len), 0.3 + 0.7 * r()]);
    t += len + 0.05 + r() * 0.1;
  }
  return (t) => spans.find(([a, b]) => t >= a && t < b)?.[2] ?? 0;
}

const SR = 16000;
const A = syllables(1, 0, 5); // A speaks 0-5 s (left face)
const B = syllables(2, 5, 10); // B speaks 5-10 s (right face)
const noise = rng(3);
const audio = Float32Array.from({ length: 10 * SR }, (_, i) => (A(i / SR) + B(i / SR)) * (noise() * 2 - 1) * 0.3);
const speech = speechEnvelope(audio, SR);
const turns = [{ speaker: "A", start: 0, end: 5 }, { speaker: "B", start: 5, end: 10 }];

const face = (t: number, cx: number, mouthOpen: number): FaceObs => ({ t, cx, cy: 0.5, w: 0.15, h: 0.3, score: 0.9, mouthOpen });
/** Mouth opening at t: lips lead the sound they make by 40 ms. */
const mouth = (loud: (t: number) => number, gain: number) => (t: number) => 0.01 + gain * loud(t + 0.04);

/** Frames at the lip-sync rate with the left and right faces' mouths. */
function frames(left: (t: number) => number, right: (t: number) => number) {
  return Array.from({ length: Math.round(10 * LIP_SYNC_FPS) }, (_, i) => {
    const t = i / LIP_SYNC_FPS;
    return { t, faces: [face(t, 0.25, left(t)), face(t, 0.75, right(t))] };
  });
}

describe("lip sync", () => {
  test("the envelope is the audio's loudness in time: loud in syllables, quiet between", () => {
    const loud = envelopeAt(speech, 0.5)!;
    expect(speech.hop).toBeCloseTo(0.01, 6);
    // Somewhere in A's turn there is a gap between syllables, and it reads far quieter.
    const quietest = Math.min(...Array.from({ length: 40 }, (_, i) => envelopeAt(speech, 0.3 + i * 0.1, 0.04)!));
    expect(Math.max(loud, envelopeAt(speech, 1.5)!)).toBeGreaterThan(quietest + 2);
    expect(envelopeAt(speech, 11)).toBeUndefined();
  });

  test("pearson: 1 for the same shape, 0 for a series that does not vary", () => {
    expect(pearson([1, 2, 3], [10, 20, 30])).toBeCloseTo(1, 6);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 6);
    expect(pearson([1, 2, 3], [5, 5, 5])).toBe(0);
  });

  test("a speaker's mouth follows their voice far better than any listener's moving mouth", () => {
    const track = (loud: (t: number) => number) => buildTracks(frames(mouth(loud, 0.05), mouth(loud, 0.05)))[0]!;
    const speaker = lipSync(track(A), speech, [{ start: 0.3, end: 4.7 }])!;
    // Twenty listeners, each mouthing a pattern of their own, larger than the speaker's.
    const listeners = Array.from({ length: 20 }, (_, i) => lipSync(buildTracks(frames(mouth(syllables(100 + i, 0, 5), 0.1), () => 0))[0]!, speech, [{ start: 0.3, end: 4.7 }])!);
    expect(speaker).toBeGreaterThan(0.7);
    expect(speaker - Math.max(...listeners)).toBeGreaterThan(0.2);
    // The same voice in the other turn: the right face speaks there, in sync.
    expect(lipSync(buildTracks(frames(() => 0, mouth(B, 0.05)))[1]!, speech, [{ start: 5.3, end: 9.7 }])!).toBeGreaterThan(0.7);
  });

  test("speakers go to the faces in sync with their voices, not to the face that moves most", () => {
    // Each listens with a mouth moving twice as much as the speaker's, out of time with the voice.
    const [restL, restR] = [syllables(8, 5, 10), syllables(9, 0, 5)];
    const tracks = buildTracks(frames((t) => mouth(A, 0.05)(t) + mouth(restL, 0.1)(t), (t) => mouth(B, 0.05)(t) + mouth(restR, 0.1)(t)));
    const left = tracks.find((t) => t.obs[0]!.cx < 0.5)!.id;
    const right = tracks.find((t) => t.obs[0]!.cx > 0.5)!.id;
    const bySync = assignSpeakers(tracks, turns, speech);
    expect(bySync.bySpeaker.get("A")).toBe(left);
    expect(bySync.bySpeaker.get("B")).toBe(right);
    expect(bySync.confidence.get("A")!).toBeGreaterThan(0.3);
    expect(bySync.confidence.get("B")!).toBeGreaterThan(0.3);
    // Movement alone (no audio to follow) picks the listener: the reason it must not decide.
    expect(assignSpeakers(tracks, turns).bySpeaker.get("A")).toBe(right);
  });

  test("faces that move out of time with every voice score far below a face in time with one", () => {
    // Ten pairs of faces mouthing patterns of their own through both turns; then the same pairs with
    // the left face speaking A's turn in time with A's voice.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const outOfTime: number[] = [];
    const inTime: number[] = [];
    for (let i = 0; i < 10; i++) {
      const [l, r] = [syllables(200 + i, 0, 10), syllables(300 + i, 0, 10)];
      const scores = (left: (t: number) => number) => assignSpeakers(buildTracks(frames(left, mouth(r, 0.1))), turns, speech).confidence;
      const idle = scores(mouth(l, 0.1));
      // An unassigned speaker is trusted with no face: confidence 0.
      outOfTime.push(idle.get("A") ?? 0, idle.get("B") ?? 0);
      inTime.push(scores((t) => (t < 5 ? mouth(A, 0.05)(t) : mouth(l, 0.1)(t))).get("A") ?? 0);
    }
    console.log(`confidence, faces out of time: mean ${mean(outOfTime).toFixed(2)}; the face in time with A: mean ${mean(inTime).toFixed(2)}, least ${Math.min(...inTime).toFixed(2)}`);
    // planShots follows a face only at confidence >= 0.15.
    expect(mean(outOfTime)).toBeLessThan(0.15);
    expect(mean(inTime) - mean(outOfTime)).toBeGreaterThan(0.3);
  });

  test("a frozen face follows no voice", () => {
    const tracks = buildTracks(frames(mouth(A, 0.05), () => 0.02));
    const s = assignSpeakers(tracks, turns, speech);
    expect(s.bySpeaker.get("A")).toBe(tracks.find((t) => t.obs[0]!.cx < 0.5)!.id);
    expect(s.bySpeaker.has("B")).toBe(false);
  });

  test("mouths are read densely in each speaker's two longest turns, at most 4 s of each, in time order", () => {
    const t = (speaker: string, start: number, end: number) => ({ speaker, start, end });
    const windows = lipSyncWindows([t("A", 0, 10), t("B", 10, 12), t("A", 12, 13), t("B", 13, 14.5), t("A", 14.5, 20), t("B", 20, 20.9)], 0.3);
    // A: 0-10 s (middle 4 s) and 14.5-20 s (middle 4 s); B: 10-12 s and 13-14.5 s less 0.3 s each
    // end; B's 0.9 s turn leaves 0.3 s, too short for a reading.
    expect(windows.map((w) => [w.start, w.end].map((x) => Number(x.toFixed(2))))).toEqual([[3, 7], [10.3, 11.7], [13.3, 14.2], [15.25, 19.25]]);
    // Each speaker's longest turn is their first window (rank 0), read before any second one.
    expect(windows.map((w) => `${w.speaker}${w.rank}`)).toEqual(["A0", "B0", "B1", "A1"]);
  });

  test("dense readings join the track whose face is nearest, and lip sync reads them instead of the tracking samples", () => {
    // Tracking at 2 fps sees two still mouths; the dense frames see the left one speak A.
    const sparse = Array.from({ length: 21 }, (_, i) => ({ t: i / 2, faces: [face(i / 2, 0.25, 0.02), face(i / 2, 0.75, 0.02)] }));
    const tracks = buildTracks(sparse);
    expect(lipSync(tracks[0]!, speech, [{ start: 0.3, end: 4.7 }])).toBe(0);
    attachLipReadings(tracks, frames(mouth(A, 0.05), () => 0.02).filter((f) => f.t < 5).map((f) => ({ t: f.t, faces: f.faces.map((o) => ({ ...o, cx: o.cx + 0.01 })) })));
    const left = tracks.find((tr) => tr.obs[0]!.cx < 0.5)!;
    expect(left.lip!.length).toBe(Math.round(5 * LIP_SYNC_FPS));
    expect(lipSync(left, speech, [{ start: 0.3, end: 4.7 }])!).toBeGreaterThan(0.7);
    expect(lipSync(tracks.find((tr) => tr.obs[0]!.cx > 0.5)!, speech, [{ start: 0.3, end: 4.7 }])).toBe(0);
  });
});
