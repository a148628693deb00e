/** Pure parts of rendering: framing, crop planning, face tracks and speakers, trailer planning. */
import { describe, expect, test } from "bun:test";
import { centreCrop, piecewiseExpr, videoFilter } from "../../../../src/pipeline/render/graph.ts";
import { assignSpeakers, buildTracks, distinctFaces, regionsToRead, turnsFromWords, type FaceObs } from "../../../../src/pipeline/render/faces.ts";
import { cropWindowAt, ease, planCropPath, planShots } from "../../../../src/pipeline/render/crop-path.ts";
import { crossfadeGraph, planTrailer, trailerDuration } from "../../../../src/pipeline/render/trailer.ts";
import type { Word } from "../../../../src/pipeline/types.ts";
import { splitSentences } from "../../../../src/pipeline/highlights/sentences.ts";

describe("render graph", () => {
  test("centre crop takes the largest 9:16 window, even-sized", () => {
    expect(centreCrop(1920, 1080, 9 / 16)).toEqual({ w: 606, h: 1080, x: 657, y: 0 });
    expect(centreCrop(700, 700, 9 / 16)).toEqual({ w: 392, h: 700, x: 154, y: 0 });
    expect(centreCrop(720, 1600, 9 / 16)).toEqual({ w: 720, h: 1280, x: 0, y: 160 });
  });

  test("piecewise expression passes through its keyframes", () => {
    const pts = [{ t: 1, v: 100 }, { t: 2, v: 300 }, { t: 4, v: 300 }];
    const expr = piecewiseExpr(pts);
    const evalAt = (t: number) => Function("t", `const lt=(a,b)=>a<b; const iff=(c,a,b)=>c?a:b; return ${expr.replace(/if\(/g, "iff(")};`)(t) as number;
    expect(evalAt(0)).toBeCloseTo(100);
    expect(evalAt(1.5)).toBeCloseTo(200);
    expect(evalAt(3)).toBeCloseTo(300);
    expect(evalAt(9)).toBeCloseTo(300);
  });

  test("formats: exact scale for matching aspect, crop for 9:16, blurred fit otherwise", () => {
    const src = { path: "s.mp4", durationSeconds: 10, hasVideo: true, hasAudio: true, width: 1920, height: 1080 };
    const base = { clipStart: 0, assPath: "/tmp/c.ass", fontsDir: "/fonts", suffix: ",format=yuv420p" };
    expect(videoFilter({ ...base, source: src, format: "x" })).toContain("scale=1920:1080,setsar=1");
    expect(videoFilter({ ...base, source: src, format: "linkedin" })).toContain("crop=606:1080:657:0,scale=1080:1920");
    expect(videoFilter({ ...base, source: { ...src, width: 700, height: 700 }, format: "x" })).toContain("boxblur");
    expect(videoFilter({ ...base, source: src, format: "linkedin", crop: { mode: "fit", width: 606, height: 1080, keyframes: [] } })).toContain("boxblur");
    const tracked = videoFilter({ ...base, clipStart: 10, source: src, format: "linkedin", crop: { mode: "track", width: 606, height: 1080, keyframes: [{ t: 10, x: 5, y: 0 }, { t: 12, x: 900, y: 0 }] } });
    // Keyframes are shifted to clip time.
    expect(tracked).toContain("if(lt(t,0.000),5.0");
    expect(tracked).toContain("if(lt(t,2.000)");
  });
});

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

describe("trailer planning", () => {
  function words(): Word[] {
    const out: Word[] = [];
    let t = 0;
    for (let s = 0; s < 60; s++) {
      for (let i = 0; i < 12; i++) {
        out.push({ word: i === 11 ? `w${s}.` : i === 0 ? `W${s}` : `w${s}`, start: t, end: t + 0.3, speaker: s % 4 < 2 ? "A" : "B" });
        t += 0.35;
      }
      t += 0.4;
    }
    return out;
  }

  test("the trailer's material is the shared sentence splitter's sentences", () => {
    expect(splitSentences(words()).length).toBe(60);
  });

  test("takes whole sentences from the ranked clips, 60-90 s, best clip first", () => {
    const w = words();
    const clips = [{ start: 100, end: 140 }, { start: 20, end: 60 }, { start: 180, end: 230 }];
    const segs = planTrailer(clips, w, { fps: 25 });
    const total = trailerDuration(segs, 0.3);
    expect(total).toBeGreaterThanOrEqual(60);
    expect(total).toBeLessThanOrEqual(90);
    expect(segs[0]!.clip).toBe(0);
    for (const s of segs) {
      const clip = clips[s.clip]!;
      expect(s.start).toBeGreaterThanOrEqual(clip.start);
      expect(s.end).toBeLessThanOrEqual(clip.end + 0.04);
      // Whole frames, so audio and video crossfades line up.
      expect(Math.abs((s.end - s.start) * 25 - Math.round((s.end - s.start) * 25))).toBeLessThan(1e-6);
      // Starts just before a word and ends just after one.
      expect(w.some((x) => Math.abs(x.start - 0.15 - s.start) < 1e-6 || x.start === clip.start)).toBe(true);
    }
  });

  test("refuses when the clips are too short for a trailer", () => {
    expect(() => planTrailer([{ start: 0, end: 20 }], words())).toThrow(/trailer needs 60/);
  });

  test("crossfade offsets accumulate", () => {
    const g = crossfadeGraph([5, 4, 6], 0.3);
    expect(g).toContain("xfade=transition=fade:duration=0.3:offset=4.7000[v1]");
    expect(g).toContain("offset=8.4000[vout]");
    expect(g).toContain("acrossfade=d=0.3");
  });
});
