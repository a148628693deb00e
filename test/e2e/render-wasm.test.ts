/**
 * The embedded WebAssembly engine (@ffmpeg/core) renders when no native ffmpeg is on PATH: a child
 * process without ffmpeg on its PATH renders a 2 s clip (a video clip, and an audiogram); the parent
 * checks it with native ffprobe and ebur128.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffprobeJson } from "../../src/media/ffmpeg.ts";
import { meterEbur128 } from "../../src/media/ffmpeg-loudness.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { testShared } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-wasm-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cases = [
  { name: "a captioned, normalised 16:9 clip", input: "talking_head_a.mp4", format: "x", size: [1920, 1080] },
  { name: "an audiogram (held caption band and head)", input: "jfk.wav", format: "linkedin", size: [1080, 1920] },
] as const;

for (const c of cases) {
  testShared(`without native ffmpeg the wasm engine renders ${c.name}`, async () => {
    const out = join(work, `wasm-${c.format}.mp4`);
    const env: Record<string, string | undefined> = { ...process.env, PATH: join(work, "empty-path") };
    delete env.FFMPEG_PATH;
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "render-wasm-child.ts"), join(SHARED_MEDIA, c.input), c.format, out], { env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`child failed (${code}): ${stderr.slice(-1500)}`);
    const result = JSON.parse(stdout.trim().split("\n").pop()!) as { engine: { kind: string; encoder: string } };
    expect(result.engine.kind).toBe("wasm");
    expect(result.engine.encoder).toBe("libx264");
    const p = await ffprobeJson(out);
    const v = p.streams.find((s) => s.codec_type === "video")!;
    const a = p.streams.find((s) => s.codec_type === "audio")!;
    expect([v.codec_name, v.width, v.height]).toEqual(["h264", ...c.size]);
    expect([a.codec_name, a.sample_rate]).toEqual(["aac", "48000"]);
    expect(Math.abs(Number(p.format.duration) - 2)).toBeLessThanOrEqual(0.1);
    const loud = await meterEbur128(out);
    expect(Math.abs(loud.integrated - -14)).toBeLessThanOrEqual(0.5);
    expect(loud.truePeak).toBeLessThanOrEqual(-1);
  }, 120_000);
}
