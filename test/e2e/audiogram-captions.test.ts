/**
 * Audiograms draw their head (title, speaker name) and caption band only on the frames where they
 * change and hold them in between (audiogram.ts). This checks, with the real ffmpeg, frame by frame,
 * that the result is pixel-for-pixel what drawing them on every frame gives, at rates whose frame
 * times fall between the captions' centisecond boundaries and the names' spans in different ways.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ffmpeg, fontFile, mediaInput } from "../../src/media/ffmpeg.ts";
import { audiogramFilter, selectFrames } from "../../src/pipeline/render/audiogram.ts";
import { assEventSpans, buildAss, captionChangeFrames } from "../../src/pipeline/render/captions.ts";
import { assFilter, FORMATS } from "../../src/pipeline/render/graph.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { readWav } from "../../src/media/wav.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { SHARED_PRESENT, describeShared } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-audiogram-captions-"));
/** The waveform's audio: the recording the graphs are checked against. */
const audio = SHARED_PRESENT ? readWav(join(SHARED_MEDIA, "jfk.wav")) : undefined!;
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Words at uneven times (0.37 s apart, 0.29 s long) so boundaries land anywhere within frames. */
function unevenWords(n: number, from: number): Word[] {
  const text = "so my fellow americans ask not what your country can do for you ask what you can do".split(" ");
  return Array.from({ length: n }, (_, i) => ({ word: text[i % text.length]!, start: from + i * 0.37, end: from + i * 0.37 + 0.29, speaker: "Speaker 1" }));
}

/** One md5 per decoded frame of a filter graph's [vout] (optionally only rows from `fromRow` down). */
async function frameHashes(graph: string, seconds: number, fromRow = 0): Promise<string[]> {
  const crop = fromRow ? `;[vout]crop=iw:ih-${fromRow}:0:${fromRow}[out]` : ";[vout]null[out]";
  const { stdout } = await ffmpeg([
    "-v", "error", "-t", seconds.toFixed(3), ...mediaInput(join(SHARED_MEDIA, "jfk.wav")),
    "-filter_complex", `${graph}${crop}`, "-map", "[out]", "-t", seconds.toFixed(3), "-f", "framemd5", "-",
  ]);
  return stdout.split("\n").filter((l) => l && !l.startsWith("#")).map((l) => l.split(",").pop()!.trim());
}

describeShared("audiogram rows drawn only where they change", () => {
  for (const [format, fps] of [["linkedin", 25], ["x", 30]] as const) {
    test(`${format} at ${fps} fps: every frame equals drawing every row on every frame`, async () => {
      const frame = FORMATS[format];
      const seconds = 4;
      const ass = buildAss(unevenWords(9, 0.13), { frame, style: "bold", duration: seconds });
      const assPath = join(work, `${format}.ass`);
      writeFileSync(assPath, ass);
      const boldFont = fontFile("DejaVuSans-Bold.ttf");
      const spans = assEventSpans(ass);
      expect(spans.length).toBeGreaterThan(5);
      // Names change at times between frames and exactly on one (1.2 s), with a gap and a reprise.
      const card = {
        title: "Inaugural address",
        speakers: [
          { start: 0.333, end: 1.2, name: "John F. Kennedy" },
          { start: 1.2, end: 2.071, name: "Robert Frost" },
          { start: 2.5, end: 3.377, name: "John F. Kennedy" },
        ],
      };
      const options = { frame, fps, duration: seconds, audio, assPath, captionSpans: spans, fontsDir: dirname(boldFont), boldFont, suffix: ",format=yuv420p", card };
      const [held, every] = await Promise.all([
        frameHashes(audiogramFilter(options), seconds),
        frameHashes(audiogramFilter({ ...options, everyFrame: true }), seconds),
      ]);
      expect(held.length).toBe(seconds * fps);
      expect(every.length).toBe(seconds * fps);
      // The picture does change (otherwise equality proves nothing), and libass drew far fewer frames.
      expect(new Set(every).size).toBeGreaterThan(seconds * fps / 2);
      expect(captionChangeFrames(spans, fps, seconds * fps).length).toBeLessThan(seconds * fps / 2);
      const differing = held.map((h, i) => (h === every[i] ? -1 : i)).filter((i) => i >= 0);
      expect(differing).toEqual([]);
    }, 60_000);
  }

  test("the held caption band equals libass drawing into every frame of card colour", async () => {
    const frame = FORMATS.linkedin;
    const fps = 25;
    const seconds = 3;
    const ass = buildAss(unevenWords(7, 0.21), { frame, style: "boxed", duration: seconds });
    const assPath = join(work, "band.ass");
    writeFileSync(assPath, ass);
    const boldFont = fontFile("DejaVuSans-Bold.ttf");
    const graph = audiogramFilter({ frame, fps, duration: seconds, assPath, captionSpans: assEventSpans(ass), audio, fontsDir: dirname(boldFont), boldFont, suffix: ",format=yuv420p" });
    const bandY = Number(graph.match(/crop=\d+:\d+:0:(\d+),fps=/)![1]);
    const reference = `color=c=0x1b2a41:s=${frame.width}x${frame.height}:r=${fps}:d=${seconds},format=yuv420p,${assFilter(assPath, dirname(boldFont))}[vout]`;
    const [held, every] = await Promise.all([frameHashes(graph, seconds, bandY), frameHashes(reference, seconds, bandY)]);
    expect(new Set(every).size).toBeGreaterThan(3);
    expect(held).toEqual(every);
  }, 60_000);
});

describe("caption change frames", () => {
  test("follow libass's frame times: start <= now < end in whole ms", () => {
    // At 25 fps frames fall at 0, 40, 80 … ms; an event 0.05-0.12 s is on frames 2 (80 ms) only.
    expect(captionChangeFrames([[50, 120]], 25, 6)).toEqual([0, 2, 3, 5]);
    // An event ending exactly on a frame time is off on that frame.
    expect(captionChangeFrames([[40, 80]], 25, 4)).toEqual([0, 1, 2, 3]);
    expect(captionChangeFrames([], 25, 10)).toEqual([0, 9]);
  });

  test("ASS event spans are read as libass reads them", () => {
    const ass = "[Events]\nDialogue: 0,0:00:01.23,0:01:02.05,Caption,,0,0,0,,A, B\nComment: 0,0:00:00.00,0:00:09.00,Caption,,0,0,0,,x\n";
    expect(assEventSpans(ass)).toEqual([[1230, 62050]]);
  });
});

test("a long list of change frames stays one expression ffmpeg parses, or none at all", async () => {
  const frames = Array.from({ length: 4000 }, (_, i) => i * 2);
  const select = selectFrames(frames)!;
  expect(select).toContain("(");
  const { stdout } = await ffmpeg(["-v", "error", "-f", "lavfi", "-i", `color=s=16x16:r=100:d=100,${select}`, "-f", "framemd5", "-"]);
  expect(stdout.split("\n").filter((l) => l && !l.startsWith("#")).length).toBe(4000);
  // Past what one ffmpeg option holds, there is no select: every frame is drawn.
  expect(selectFrames(Array.from({ length: 8000 }, (_, i) => i))).toBeUndefined();
});
