/** Face tracks and who is speaking: tracks kept by position, speakers matched to faces (pure). */
import { describe, expect, test } from "bun:test";
import { assignSpeakers, buildTracks, distinctFaces, regionsToRead, turnsFromWords, type FaceObs } from "../../../../src/pipeline/render/faces.ts";

function obs(t: number, cx: number, mouth: number): FaceObs {
  return { t, cx, cy: 0.5, w: 0.15, h: 0.3, score: 0.9, mouthOpen: mouth };
}

describe("faces", () => {
  // Left face talks 0-5 s (mouth moving), right face talks 5-10 s.
  const frames = Array.from({ length: 40 }, (_, i) => {
    const t = i * 0.25;
    const wobble = i % 2 ? 0.06 : 0.01;
    return { t, faces: [obs(t, 0.25 + (i % 3) * 0.002, t < 5 ? wobble : 0.02), obs(t, 0.75, t >= 5 ? wobble : 0.02)] };
  });
  const turns = [{ speaker: "A", start: 0, end: 5 }, { speaker: "B", start: 5, end: 10 }];

  test("tracks keep identity by position and drop one-frame blips", () => {
    const withBlip = frames.map((f, i) => (i === 7 ? { t: f.t, faces: [...f.faces, obs(f.t, 0.5, 0)] } : f));
    const tracks = buildTracks(withBlip);
    expect(tracks).toHaveLength(2);
    expect(tracks.every((t) => t.obs.length === 40)).toBe(true);
  });

  test("speakers are tied to the face whose mouth moves in their turns", () => {
    const tracks = buildTracks(frames);
    const s = assignSpeakers(tracks, turns);
    const left = tracks.find((t) => t.obs[0]!.cx < 0.5)!.id;
    const right = tracks.find((t) => t.obs[0]!.cx > 0.5)!.id;
    expect(s.bySpeaker.get("A")).toBe(left);
    expect(s.bySpeaker.get("B")).toBe(right);
    expect(s.confidence.get("A")!).toBeGreaterThan(0.3);
  });

  test("turn boundaries a few hundred ms late do not blur who is who", () => {
    // The diarizer ends A's turn 0.3 s after B's mouth has started moving (and B's turn after A's
    // speech resumes): the samples around each boundary must not count as the wrong face talking.
    const late = [{ speaker: "A", start: 0, end: 5.3 }, { speaker: "B", start: 5.3, end: 10 }];
    const tracks = buildTracks(frames);
    const s = assignSpeakers(tracks, late);
    expect(s.bySpeaker.get("B")).toBe(tracks.find((t) => t.obs[0]!.cx > 0.5)!.id);
    expect(s.confidence.get("A")!).toBeGreaterThan(0.9);
    expect(s.confidence.get("B")!).toBeGreaterThan(0.9);
  });

  test("still faces give no assignment", () => {
    const still = frames.map((f) => ({ t: f.t, faces: f.faces.map((o) => ({ ...o, mouthOpen: 0.02 })) }));
    expect(assignSpeakers(buildTracks(still), turns).bySpeaker.size).toBe(0);
  });

  test("followed regions that converged on one face count once, the surer kept", () => {
    const face = (cx: number, score: number) => ({ score, next: { cx, cy: 100, side: 80 } });
    // 10 px apart with an 80 px side: one face read twice; 60 px apart: two faces side by side.
    expect(distinctFaces([face(100, 0.7), face(110, 0.9), face(170, 0.8)])).toEqual([face(110, 0.9), face(170, 0.8)]);
    expect(distinctFaces([])).toEqual([]);
  });

  test("a detector pass keeps followed faces in their carried regions and adds new faces", () => {
    const r = (cx: number, side = 80) => ({ cx, cy: 100, side });
    // The detector's box for the followed face sits 6 px off: the carried region is read, not it.
    expect(regionsToRead([r(106), r(300)], [r(100)])).toEqual([r(100), r(300)]);
    // A followed face the detector missed this time is still read (FaceMesh decides if it is there).
    expect(regionsToRead([], [r(100)])).toEqual([r(100)]);
    // The face grew by half (a zoom): the detector's region replaces the stale one.
    expect(regionsToRead([r(104, 120)], [r(100)])).toEqual([r(104, 120)]);
  });

  test("turns merge consecutive words of one speaker", () => {
    const words = [
      { speaker: "A", start: 0, end: 0.5 }, { speaker: "A", start: 0.6, end: 1 },
      { speaker: "B", start: 1.2, end: 2 }, { speaker: "B", start: 4, end: 5 },
    ];
    expect(turnsFromWords(words)).toEqual([
      { speaker: "A", start: 0, end: 1 }, { speaker: "B", start: 1.2, end: 2 }, { speaker: "B", start: 4, end: 5 },
    ]);
  });
});
