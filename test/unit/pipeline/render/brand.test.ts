import { describe, expect, test } from "bun:test";
import { logoBox, type BrandLook } from "../../../../src/pipeline/render/brand.ts";
import { buildAss } from "../../../../src/pipeline/render/captions.ts";
import { FORMATS, videoFilter } from "../../../../src/pipeline/render/graph.ts";

const look = (position: BrandLook["logo_position"], scale = 0.15): BrandLook => ({
  logo: { path: "/tmp/logo.png", width: 400, height: 100 }, logo_position: position, logo_scale: scale,
  accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Serif",
});

describe("logoBox", () => {
  test("each corner, a margin of 4% of the shorter side, width a share of the frame's, height by the logo's aspect", () => {
    const f = FORMATS.x;
    const m = Math.round(1080 * 0.04);
    expect(logoBox(f, look("top-left"), { width: 400, height: 100 })).toEqual({ x: m, y: m, w: 288, h: 72 });
    expect(logoBox(f, look("top-right"), { width: 400, height: 100 })).toEqual({ x: 1920 - 288 - m, y: m, w: 288, h: 72 });
    expect(logoBox(f, look("bottom-left"), { width: 400, height: 100 })).toEqual({ x: m, y: 1080 - 72 - m, w: 288, h: 72 });
    expect(logoBox(FORMATS.linkedin, look("bottom-right"), { width: 400, height: 100 })).toEqual({ x: 1080 - 162 - m, y: 1920 - 40 - m, w: 162, h: 40 });
  });

  test("a tall logo is bounded to a quarter of the frame's height, keeping its aspect", () => {
    const box = logoBox(FORMATS.x, look("top-left", 0.4), { width: 100, height: 1000 });
    expect(box.h).toBe(270);
    expect(box.w).toBe(28);
  });
});

describe("filter graphs", () => {
  const src = { path: "/x.mp4", durationSeconds: 10, hasVideo: true, hasAudio: true, width: 1920, height: 1080 };
  const base = { source: src, clipStart: 0, assPath: "/tmp/c.ass", fontsDir: "/fonts", suffix: ",format=yuv420p" };
  test("the logo is laid over the framed picture before the captions are burned in, from the input named", () => {
    const g = videoFilter({ ...base, format: "x", logo: { look: look("top-left"), input: "1:v" } });
    expect(g).toBe(
      `[0:v:0]scale=1920:1080,setsar=1[framed];[1:v]scale=288:72:flags=lanczos,format=yuva420p[brandlogo];[framed][brandlogo]overlay=x=43:y=43:format=yuv420[branded];` +
        `[branded]ass=filename='/tmp/c.ass':fontsdir='/fonts',format=yuv420p[vout]`,
    );
  });
  test("without a logo the graph is what it always was", () => {
    const { logo, ...noLogo } = look("top-left");
    expect(videoFilter({ ...base, format: "x", logo: { look: noLogo, input: "1:v" } })).toBe(videoFilter({ ...base, format: "x" }));
  });
  test("the caption font is the ASS style's font", () => {
    const ass = buildAss([{ word: "hello", start: 0, end: 0.5, speaker: "S" }], { frame: FORMATS.x, font: "DejaVu Serif" });
    expect(ass).toMatch(/^Style: Caption,DejaVu Serif,/m);
    expect(buildAss([], { frame: FORMATS.x })).toMatch(/^Style: Caption,DejaVu Sans,/m);
  });
});

