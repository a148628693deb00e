/**
 * The committed sandbox fixtures (fixtures/sandbox/) are what sandbox jobs return: check that the
 * manifest has the API's shape and that every MP4 really is what the manifest says it is.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ROOT_DIR } from "../../../src/config.ts";
import { ffprobeJson } from "../../../src/media/ffmpeg.ts";
import { meterEbur128 } from "../../../src/media/ffmpeg-loudness.ts";
import { probeImage } from "../../../src/media/image.ts";

const DIR = join(ROOT_DIR, "fixtures/sandbox");

const Manifest = z.object({
  transcript: z.array(z.object({ speaker: z.string().min(1), start: z.number().min(0), end: z.number(), text: z.string().min(1) })).min(10),
  clips: z.array(z.object({
    category: z.string().min(1),
    hook: z.string().min(1),
    pull_quote: z.string().min(1),
    start_time: z.number().min(0),
    end_time: z.number(),
    transcript_text: z.string().min(1),
    title: z.string().min(1).max(70),
    description: z.string().regex(/[.?!]$/),
    hashtags: z.array(z.string().regex(/^#[\p{L}\p{N}]+$/u)).min(3).max(5),
    files: z.object({ linkedin: z.string().regex(/\.mp4$/), x: z.string().regex(/\.mp4$/) }),
    thumbnails: z.object({ linkedin: z.string().regex(/\.jpg$/), x: z.string().regex(/\.jpg$/) }),
  })).length(3),
  trailer: z.object({ file: z.string().regex(/\.mp4$/), duration_seconds: z.number() }),
  show_notes: z.string().min(200),
});

const manifest = Manifest.parse(JSON.parse(readFileSync(join(DIR, "manifest.json"), "utf8")));

/** Top-level MP4 boxes in order: +faststart puts moov before mdat. */
function topLevelBoxes(path: string): string[] {
  const buf = readFileSync(path);
  const boxes: string[] = [];
  let off = 0;
  while (off + 8 <= buf.length) {
    let size = buf.readUInt32BE(off);
    const type = buf.toString("ascii", off + 4, off + 8);
    if (size === 1) size = Number(buf.readBigUInt64BE(off + 8));
    if (size === 0) size = buf.length - off;
    boxes.push(type);
    if (size < 8) break;
    off += size;
  }
  return boxes;
}

async function checkMp4(file: string, width: number, height: number, expectedSeconds: number) {
  const path = join(DIR, file);
  const p = await ffprobeJson(path);
  const v = p.streams.filter((s) => s.codec_type === "video");
  const a = p.streams.filter((s) => s.codec_type === "audio");
  expect(v).toHaveLength(1);
  expect(a).toHaveLength(1);
  expect(v[0]!.codec_name).toBe("h264");
  expect([v[0]!.width, v[0]!.height]).toEqual([width, height]);
  expect(a[0]!.codec_name).toBe("aac");
  expect(a[0]!.sample_rate).toBe("48000");
  expect(Math.abs(Number(p.format.duration) - expectedSeconds)).toBeLessThanOrEqual(0.1);
  expect(Math.abs(Number(v[0]!.duration) - expectedSeconds)).toBeLessThanOrEqual(0.15);
  const boxes = topLevelBoxes(path);
  expect(boxes.indexOf("moov")).toBeGreaterThanOrEqual(0);
  expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
}

describe("sandbox fixtures", () => {
  test("manifest: transcript ordered, two labelled speakers, clips ranked inside it", () => {
    const t = manifest.transcript;
    for (let i = 0; i < t.length; i++) {
      expect(t[i]!.end).toBeGreaterThan(t[i]!.start);
      if (i > 0) expect(t[i]!.start).toBeGreaterThanOrEqual(t[i - 1]!.end);
    }
    expect(new Set(t.map((s) => s.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
    const fullText = t.map((s) => s.text).join(" ");
    for (const c of manifest.clips) {
      const d = c.end_time - c.start_time;
      expect(d).toBeGreaterThanOrEqual(20);
      expect(d).toBeLessThanOrEqual(60);
      expect(c.end_time).toBeLessThanOrEqual(t[t.length - 1]!.end + 1);
      expect(fullText).toContain(c.transcript_text);
      expect(c.transcript_text.startsWith(c.hook)).toBe(true);
      expect(fullText.toLowerCase()).toContain(c.pull_quote.toLowerCase());
    }
  });

  test("show notes: title, summary, takeaways, timestamped chapters, quotes, speakers", () => {
    const md = manifest.show_notes;
    expect(md).toMatch(/^# \S/);
    for (const h of ["## Summary", "## Key takeaways", "## Chapters", "## Notable quotes", "## Speakers"]) expect(md).toContain(h);
    expect(md.match(/^- \d\d:\d\d /gm)?.length ?? 0).toBeGreaterThanOrEqual(4);
    expect(md).toMatch(/^> "/m);
  });

  for (const [i, c] of manifest.clips.entries()) {
    test(`clip ${i + 1}: 9:16 and 16:9 MP4s match the manifest`, async () => {
      await checkMp4(c.files.linkedin, 1080, 1920, c.end_time - c.start_time);
      await checkMp4(c.files.x, 1920, 1080, c.end_time - c.start_time);
    });
  }

  test("covers: a JPEG per clip and format, at the format's frame size, cut from the clip's own card", async () => {
    for (const c of manifest.clips) {
      for (const [format, [w, h]] of [["linkedin", [1080, 1920]], ["x", [1920, 1080]]] as const) {
        const path = join(DIR, c.thumbnails[format]);
        expect(await probeImage(path, "jpeg")).toEqual({ kind: "jpeg", width: w, height: h });
        // The audiogram card's background (#1B2A41, the default brand) in its corner.
        const rgb = Bun.spawnSync(["ffmpeg", "-v", "error", "-protocol_whitelist", "file", "-f", "jpeg_pipe", "-i", path, "-vf", "crop=8:8:4:4", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdout;
        expect([rgb[0], rgb[1], rgb[2]].every((v, i) => Math.abs(v! - [0x1b, 0x2a, 0x41][i]!) <= 8)).toBe(true);
      }
    }
  });

  test("trailer: vertical, 60-90 s, duration as in the manifest", async () => {
    expect(manifest.trailer.duration_seconds).toBeGreaterThanOrEqual(60);
    expect(manifest.trailer.duration_seconds).toBeLessThanOrEqual(90);
    await checkMp4(manifest.trailer.file, 1080, 1920, manifest.trailer.duration_seconds);
  });

  test("clips and trailer are loudness-normalised (-14 LUFS, true peak <= -1 dBTP)", async () => {
    for (const file of [...manifest.clips.map((c) => c.files.linkedin), manifest.trailer.file]) {
      const m = await meterEbur128(join(DIR, file));
      expect(Math.abs(m.integrated - -14)).toBeLessThanOrEqual(1);
      expect(m.truePeak).toBeLessThanOrEqual(-1);
    }
  });

  test("all fixture files together stay small enough to commit and embed (< 4.2 MB)", () => {
    const files = ["manifest.json", manifest.trailer.file, ...manifest.clips.flatMap((c) => [c.files.linkedin, c.files.x, c.thumbnails.linkedin, c.thumbnails.x])];
    const bytes = files.reduce((n, f) => n + statSync(join(DIR, f)).size, 0);
    expect(bytes).toBeLessThan(4.2 * 1024 * 1024);
  });
});
