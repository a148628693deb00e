/**
 * Child process of render-wasm.test.ts: started with a PATH holding no ffmpeg, so the renderer
 * must pick the embedded WebAssembly engine. Prints the engine and the output path as JSON.
 */
import { detectEngine } from "../../src/media/ffmpeg-engine.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { renderClip } from "../../src/pipeline/render/render.ts";

const [input, format, out] = process.argv.slice(2) as [string, "linkedin" | "x", string];
const engine = await detectEngine();
const source = await probeMedia(input);
const words = "we keep bees on the roof".split(" ").map((word, i) => ({ word, start: 0.3 + i * 0.3, end: 0.55 + i * 0.3, speaker: "Speaker 1" }));
await renderClip({ source, words, start: 0, end: 2, format, outPath: out, quality: { preset: "ultrafast" } });
process.stdout.write(JSON.stringify({ engine, out }) + "\n");
