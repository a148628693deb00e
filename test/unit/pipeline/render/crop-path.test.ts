/** The crop path that follows the active speaker, and the graph it becomes (pure). */
import { describe, expect, test } from "bun:test";
import type { FaceObs } from "../../../../src/pipeline/render/faces.ts";
import { cropWindowAt, ease, planCropPath, planShots, trustedFaces } from "../../../../src/pipeline/render/crop-path.ts";
import { videoFilter } from "../../../../src/pipeline/render/graph.ts";

function obs(t: number, cx: number, mouth: number): FaceObs {
  return { t, cx, cy: 0.5, w: 0.15, h: 0.3, score: 0.9, mouthOpen: mouth };
}

describe("crop path", () => {
  const tracks = [
    { id: 0, obs: Array.from({ length: 40 }, (_, i) => obs(i * 0.25, 0.25, 0)) },
    { id: 1, obs: Array.from({ length: 40 }, (_, i) => obs(i * 0.25, 0.75, 0)) },
  ];
  const speakers = { bySpeaker: new Map([["A", 0], ["B", 1]]), confidence: new Map([["A", 0.8], ["B", 0.8]]) };
  const input = { tracks, speakers, srcWidth: 1920, srcHeight: 1080, start: 0, end: 10 };

  test("follows the active speaker and eases between them", () => {
    const path = planCropPath({ ...input, turns: [{ speaker: "A", start: 0, end: 5 }, { speaker: "B", start: 5, end: 10 }] });
    expect(path.mode).toBe("track");
    const [a0, a1] = cropWindowAt(path, 2);
    expect(a0).toBeLessThan(0.25 * 1920);
    expect(a1).toBeGreaterThan(0.25 * 1920);
    const [b0, b1] = cropWindowAt(path, 8);
    expect(b0).toBeLessThan(0.75 * 1920);
    expect(b1).toBeGreaterThan(0.75 * 1920);
    // The move is monotonic (no overshoot) and within the frame.
    let prev = -1;
    for (let t = 0; t <= 10; t += 0.05) {
      const [x0, x1] = cropWindowAt(path, t);
      expect(x0).toBeGreaterThanOrEqual(prev - 1e-6);
      expect(x0).toBeGreaterThanOrEqual(0);
      expect(x1).toBeLessThanOrEqual(1920);
      prev = x0;
    }
  });

  test("a short interjection does not move the crop", () => {
    const turns = [{ speaker: "A", start: 0, end: 4 }, { speaker: "B", start: 4, end: 4.5 }, { speaker: "A", start: 4.5, end: 10 }];
    expect(planShots({ ...input, turns }).map((s) => s.track)).toEqual([0]);
  });

  test("unsure who speaks: split the two faces; no faces, or faces too close to split: fit", () => {
    const turns = [{ speaker: "A", start: 0, end: 10 }];
    const unsure = { bySpeaker: new Map([["A", 0]]), confidence: new Map([["A", 0.05]]) };
    const split = planCropPath({ ...input, speakers: unsure, turns });
    expect(split.mode).toBe("split");
    expect(split.width / split.height).toBeCloseTo(9 / 8, 1);
    const [left, right] = split.panes!;
    // Each pane contains its face centre.
    expect(left!.x).toBeLessThan(0.25 * 1920);
    expect(left!.x + split.width).toBeGreaterThan(0.25 * 1920);
    expect(right!.x).toBeLessThan(0.75 * 1920);
    expect(right!.x + split.width).toBeGreaterThan(0.75 * 1920);
    expect(planCropPath({ ...input, tracks: [], turns }).mode).toBe("fit");
    const close = [tracks[0]!, { id: 1, obs: tracks[1]!.obs.map((o) => ({ ...o, cx: 0.3 })) }];
    expect(planCropPath({ ...input, tracks: close, speakers: unsure, turns }).mode).toBe("fit");
  });

  test("by elimination: with as many faces as speakers, the last speaker takes the face left even under the threshold", () => {
    const turns = [{ speaker: "A", start: 0, end: 5 }, { speaker: "B", start: 5, end: 10 }];
    // B's one lip-sync window read 0.12 (a listener mouthing along at 0.8x speed), A's 0.6.
    const weak = { bySpeaker: new Map([["A", 0], ["B", 1]]), confidence: new Map([["A", 0.6], ["B", 0.12]]) };
    expect([...trustedFaces({ tracks, speakers: weak, turns })]).toEqual([["A", 0], ["B", 1]]);
    expect(planShots({ ...input, speakers: weak, turns }).map((s) => s.track)).toEqual([0, 1]);
    // A third face (someone else in the shot): no elimination, B stays untrusted.
    const third = { id: 2, obs: tracks[0]!.obs.map((o) => ({ ...o, cx: 0.5 })) };
    expect([...trustedFaces({ tracks: [...tracks, third], speakers: weak, turns })]).toEqual([["A", 0]]);
    // Neither tied with confidence: nothing to eliminate from.
    const both = { bySpeaker: new Map([["A", 0], ["B", 1]]), confidence: new Map([["A", 0.1], ["B", 0.12]]) };
    expect(trustedFaces({ tracks, speakers: both, turns }).size).toBe(0);
    // B not assigned at all (its score was not above 0): it gets nothing.
    const unassigned = { bySpeaker: new Map([["A", 0]]), confidence: new Map([["A", 0.6]]) };
    expect([...trustedFaces({ tracks, speakers: unassigned, turns })]).toEqual([["A", 0]]);
  });

  test("split framing stacks two 1080x960 panes", () => {
    const src = { path: "s.mp4", durationSeconds: 10, hasVideo: true, hasAudio: true, width: 1920, height: 1080 };
    const g = videoFilter({ source: src, format: "linkedin", clipStart: 0, assPath: "/tmp/c.ass", fontsDir: "/fonts", suffix: "", crop: { mode: "split", width: 720, height: 640, keyframes: [], panes: [{ x: 100, y: 50 }, { x: 1000, y: 60 }] } });
    expect(g).toContain("crop=720:640:100:50,scale=1080:960[top]");
    expect(g).toContain("crop=720:640:1000:60,scale=1080:960[bottom]");
    expect(g).toContain("vstack");
  });

  test("ease has zero slope at both ends", () => {
    expect(ease(0)).toBe(0);
    expect(ease(1)).toBe(1);
    expect(ease(0.01)).toBeLessThan(0.001);
  });
});
