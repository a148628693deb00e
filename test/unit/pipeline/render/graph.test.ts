/** The render graph: framing, crop and caption filters (pure). */
import { describe, expect, test } from "bun:test";
import { centreCrop, piecewiseExpr, videoFilter } from "../../../../src/pipeline/render/graph.ts";

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
