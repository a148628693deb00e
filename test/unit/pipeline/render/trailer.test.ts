/** Trailer planning: passages, duration and the crossfade graph (pure). */
import { describe, expect, test } from "bun:test";
import { crossfadeGraph, planTrailer, trailerDuration } from "../../../../src/pipeline/render/trailer.ts";
import type { Word } from "../../../../src/pipeline/types.ts";
import { splitSentences } from "../../../../src/pipeline/highlights/sentences.ts";

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
