/**
 * Child process of trailer-join.test.ts: started with a PATH holding no ffmpeg, so the join runs on
 * the embedded WebAssembly engine (its concat list's pieces must be copied in with the list).
 * Prints the engine and the joined file's frame count as JSON. `--trailer SOURCE` instead renders
 * a two-segment trailer picture from SOURCE (encodeTrailerVideo: cut segments, joint, stream copy).
 */
import { join } from "node:path";
import { ffprobeJson } from "../../src/media/ffmpeg.ts";
import { detectEngine, videoEncoderArgs } from "../../src/media/ffmpeg-engine.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { DEFAULT_RENDER_QUALITY } from "../../src/pipeline/render/render.ts";
import { encodeTrailerVideo, segmentEncoder } from "../../src/pipeline/render/trailer.ts";
import { joinVideoCrossfaded } from "../../src/pipeline/render/trailer-join.ts";

const [work, ...parts] = process.argv.slice(2) as [string, ...string[]];
const engine = await detectEngine();
const out = join(work, "joined.mp4");
const enc = videoEncoderArgs(engine.encoder, { crf: 30, preset: "ultrafast" });
if (parts[0] === "--trailer") {
  const source = await probeMedia(parts[1]!);
  const segments = [{ start: 0.2, end: 1.2, clip: 0 }, { start: 1.6, end: 2.6, clip: 0 }];
  await encodeTrailerVideo({ source, words: [], segments, outPath: "" }, new Map(), { enc, edgeEnc: segmentEncoder(engine.encoder, DEFAULT_RENDER_QUALITY), rate: { num: 25, den: 1 }, crossfade: 0.3, work, out });
} else {
  await joinVideoCrossfaded(parts, 0.3, enc, work, out);
}
const v = (await ffprobeJson(out)).streams.find((s) => s.codec_type === "video");
process.stdout.write(JSON.stringify({ kind: engine.kind, frames: Number(v?.nb_frames) }) + "\n");
