import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MediaProbeError, NoAudioStreamError, parseProbe, probeMedia } from "../../../src/media/probe.ts";
import { SHARED_MEDIA } from "../../helpers/paths.ts";
import { testShared } from "../../helpers/shared.ts";

const MEDIA = SHARED_MEDIA;

test("parseProbe ignores cover art and reads fps", () => {
  const info = parseProbe("x.mp3", {
    streams: [{ codec_type: "audio" }, { codec_type: "video", width: 600, height: 600, disposition: { attached_pic: 1 } }],
    format: { duration: "12.5" },
  });
  expect(info).toMatchObject({ hasAudio: true, hasVideo: false, durationSeconds: 12.5 });
  expect(parseProbe("v.mp4", { streams: [{ codec_type: "video", width: 640, height: 360, avg_frame_rate: "30000/1001" }] }).fps).toBeCloseTo(29.97, 2);
});

testShared("probes a real video with audio", async () => {
  const info = await probeMedia(join(MEDIA, "talking_head_a.mp4"), { requireAudio: true });
  expect(info.hasVideo).toBe(true);
  expect(info.hasAudio).toBe(true);
  expect(info.durationSeconds).toBeGreaterThan(4);
  expect(info.width).toBeGreaterThan(0);
});

test("a file with no audio stream is a clear error", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "clipyard-probe-")), "silent.mp4");
  const ff = Bun.spawnSync(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10:duration=1", "-pix_fmt", "yuv420p", path]);
  expect(ff.exitCode).toBe(0);
  await expect(probeMedia(path, { requireAudio: true })).rejects.toBeInstanceOf(NoAudioStreamError);
  await expect(probeMedia(path, { requireAudio: true })).rejects.toThrow("no audio stream");
});

test("a file ffprobe cannot read is a MediaProbeError", async () => {
  await expect(probeMedia(import.meta.path)).rejects.toBeInstanceOf(MediaProbeError);
});
