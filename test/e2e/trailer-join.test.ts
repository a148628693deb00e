/**
 * The trailer's join: the per-joint pieces give exactly the frames of the one-graph xfade chain
 * (the look), and joining twice as many segments does not take more memory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpeg, ffprobeJson, mediaInput } from "../../src/media/ffmpeg.ts";
import { detectEngine, videoEncoderArgs } from "../../src/media/ffmpeg-engine.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { joinVideoCrossfaded, pieceGraph, planJoin, probeSegments, videoCrossfadeChain } from "../../src/pipeline/render/trailer-join.ts";
import { renderTrailer, segmentEncoder, trailerDuration } from "../../src/pipeline/render/trailer.ts";
import { DEFAULT_RENDER_QUALITY } from "../../src/pipeline/render/render.ts";
import { CLIP_LOUDNESS, meterEbur128 } from "../../src/media/ffmpeg-loudness.ts";
import { talkingHeadsPair } from "../helpers/compositions.ts";
import { peakChildRss } from "../helpers/process-memory.ts";
import { testShared } from "../helpers/shared.ts";

let dir: string;
const XF = 0.3;

/** A segment like the clip renderer's: H.264 at 25 fps with AAC audio, moving content, `seconds` long. */
async function segment(name: string, seconds: number, size = "180x320"): Promise<string> {
  const out = join(dir, name);
  await ffmpeg([
    "-y", "-f", "lavfi", "-i", `testsrc2=s=${size}:r=25:d=${seconds}`, "-f", "lavfi", "-i", `sine=f=440:d=${seconds}:sample_rate=48000`,
    "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-shortest", out,
  ]);
  return out;
}

/** MD5 of every decoded frame a graph outputs at [v]. */
async function frameHashes(inputs: string[], graph: string): Promise<string[]> {
  const r = await ffmpeg(["-v", "error", ...inputs.flatMap((p) => mediaInput(p)), "-filter_complex", graph, "-map", "[v]", "-f", "framemd5", "-"]);
  return r.stdout.split("\n").filter((l) => l && !l.startsWith("#")).map((l) => l.split(",").pop()!.trim());
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "clipyard-trailer-join-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("trailer join", () => {
  test("the pieces hold exactly the frames of the single xfade chain", async () => {
    // Lengths whose crossfade offsets fall both on frames and between them.
    const parts = await Promise.all([2.0, 3.24, 2.52, 4.0, 2.6].map((s, i) => segment(`seg${i}.mp4`, s)));
    const { segs, clock } = await probeSegments(parts);
    // As the renderer encodes: to the encoder's pixel format after the crossfades.
    const { filterSuffix } = videoEncoderArgs("libx264");
    const chain = videoCrossfadeChain(segs.map((s) => s.duration), XF, "[vj]");
    const expected = await frameHashes(parts, `${chain};[vj]null${filterSuffix}[v]`);
    const pieces = planJoin(segs, XF, clock);
    expect(pieces.filter((p) => p.kind === "joint")).toHaveLength(parts.length - 1);
    const got: string[] = [];
    for (const p of pieces) {
      const { inputs, graph } = pieceGraph(p, XF, clock, filterSuffix);
      got.push(...(await frameHashes(inputs.map((i) => parts[i]!), graph)));
    }
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
  }, 120000);

  testShared("renderTrailer: picture and sound of the joined trailer last as the plan says", async () => {
    const source = await probeMedia(await talkingHeadsPair(join(dir, "pair.mp4")));
    const segments = [{ start: 0.5, end: 2.5, clip: 0 }, { start: 4, end: 6.4, clip: 0 }, { start: 6.8, end: 9.2, clip: 1 }];
    const words = [0.6, 4.2, 7].map((t) => ({ word: "hello", start: t, end: t + 0.4, speaker: "Speaker 1" }));
    const out = join(dir, "trailer.mp4");
    const t = await renderTrailer({ source, words, segments, outPath: out, quality: { preset: "ultrafast" } });
    const probe = await ffprobeJson(out);
    const v = probe.streams.find((s) => s.codec_type === "video")!;
    const a = probe.streams.find((s) => s.codec_type === "audio")!;
    const planned = trailerDuration(segments, XF);
    expect([v.width, v.height]).toEqual([1080, 1920]);
    expect(Number(v.duration)).toBeCloseTo(planned, 1);
    expect(Number(a.duration)).toBeCloseTo(planned, 1);
    expect(t.durationSeconds).toBeCloseTo(planned, 1);
    // The sound is normalised once, after the crossfades, to the clips' delivery target.
    const loud = await meterEbur128(out);
    expect(Math.abs(loud.integrated - CLIP_LOUDNESS.i)).toBeLessThanOrEqual(CLIP_LOUDNESS.tolerance);
    expect(loud.truePeak).toBeLessThanOrEqual(CLIP_LOUDNESS.tp);
  }, 300000);

  test("renderTrailer: sentences from a quiet and a loud passage play equally loud", async () => {
    // 6 s of tone 20 dB under the next 6 s: one segment from each half.
    const src = join(dir, "quiet-loud.mp4");
    await ffmpeg([
      "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=12", "-f", "lavfi", "-i", "sine=f=330:d=12:sample_rate=48000",
      "-af", "volume='if(lt(t,6),0.03,0.3)':eval=frame", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", "-shortest", src,
    ]);
    const source = await probeMedia(src);
    const segments = [{ start: 1, end: 5, clip: 0 }, { start: 7, end: 11, clip: 1 }];
    const words = [1.2, 7.2].map((t) => ({ word: "tone", start: t, end: t + 0.4, speaker: "Speaker 1" }));
    const out = join(dir, "quiet-loud-trailer.mp4");
    // Framing given for both passages (a fixed window), as a live job passes its clips' own.
    const fixed = { mode: "track" as const, width: 100, height: 180, keyframes: [{ t: 0, x: 110, y: 0 }] };
    await renderTrailer({ source, words, segments, outPath: out, quality: { preset: "ultrafast" }, passageCrops: [fixed, fixed] });
    const first = await meterEbur128(out, { window: { start: 0.5, duration: 3 } });
    const second = await meterEbur128(out, { window: { start: 4.5, duration: 3 } });
    expect(Math.abs(first.integrated - second.integrated)).toBeLessThan(1);
    const whole = await meterEbur128(out);
    expect(Math.abs(whole.integrated - CLIP_LOUDNESS.i)).toBeLessThanOrEqual(CLIP_LOUDNESS.tolerance);
  }, 300000);

  test("trailer segments are kept losslessly for the join's one lossy encode", async () => {
    const src = await segment("lossless-src.mp4", 1.2, "320x180");
    const enc = segmentEncoder("libx264", DEFAULT_RENDER_QUALITY);
    const out = join(dir, "lossless.mp4");
    await ffmpeg(["-y", ...mediaInput(src), "-filter_complex", `[0:v]null${enc.filterSuffix}[v]`, "-map", "[v]", ...enc.args, out]);
    expect(await frameHashes([out], "[0:v]null[v]")).toEqual(await frameHashes([src], "[0:v]null[v]"));
  }, 120000);

  test("the embedded WebAssembly engine joins too", async () => {
    const parts = await Promise.all([1.2, 1.6].map((s, i) => segment(`wasm${i}.mp4`, s)));
    const work = await mkdtemp(join(dir, "wasm-"));
    const env: Record<string, string | undefined> = { ...process.env, PATH: join(work, "empty-path") };
    delete env.FFMPEG_PATH;
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "trailer-join-wasm-child.ts"), work, ...parts], { env, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code, err).toBe(0);
    const got = JSON.parse(out.trim().split("\n").pop()!);
    expect(got.kind).toBe("wasm");
    // 30 + 40 frames less the 7 the crossfade overlaps: its offset, 0.9 s, falls between frames 22
    // and 23, so frames 23-29 of the first blend with 0-6 of the second.
    expect(got.frames).toBe(63);
  }, 300000);

  test("joining twice the segments does not take more memory", async () => {
    // 1080x1920 like the trailer's clips: here the single chain queued every later segment's frames.
    const one = await segment("big.mp4", 4, "1080x1920");
    const engine = await detectEngine();
    const enc = videoEncoderArgs(engine.encoder, { crf: 30, preset: "ultrafast" });
    const peak = async (n: number) => {
      const work = await mkdtemp(join(dir, `join${n}-`));
      const out = join(work, "joined.mp4");
      // ffmpeg's own memory: what the join starts, not a process an earlier test file left running.
      const rss = await peakChildRss(() => joinVideoCrossfaded(Array(n).fill(one), XF, enc, work, out), { command: "ffmpeg" });
      const info = await probeMedia(out);
      expect(info.durationSeconds).toBeCloseTo(n * 4 - (n - 1) * XF, 1);
      return rss;
    };
    const small = await peak(3);
    const large = await peak(6);
    console.log(`peak resident memory of the join: 3 segments ${(small / 2 ** 20).toFixed(0)} MiB, 6 segments ${(large / 2 ** 20).toFixed(0)} MiB`);
    expect(large).toBeLessThan(small * 1.25);
  }, 300000);
});
