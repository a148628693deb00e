/**
 * The trailer's join: the per-joint pieces give exactly the frames of the one-graph xfade chain
 * (the look), and joining twice as many segments does not take more memory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpeg, ffprobeJson, findNativeFfmpeg, mediaInput, runTool } from "../../src/media/ffmpeg.ts";
import { detectEngine, videoEncoderArgs } from "../../src/media/ffmpeg-engine.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { joinVideoCrossfaded, pieceGraph, planJoin, probeSegments, videoCrossfadeChain } from "../../src/pipeline/render/trailer-join.ts";
import { encodeTrailerVideo, renderTrailer, segmentEncoder, trailerDuration } from "../../src/pipeline/render/trailer.ts";
import { encodeClipVideoCuts } from "../../src/pipeline/render/clip-video.ts";
import { turnsKey } from "../../src/pipeline/render/trailer-framing.ts";
import { frameRateOf, joinedFrames, planCuts } from "../../src/pipeline/render/trailer-cuts.ts";
import { DEFAULT_RENDER_QUALITY } from "../../src/pipeline/render/render.ts";
import { CLIP_LOUDNESS, meterEbur128 } from "../../src/media/ffmpeg-loudness.ts";
import { testPair } from "../helpers/compositions.ts";
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

/** Runs the wasm child (trailer-join-wasm-child.ts) with no native ffmpeg on PATH; its JSON report. */
async function wasmChild(args: string[]): Promise<{ kind: string; frames: number }> {
  const work = await mkdtemp(join(dir, "wasm-"));
  const env: Record<string, string | undefined> = { ...process.env, PATH: join(work, "empty-path") };
  delete env.FFMPEG_PATH;
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "trailer-join-wasm-child.ts"), work, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code, err).toBe(0);
  return JSON.parse(out.trim().split("\n").pop()!);
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

  test("a trailer's picture: each frame encoded once, the shown-alone frames the segments' own, the crossfades the chain's", async () => {
    // A source with moving content and sound, tagged BT.709 as cameras' files are; the trailer takes three windows of it.
    const src = join(dir, "cuts-src.mp4");
    await ffmpeg([
      "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6", "-f", "lavfi", "-i", "sine=f=440:d=6:sample_rate=48000",
      "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
      "-c:a", "aac", "-shortest", src,
    ]);
    const source = await probeMedia(src);
    const segments = [{ start: 0.5, end: 1.7, clip: 0 }, { start: 2.04, end: 3.4, clip: 0 }, { start: 3.8, end: 5.24, clip: 1 }];
    const words = [0.6, 2.2, 3.9].map((t) => ({ word: "hello", start: t, end: t + 0.4, speaker: "Speaker 1" }));
    const rate = { num: 25, den: 1 };
    // Lossless throughout, so frames compare exactly: the delivery encoder's loss is its own business.
    const lossless = segmentEncoder("libx264", DEFAULT_RENDER_QUALITY);
    const work = await mkdtemp(join(dir, "cuts-"));
    const out = join(work, "trailer-video.mp4");
    const plan = await encodeTrailerVideo({ source, words, segments, outPath: "" }, new Map(), { enc: lossless, edgeEnc: lossless, rate, crossfade: XF, work, out });
    // Each segment rendered whole, as the reference.
    const whole: string[] = [];
    for (const [i, s] of segments.entries()) {
      const [path] = await encodeClipVideoCuts({
        source, words, start: s.start, duration: s.end - s.start, format: "linkedin", rate, frames: plan.frames[i]!,
        cuts: [{ from: 0, to: plan.frames[i]!, enc: lossless, name: `whole${i}` }], timescale: plan.clock.timescale, work, name: `whole${i}`,
      });
      whole.push(path!);
    }
    expect(await Promise.all(whole.map(async (p) => (await frameHashes([p], "[0:v]null[v]")).length))).toEqual(plan.frames);
    const got = await frameHashes([out], "[0:v]null[v]");
    const chain = await frameHashes(whole, `${videoCrossfadeChain(segments.map((s) => s.end - s.start), XF, "[vj]")};[vj]null${lossless.filterSuffix}[v]`);
    // As long as the one-graph chain, to the frame.
    expect(got.length).toBe(chain.length);
    let at = 0;
    for (const p of plan.pieces) {
      if (p.kind === "body") {
        // Shown alone: the segment's own frames, not passed through the blend's 4:4:4.
        const own = await frameHashes([whole[p.seg]!], `[0:v]trim=start_frame=${p.from}:end_frame=${p.to},setpts=PTS-STARTPTS[v]`);
        expect(got.slice(at, at + own.length)).toEqual(own);
        at += own.length;
      } else {
        // The lead frame and the blended ones: exactly the chain's.
        expect(got.slice(at, at + p.frames + 1)).toEqual(chain.slice(at, at + p.frames + 1));
        at += p.frames + 1;
      }
    }
    expect(at).toBe(got.length);

    // At the delivery settings: bodies (encoded from the source) and joints (from the kept edges)
    // carry the same H.264 parameter sets, so the stream copy joins one valid stream.
    const delivery = await mkdtemp(join(dir, "cuts-delivery-"));
    const enc = videoEncoderArgs("libx264", { crf: 23, preset: "ultrafast" });
    await encodeTrailerVideo({ source, words, segments, outPath: "" }, new Map(), { enc, edgeEnc: lossless, rate, crossfade: XF, work: delivery, out: join(delivery, "trailer-video.mp4") });
    const pieces = (await readdir(delivery)).filter((n) => /^(seg\d+-body|joint\d+)\.mp4$/.test(n));
    expect(pieces.length).toBe(plan.pieces.length);
    const parameterSets = new Set<string>();
    for (const n of pieces) {
      const r = await runTool(findNativeFfmpeg()!.ffprobe, ["-v", "error", "-show_data_hash", "md5", "-show_entries", "stream=extradata_hash", "-select_streams", "v", "-of", "csv=p=0", join(delivery, n)]);
      parameterSets.add(r.stdout.trim());
    }
    expect(parameterSets.size).toBe(1);
    const decoded = await ffmpeg(["-v", "error", ...mediaInput(join(delivery, "trailer-video.mp4")), "-f", "null", "-"]);
    expect(decoded.stderr.trim()).toBe("");
    expect(await frameHashes([join(delivery, "trailer-video.mp4")], "[0:v]null[v]")).toHaveLength(got.length);
  }, 300000);

  testShared("renderTrailer: picture and sound of the joined trailer last as the plan says", async () => {
    const source = await probeMedia(await testPair(dir));
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
    // To the frame: the segments at the source's rate, less the frames the crossfades overlap.
    const cut = planCuts(segments.map((s) => s.end - s.start), frameRateOf(source.fps!), XF);
    expect(Number(v.nb_frames)).toBe(joinedFrames(cut));
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

  test("a re-render reuses a passage's framing while its span and speaker turns hold, and plans it again when they change", async () => {
    // Red on the left, blue on the right: the picture's colour says which window framed it.
    const src = join(dir, "red-blue.mp4");
    await ffmpeg([
      "-y", "-f", "lavfi", "-i", "color=c=blue:s=320x180:r=25:d=6", "-f", "lavfi", "-i", "sine=f=330:d=6:sample_rate=48000",
      "-vf", "drawbox=x=0:y=0:w=160:h=180:color=red:t=fill", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", src,
    ]);
    const source = await probeMedia(src);
    const segments = [{ start: 0.5, end: 2.5, clip: 0 }, { start: 3, end: 5, clip: 0 }];
    const words = [0.6, 1.4, 3.2, 4].map((t, i) => ({ word: "tone", start: t, end: t + 0.4, speaker: i < 3 ? "A" : "B" }));
    // A framing kept from an earlier render: a window over the red half, for this span and these turns.
    const red = { mode: "track" as const, width: 100, height: 180, keyframes: [{ t: 0, x: 0, y: 0 }] };
    const known = [{ start: 0.5, end: 5, turns: turnsKey(words, 0.5, 5), crop: red }];
    // Mean colour of the top of the picture (above the captions) at 1 s.
    const topColour = async (path: string) => {
      const r = Bun.spawnSync(["ffmpeg", "-v", "error", "-ss", "1", "-i", path, "-frames:v", "1", "-vf", "crop=iw:ih/2:0:0,scale=1:1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]);
      const [red, , blue] = r.stdout;
      return { red: red!, blue: blue! };
    };
    const kept = await renderTrailer({ source, words, segments, outPath: join(dir, "kept.mp4"), quality: { preset: "ultrafast" }, knownFraming: known });
    expect(kept.framing).toEqual(known);
    const k = await topColour(kept.path);
    expect(k.red).toBeGreaterThan(200);
    expect(k.blue).toBeLessThan(40);
    // The last word now belongs to the first speaker: the turns differ, so the framing is planned
    // afresh (no face here: the whole frame, red and blue, over its blurred fill).
    const moved = words.map((w) => ({ ...w, speaker: "A" }));
    const fresh = await renderTrailer({ source, words: moved, segments, outPath: join(dir, "fresh.mp4"), quality: { preset: "ultrafast" }, knownFraming: known });
    const f = await topColour(fresh.path);
    expect(f.blue).toBeGreaterThan(40);
    expect(fresh.framing.map((x) => x.turns)).toEqual([turnsKey(moved, 0.5, 5)]);
  }, 300000);

  test("the frames a joint blends are kept losslessly for its one lossy encode", async () => {
    const src = await segment("lossless-src.mp4", 1.2, "320x180");
    const enc = segmentEncoder("libx264", DEFAULT_RENDER_QUALITY);
    const out = join(dir, "lossless.mp4");
    await ffmpeg(["-y", ...mediaInput(src), "-filter_complex", `[0:v]null${enc.filterSuffix}[v]`, "-map", "[v]", ...enc.args, out]);
    expect(await frameHashes([out], "[0:v]null[v]")).toEqual(await frameHashes([src], "[0:v]null[v]"));
  }, 120000);

  test("the embedded WebAssembly engine joins too", async () => {
    const parts = await Promise.all([1.2, 1.6].map((s, i) => segment(`wasm${i}.mp4`, s)));
    const got = await wasmChild(parts);
    expect(got.kind).toBe("wasm");
    // 30 + 40 frames less the 7 the crossfade overlaps: its offset, 0.9 s, falls between frames 22
    // and 23, so frames 23-29 of the first blend with 0-6 of the second.
    expect(got.frames).toBe(63);
  }, 300000);

  test("the embedded WebAssembly engine renders a trailer's cut segments too (one output per command)", async () => {
    const src = await segment("wasm-src.mp4", 3, "160x90");
    const got = await wasmChild(["--trailer", src]);
    expect(got.kind).toBe("wasm");
    // Two 1 s segments of 25 frames each, less the frames their crossfade overlaps, as the plan says.
    const plan = planCuts([1, 1], { num: 25, den: 1 }, XF);
    expect(got.frames).toBe(joinedFrames(plan));
  }, 300000);

  test("joining twice the segments does not take more memory", async () => {
    // 1080x1920 like the trailer's clips: here the single chain queued every later segment's frames.
    // 2 s segments: the old chain's peak was the same at 2 s as at 4 s (278 and 443 MiB for 3 and 6,
    // against 220 and 220 for the pieces), so half the frames to encode tell the two apart as well.
    const SECONDS = 2;
    const one = await segment("big.mp4", SECONDS, "1080x1920");
    const engine = await detectEngine();
    const enc = videoEncoderArgs(engine.encoder, { crf: 30, preset: "ultrafast" });
    const peak = async (n: number) => {
      const work = await mkdtemp(join(dir, `join${n}-`));
      const out = join(work, "joined.mp4");
      // ffmpeg's own memory: what the join starts, not a process an earlier test file left running.
      const rss = await peakChildRss(() => joinVideoCrossfaded(Array(n).fill(one), XF, enc, work, out), { command: "ffmpeg" });
      const info = await probeMedia(out);
      expect(info.durationSeconds).toBeCloseTo(n * SECONDS - (n - 1) * XF, 1);
      return rss;
    };
    const small = await peak(3);
    const large = await peak(6);
    console.log(`peak resident memory of the join: 3 segments ${(small / 2 ** 20).toFixed(0)} MiB, 6 segments ${(large / 2 ** 20).toFixed(0)} MiB`);
    expect(large).toBeLessThan(small * 1.25);
  }, 300000);
});
