/** The trailer's cut plan (pure): which frames of each segment are shown alone and which are crossfaded. */
import { describe, expect, test } from "bun:test";
import { clockOf, frameRateOf, joinedFrames, planCuts, segmentCuts } from "../../../../src/pipeline/render/trailer-cuts.ts";
import { planJoin } from "../../../../src/pipeline/render/trailer-join.ts";
import { videoEncoderArgs } from "../../../../src/media/ffmpeg-engine.ts";

describe("trailer cuts", () => {
  test("frame rates become fractions and the time base ffmpeg's MP4 muxer would pick", () => {
    expect(frameRateOf(25)).toEqual({ num: 25, den: 1 });
    expect(frameRateOf(29.97002997)).toEqual({ num: 30000, den: 1001 });
    expect(frameRateOf(23.976)).toEqual({ num: 24000, den: 1001 });
    expect(frameRateOf(12.5)).toEqual({ num: 12500, den: 1000 });
    expect(clockOf({ num: 25, den: 1 })).toEqual({ timescale: 12800, frameTicks: 512 });
    expect(clockOf({ num: 30000, den: 1001 })).toEqual({ timescale: 30000, frameTicks: 1001 });
    expect(() => frameRateOf(0)).toThrow();
  });

  test("each segment's head, body and tail cover its frames once, in order, and match the join plan", () => {
    // Lengths whose crossfade offsets fall both on frames and between them.
    const durations = [2.0, 3.24, 2.52, 4.0, 2.6];
    const rate = { num: 25, den: 1 };
    const plan = planCuts(durations, rate, 0.3);
    expect(plan.frames).toEqual([50, 81, 63, 100, 65]);
    // The same pieces as the join of rendered segments of those lengths.
    expect(plan.pieces).toEqual(planJoin(plan.frames.map((frames, i) => ({ frames, duration: durations[i]! })), 0.3, clockOf(rate)));
    for (const [i, c] of plan.cuts.entries()) {
      const ranges = [c.head, c.body, c.tail].filter((r) => r !== undefined);
      expect(ranges[0]![0]).toBe(0);
      expect(ranges.at(-1)![1]).toBe(plan.frames[i]!);
      for (let k = 1; k < ranges.length; k++) expect(ranges[k]![0]).toBe(ranges[k - 1]![1]);
      expect(c.head === undefined).toBe(i === 0);
      expect(c.tail === undefined).toBe(i === durations.length - 1);
    }
    // A 0.3 s crossfade at 25 fps blends 7 or 8 frames; the tail also carries the joint's lead frame.
    for (const [i, c] of plan.cuts.entries()) {
      if (c.head) expect([7, 8]).toContain(c.head[1] - c.head[0]);
      if (c.tail) expect(c.tail[1] - c.tail[0]).toBe(plan.cuts[i + 1]!.head![1] + 1);
    }
    // The trailer lasts what its sound does, to the frame: the segments less the crossfades.
    const shown = joinedFrames(plan);
    const seconds = durations.reduce((a, b) => a + b, 0) - 0.3 * (durations.length - 1);
    expect(Math.abs(shown - seconds * 25)).toBeLessThanOrEqual(1);
  });

  test("a single segment is one body, whole", () => {
    const plan = planCuts([3.2], { num: 25, den: 1 }, 0.3);
    expect(plan.cuts).toEqual([{ body: [0, 80] }]);
  });

  test("bodies take the delivery encoder, edges the one that keeps them for the joints", () => {
    const plan = planCuts([2, 2, 2], { num: 25, den: 1 }, 0.3);
    const enc = videoEncoderArgs("libx264");
    const edge = { inputArgs: [], filterSuffix: ",format=yuv420p", args: ["-qp", "0"] };
    const { cuts, files } = segmentCuts(plan, 1, enc, edge);
    expect(cuts.map((c) => [c.name, c.enc === enc])).toEqual([["seg1-head", false], ["seg1-body", true], ["seg1-tail", false]]);
    expect(files(["h", "b", "t"])).toEqual({ head: "h", body: "b", tail: "t" });
  });

  test("a segment too short for its crossfades is refused", () => {
    expect(() => planCuts([2, 0.2, 2], { num: 25, den: 1 }, 0.3)).toThrow(/too short/);
  });
});
