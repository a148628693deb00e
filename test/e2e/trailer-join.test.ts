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
import { renderTrailer, trailerDuration } from "../../src/pipeline/render/trailer.ts";
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
  }, 300000);

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
