/**
 * Decodes a window of a video as small RGB frames at a fixed sampling rate, streamed so a long
 * window never sits in memory at once.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { diesWithAppliance } from "../dies-with-appliance.ts";
import { scratchDir } from "../scratch.ts";
import { ffmpeg, findNativeFfmpeg, mediaInput } from "./ffmpeg.ts";

export interface SampledFrame {
  /** Source time in seconds. */
  t: number;
  rgb: Uint8Array;
}

export interface SampleOptions {
  start: number;
  duration: number;
  fps: number;
  /** Analysis width in pixels (height follows the aspect ratio, rounded to even). */
  width: number;
  srcWidth: number;
  srcHeight: number;
  /**
   * Decode every frame (B-frames and deblocking too), so each sample is the frame at its time.
   * Lip-sync analysis needs it: a sample up to three frames early is 120 ms off at 25 fps.
   */
  exact?: boolean;
}

export function sampleSize(o: Pick<SampleOptions, "width" | "srcWidth" | "srcHeight">): { width: number; height: number } {
  const height = Math.max(2, Math.round((o.width * o.srcHeight) / o.srcWidth / 2) * 2);
  return { width: o.width, height };
}

export async function* sampleFrames(path: string, o: SampleOptions): AsyncGenerator<SampledFrame> {
  const { width, height } = sampleSize(o);
  const frameBytes = width * height * 3;
  // Analysis frames need neither B-frames nor deblocking: skipping both halves the decode, and a
  // sample then lands on the nearest earlier I/P frame (a few frames off at most, which face
  // tracking at a few samples per second does not notice).
  const skip = o.exact ? [] : ["-skip_frame", "bidir", "-skip_loop_filter", "all"];
  const decode = ["-loglevel", "error", ...skip,
    "-ss", o.start.toFixed(3), "-t", o.duration.toFixed(3), ...mediaInput(path),
    "-vf", `fps=${o.fps},scale=${width}:${height}`, "-f", "rawvideo", "-pix_fmt", "rgb24"];
  const native = findNativeFfmpeg();
  if (!native) {
    // The wasm engine cannot pipe: decode to a temporary file and slice it.
    const dir = await scratchDir("frames");
    try {
      await ffmpeg(["-y", ...decode, join(dir, "frames.rgb")]);
      const all = new Uint8Array(await Bun.file(join(dir, "frames.rgb")).arrayBuffer());
      for (let i = 0; (i + 1) * frameBytes <= all.length; i++) {
        yield { t: o.start + i / o.fps, rgb: all.slice(i * frameBytes, (i + 1) * frameBytes) };
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return;
  }
  const proc = Bun.spawn(
    diesWithAppliance([native.ffmpeg, "-hide_banner", "-nostdin", ...decode, "-"]),
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  let pending = new Uint8Array(0);
  let index = 0;
  let finished = false;
  try {
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      const merged = new Uint8Array(pending.length + chunk.length);
      merged.set(pending);
      merged.set(chunk, pending.length);
      let off = 0;
      while (merged.length - off >= frameBytes) {
        yield { t: o.start + index / o.fps, rgb: merged.slice(off, off + frameBytes) };
        off += frameBytes;
        index++;
      }
      pending = merged.slice(off);
    }
    finished = true;
  } finally {
    // A consumer that stops early must not leave the decoder running.
    if (!finished) proc.kill();
  }
  const code = await proc.exited;
  if (code !== 0) throw new Error(`ffmpeg frame sampling failed (${code}): ${(await new Response(proc.stderr).text()).slice(-400)}`);
}
