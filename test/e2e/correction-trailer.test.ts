import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT_DIR } from "../../src/config.ts";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { cues } from "../helpers/exports.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { startMediaServer } from "../helpers/media-server.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * A transcript correction on a live video job with a trailer (issue 32): a word the trailer's
 * passages say is corrected, so the trailer is rendered again from the corrected words (a new file
 * of the same length replaces the old, whose URL stops serving) along with the clip that says it.
 * The episode is the bundled sample (a real recording, Piper-voiced) over a plain video track at
 * 10 fps: renders keep the source's rate, and most of this test is rendering (a 29 s clip in two
 * formats and a 68 s 1080x1920 trailer, each twice), so two fifths of the frames of a 25 fps source
 * took its CPU from about 300 s to 160 s (docs/benchmarks/tests.md). The trailer's 0.3 s crossfades
 * are still whole frames (three) at that rate. The sample's AAC is copied, not encoded again, and
 * the flat track encoded ultrafast: the episode costs 2 CPU s to make instead of 6.
 */
const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "1" };
const work = mkdtempSync(join(tmpdir(), "clipyard-correction-trailer-"));
let app: TestAppliance;
let media: ReturnType<typeof startMediaServer>;
beforeAll(async () => {
  await ffmpeg([
    "-y", "-f", "lavfi", "-i", "color=c=0x203040:s=640x360:r=10", ...mediaInput(join(ROOT_DIR, "fixtures/sample/rooftop-hours.m4a")),
    "-map", "0:v", "-map", "1:a", "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-c:a", "copy", join(work, "episode.mp4"),
  ]);
  media = startMediaServer(work);
  app = await startAppliance({ env: LAN });
}, 120_000);
afterAll(async () => {
  await app.stop();
  media.stop();
  rmSync(work, { recursive: true, force: true });
});

async function call(method: string, path: string, opts: Parameters<TestAppliance["api"]>[2]) {
  for (;;) {
    const res = await app.api(method, path, opts);
    if (res.status !== 429) return res;
    await Bun.sleep(Number(res.headers.get("retry-after") ?? 1) * 1000);
  }
}
const jobNow = async (key: string, id: string) => (await call("GET", `/v1/jobs/${id}`, { key })).json;
const bareWords = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}']+/u).filter(Boolean);

test("a correction in the trailer's passages renders the trailer again", async () => {
  const key = app.key("correction-trailer", "live");
  const submitted = await call("POST", "/v1/jobs", { key, body: { source: { type: "video_url", url: media.url("episode.mp4") }, options: { include_trailer: true, clip_count: 1, min_clip_seconds: 20, max_clip_seconds: 40 } } });
  expect(submitted.status).toBe(202);
  const id = submitted.json.id;
  const job = await eventually(() => jobNow(key, id), (j) => j.status === "complete" || j.status === "failed", { timeoutMs: 1_000_000, what: "the live job" });
  expect(job.error).toBeNull();
  expect(job.output.trailer).not.toBeNull();
  const trailerFile = (url: string) => join(app.dataDir, "jobs", id, "out", url.split("/").pop()!);
  const before = await probeMedia(trailerFile(job.output.trailer.url));

  // The first caption line of the best clip opens the trailer (its passages go best clip first).
  const first = job.output.clips[0];
  const opening = cues(await (await fetch(first.captions_srt_url)).text())[0]!.text;
  const word = bareWords(opening).find((w) => w.length >= 4 && /^\p{L}+$/u.test(w));
  expect(word).toBeDefined();
  const corrected = await call("POST", `/v1/jobs/${id}/transcript/corrections`, { key, body: { replace: [{ find: word, with: "zanzibar" }] } });
  expect(corrected.status).toBe(202);
  expect(corrected.json.trailer_rerendered).toBe(true);
  expect(corrected.json.clips_rerendered).toContain(first.id);

  const done = await eventually(() => jobNow(key, id), (j) => j.output.trailer.url !== job.output.trailer.url && j.output.clips[0].render?.status !== "queued" && j.output.clips[0].render?.status !== "rendering", { timeoutMs: 800_000, what: "the trailer's new render" });
  expect(done.output.trailer.url).toMatch(/\/trailer_[A-Za-z0-9]{8}\.mp4$/);
  const after = await probeMedia(trailerFile(done.output.trailer.url));
  expect(after.hasVideo).toBe(true);
  expect(Math.abs(after.durationSeconds - before.durationSeconds)).toBeLessThan(0.2);
  expect(done.output.trailer.duration_seconds).toBeCloseTo(job.output.trailer.duration_seconds, 1);
  expect((await fetch(job.output.trailer.url)).status).toBe(404);
  expect((await fetch(done.output.trailer.url)).status).toBe(200);
  // The clip that says the word shows the correction in its captions.
  expect(done.output.clips[0].render).toMatchObject({ status: "complete", error: null });
  expect(bareWords(readFileSync(join(app.dataDir, "jobs", id, "out", done.output.clips[0].captions_srt_url.split("/").pop()), "utf8"))).toContain("zanzibar");
}, 2_000_000);
