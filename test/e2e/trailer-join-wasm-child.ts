/**
 * Child process of trailer-join.test.ts: started with a PATH holding no ffmpeg, so the join runs on
 * the embedded WebAssembly engine (its concat list's pieces must be copied in with the list).
 * Prints the engine and the joined file's frame count as JSON.
 */
import { join } from "node:path";
import { ffprobeJson } from "../../src/media/ffmpeg.ts";
import { detectEngine, videoEncoderArgs } from "../../src/media/ffmpeg-engine.ts";
import { joinVideoCrossfaded } from "../../src/pipeline/render/trailer-join.ts";

const [work, ...parts] = process.argv.slice(2) as [string, ...string[]];
const engine = await detectEngine();
const out = join(work, "joined.mp4");
await joinVideoCrossfaded(parts, 0.3, videoEncoderArgs(engine.encoder, { crf: 30, preset: "ultrafast" }), work, out);
const v = (await ffprobeJson(out)).streams.find((s) => s.codec_type === "video");
process.stdout.write(JSON.stringify({ kind: engine.kind, frames: Number(v?.nb_frames) }) + "\n");
