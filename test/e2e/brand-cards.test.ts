/**
 * Intro and outro cards on real recordings, measured from the delivered files: a clip with cards is
 * longer by exactly the cards' seconds (video and audio), its first frames are the intro card (the
 * kit's background colour, the card's picture letterboxed in the middle) and its last the outro card,
 * the intro is silent and the speech follows it, and an audiogram's cover is taken from its own
 * card past the intro, not from the intro card; a trailer has them around the whole reel.
 */
import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpeg, ffprobeJson, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import type { BrandLook } from "../../src/pipeline/render/brand.ts";
import { cardsOf, type CardTiming } from "../../src/pipeline/render/cards.ts";
import { renderClipCovers } from "../../src/pipeline/render/cover.ts";
import { FORMATS, renderClipFormats, type ClipFormat } from "../../src/pipeline/render/render.ts";
import { renderTrailer } from "../../src/pipeline/render/trailer.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { makeImage } from "../helpers/images.ts";
import { SHARED_MEDIA, testShared } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-cards-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const BG = [0x10, 0x20, 0x30];
const MAGENTA = [255, 0, 255];
const near = (a: number[], b: number[], tol: number) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

async function frameAt(path: string, t: number, w: number, h: number, input = mediaInput(path)): Promise<(x: number, y: number) => number[]> {
  const out = join(work, `frame-${Math.random().toString(36).slice(2)}.rgb`);
  await ffmpeg(["-y", "-ss", t.toFixed(3), ...input, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", out]);
  const rgb = new Uint8Array(await Bun.file(out).arrayBuffer());
  expect(rgb.length).toBe(w * h * 3);
  return (x, y) => [...rgb.subarray((y * w + x) * 3, (y * w + x) * 3 + 3)];
}

/** Peak sample (0..1) of the file's audio in [from, to) seconds, from a mono 16-bit decode. */
async function peak(path: string, from: number, to: number): Promise<number> {
  const out = join(work, `audio-${Math.random().toString(36).slice(2)}.raw`);
  await ffmpeg(["-y", ...mediaInput(path), "-ac", "1", "-ar", "16000", "-f", "s16le", out]);
  const pcm = new Int16Array(await Bun.file(out).arrayBuffer());
  let max = 0;
  for (let i = Math.floor(from * 16000); i < Math.min(pcm.length, Math.floor(to * 16000)); i++) max = Math.max(max, Math.abs(pcm[i]!));
  return max / 32768;
}

async function durations(path: string): Promise<{ video: number; audio: number }> {
  const p = await ffprobeJson(path);
  return { video: Number(p.streams.find((s) => s.codec_type === "video")!.duration), audio: Number(p.streams.find((s) => s.codec_type === "audio")!.duration) };
}

testShared("a clip with cards is longer by the cards' seconds and opens on the intro card and ends on the outro, both formats", async () => {
  const picture = join(work, "card.png");
  writeFileSync(picture, makeImage({ width: 400, height: 200, format: "png", colour: "0xFF00FF" }));
  const look: BrandLook = {
    logo_position: "top-right", logo_scale: 0.15, accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Sans",
    intro_card: { seconds: 1, text: "Rooftop Hours", image: { path: picture, width: 400, height: 200 } },
    outro_card: { seconds: 0.5 },
  };
  const source = await probeMedia(join(SHARED_MEDIA, "talking_head_a.mp4"));
  const words: Word[] = "we keep bees on the roof above the bus stop".split(" ").map((word, i) => ({ word, start: 0.5 + i * 0.45, end: 0.85 + i * 0.45, speaker: "Speaker 1" }));
  const formats: ClipFormat[] = ["linkedin", "x"];
  const timings: CardTiming[] = [];
  const outs = await renderClipFormats(
    { source, words, start: 0.5, end: 4.5, style: "bold", look, cards: cardsOf(look), crop: "centre" },
    formats.map((format) => ({ format, outPath: join(work, `carded-${format}.mp4`) })),
    { onCards: (t) => timings.push(t) },
  );
  // Whole frames of the recording's rate: 30 fps takes 1 s and 0.5 s exactly.
  expect(timings).toEqual([{ intro: 1, outro: 0.5 }, { intro: 1, outro: 0.5 }]);
  for (const [i, format] of formats.entries()) {
    const { width: W, height: H } = FORMATS[format];
    const d = await durations(outs[i]!);
    expect(d.video).toBeCloseTo(5.5, 1);
    expect(Math.abs(d.audio - 5.5)).toBeLessThan(0.05);
    // The intro: the background colour at the edges, the picture letterboxed in the middle.
    const intro = await frameAt(outs[i]!, 0.3, W, H);
    for (const [x, y] of [[4, 4], [W - 5, 4]] as const) expect(near(intro(x, y), BG, 10)).toBe(true);
    expect(near(intro(W / 2, H / 2), MAGENTA, 40)).toBe(true);
    // The clip itself: the recording, not a card.
    const middle = await frameAt(outs[i]!, 3, W, H);
    expect(near(middle(W / 2, H / 2), BG, 30) || near(middle(W / 2, H / 2), MAGENTA, 60)).toBe(false);
    // The outro: a plain card, the background everywhere.
    const outro = await frameAt(outs[i]!, 5.3, W, H);
    for (const [x, y] of [[4, 4], [W / 2, H / 2], [W - 5, H - 5]] as const) expect(near(outro(x, y), BG, 10)).toBe(true);
    // Silence under the cards, the recording's speech between them.
    expect(await peak(outs[i]!, 0, 0.95)).toBeLessThan(0.001);
    expect(await peak(outs[i]!, 1.05, 4.95)).toBeGreaterThan(0.05);
    expect(await peak(outs[i]!, 5.05, 5.45)).toBeLessThan(0.001);
  }
  // The same clip without cards lasts the clip alone.
  const [plain] = await renderClipFormats({ source, words, start: 0.5, end: 4.5, style: "bold", look, crop: "centre" }, [{ format: "x", outPath: join(work, "plain-x.mp4") }]);
  expect((await durations(plain!)).video).toBeCloseTo(4, 1);
}, 400_000);

testShared("an audiogram's cover is its own card past the intro, not the intro card", async () => {
  const picture = join(work, "card-ag.png");
  writeFileSync(picture, makeImage({ width: 400, height: 200, format: "png", colour: "0xFF00FF" }));
  const look: BrandLook = {
    logo_position: "top-right", logo_scale: 0.15, accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Sans",
    intro_card: { seconds: 3, image: { path: picture, width: 400, height: 200 } },
  };
  const source = await probeMedia(join(SHARED_MEDIA, "jfk.wav"));
  const words: Word[] = "and so my fellow Americans ask not".split(" ").map((word, i) => ({ word, start: 0.3 + i * 0.5, end: 0.7 + i * 0.5, speaker: "Speaker 1" }));
  let timing: CardTiming | undefined;
  const [out] = await renderClipFormats({ source, words, start: 0, end: 4, style: "bold", look, cards: cardsOf(look), card: { title: "Ask Not" } }, [{ format: "x", outPath: join(work, "ag-x.mp4") }], { onCards: (t) => (timing = t) });
  expect(timing).toEqual({ intro: 3, outro: 0 });
  expect((await durations(out!)).video).toBeCloseTo(7, 1);
  // Two seconds into the file is still the intro card (the clip's middle, uncorrected, would land there).
  expect(near((await frameAt(out!, 2, 1920, 1080))(960, 540), MAGENTA, 40)).toBe(true);
  const covers = await renderClipCovers({ source, words, start: 0, end: 4, title: "Ask Not", look, rendered: { x: out! }, introSeconds: timing!.intro, outPath: (f) => join(work, `ag-cover-${f}.jpg`) });
  const cover = await frameAt(covers.x!, 0, 1920, 1080, ["-protocol_whitelist", "file", "-f", "jpeg_pipe", "-i", covers.x!]);
  expect(near(cover(960, 540), MAGENTA, 60)).toBe(false);
}, 300_000);

testShared("a trailer gets the cards around the whole reel, not around each passage", async () => {
  const look: BrandLook = {
    logo_position: "top-right", logo_scale: 0.15, accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Sans",
    intro_card: { seconds: 1, text: "Trailer" }, outro_card: { seconds: 1 },
  };
  const source = await probeMedia(join(SHARED_MEDIA, "talking_head_a.mp4"));
  const words: Word[] = "we keep bees on the roof above the bus stop".split(" ").map((word, i) => ({ word, start: 0.5 + i * 0.45, end: 0.85 + i * 0.45, speaker: "Speaker 1" }));
  const segments = [{ start: 0.5, end: 3, clip: 0 }, { start: 3, end: 5.5, clip: 0 }];
  const t = await renderTrailer({ source, words, segments, look, cards: cardsOf(look), outPath: join(work, "trailer.mp4") });
  // Two 2.5-s passages with one 0.3-s crossfade, and a 1-s card at each end.
  expect(t.durationSeconds).toBeCloseTo(1 + 2.5 + 2.5 - 0.3 + 1, 1);
  const at = async (s: number) => (await frameAt(t.path, s, 1080, 1920))(540, 960);
  expect(near(await at(0.5), BG, 10)).toBe(true);
  expect(near(await at(t.durationSeconds - 0.5), BG, 10)).toBe(true);
  // The passages' joint (about 3.2 s in) is the recording, not a card.
  for (const s of [2, 3.2, 5]) expect(near(await at(s), BG, 30)).toBe(false);
}, 400_000);
