import { describe, expect, test } from "bun:test";
import { DEFAULT_LOOK } from "../../../../src/pipeline/render/brand.ts";
import { cardFrames, cardGraph, cardRate, cardsOf, cardTextLayout, cardTiming, parseRate, silenceAround } from "../../../../src/pipeline/render/cards.ts";

const frame = { width: 1080, height: 1920 };
const base = { frame, rate: { num: 30000, den: 1001 }, background: "#102030", accent: "#FF8800", fontFile: "/fonts/DejaVuSans-Bold.ttf", suffix: ",format=yuv420p" };

describe("card timing", () => {
  test("a card lasts whole frames of the clip's rate: the nearest count, at least one", () => {
    expect(cardFrames(1.5, { num: 25, den: 1 })).toBe(38);
    expect(cardFrames(2, { num: 30000, den: 1001 })).toBe(60);
    expect(cardFrames(0.5, { num: 1, den: 1 })).toBe(1);
    expect(cardTiming({ intro: { seconds: 2 }, outro: { seconds: 0.5 } }, { num: 30000, den: 1001 })).toEqual({ intro: (60 * 1001) / 30000, outro: (15 * 1001) / 30000 });
    expect(cardTiming({ outro: { seconds: 3 } }, { num: 25, den: 1 })).toEqual({ intro: 0, outro: 3 });
  });

  test("frame rates are read as ffprobe writes them", () => {
    expect(parseRate("30000/1001")).toEqual({ num: 30000, den: 1001 });
    expect(parseRate("25/1")).toEqual({ num: 25, den: 1 });
    expect(parseRate("0/0")).toBeUndefined();
    expect(parseRate(undefined)).toBeUndefined();
  });

  test("a card is drawn at the stream's base rate, or its average rate when the base is a timestamp grid far above it", () => {
    expect(cardRate("30/1", "30/1")).toEqual({ num: 30, den: 1 });
    expect(cardRate("30000/1001", "2997/100")).toEqual({ num: 30000, den: 1001 });
    expect(cardRate("90000/1", "2999/100")).toEqual({ num: 2999, den: 100 });
    expect(cardRate(undefined, "25/1")).toEqual({ num: 25, den: 1 });
    expect(cardRate("0/0", "0/0")).toBeUndefined();
  });

  test("the audio's silence: an exact sample count before, padding after", () => {
    expect(silenceAround({ intro: 1.52, outro: 0.5 }, 48000)).toBe("adelay=delays=72960S:all=1,apad=pad_dur=0.500000");
    expect(silenceAround({ intro: 0, outro: 0.5 }, 48000)).toBe("apad=pad_dur=0.500000");
  });
});

describe("cardsOf", () => {
  test("a brand without cards puts none around a render", () => {
    expect(cardsOf(DEFAULT_LOOK)).toBeUndefined();
    expect(cardsOf(undefined)).toBeUndefined();
    expect(cardsOf({ ...DEFAULT_LOOK, outro_card: { seconds: 1, text: "Bye" } })).toEqual({ outro: { seconds: 1, text: "Bye" } });
  });
});

describe("card graph", () => {
  test("text alone: a colour source at the clip's size and rate, the lines centred in the frame in the accent colour", () => {
    const g = cardGraph({ ...base, lineFiles: ["/w/a.txt", "/w/b.txt"], image: false });
    expect(g).toStartWith("color=c=0x102030:s=1080x1920:r=30000/1001,");
    expect(g).not.toContain("[0:v]");
    expect(g).not.toContain("drawbox");
    const { size } = cardTextLayout(frame);
    const lineH = Math.round(size * 1.3);
    const top = Math.round((1920 - 2 * lineH) / 2);
    expect(g).toContain(`textfile='/w/a.txt':fontsize=${size}:fontcolor=0xFF8800:x=(w-text_w)/2:y=${top}`);
    expect(g).toContain(`textfile='/w/b.txt':fontsize=${size}:fontcolor=0xFF8800:x=(w-text_w)/2:y=${top + lineH}`);
    expect(g).toContain("expansion=none");
    expect(g).toEndWith(",setsar=1,format=yuv420p[vout]");
  });

  test("a picture fills the frame letterboxed and centred; text then sits on a band of the background near the bottom", () => {
    const g = cardGraph({ ...base, lineFiles: ["/w/a.txt"], image: true });
    expect(g).toContain("[0:v]scale=1080:1920:force_original_aspect_ratio=decrease");
    expect(g).toContain("[cardbg][cardimg]overlay=x=(W-w)/2:y=(H-h)/2");
    expect(g).toContain("drawbox=x=0:");
    expect(g).toContain("color=0x102030@0.92:t=fill");
    const y = Number(/textfile='\/w\/a.txt'.*:y=(\d+)/.exec(g)![1]);
    expect(y).toBeGreaterThan(1920 * 0.7);
  });

  test("neither text nor picture: a plain card of the background colour", () => {
    expect(cardGraph({ ...base, lineFiles: [], image: false })).toBe("color=c=0x102030:s=1080x1920:r=30000/1001,setsar=1,format=yuv420p[vout]");
  });

  test("quotes in paths cannot break out of the filter's quoting", () => {
    const g = cardGraph({ ...base, fontFile: "/f/it's.ttf", lineFiles: ["/w/o'k.txt"], image: false });
    expect(g).toContain("fontfile='/f/its.ttf'");
    expect(g).toContain("textfile='/w/ok.txt'");
  });
});
