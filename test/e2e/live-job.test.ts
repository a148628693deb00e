import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { checkExports } from "../helpers/exports.ts";
import { startMediaServer } from "../helpers/media-server.ts";
import { testShared } from "../helpers/shared.ts";

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "1" };
let app: TestAppliance;
let media: ReturnType<typeof startMediaServer>;
beforeAll(async () => {
  media = startMediaServer();
  app = await startAppliance({ env: LAN });
});
afterAll(async () => {
  await app.stop();
  media.stop();
});

async function poll(key: string, id: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  const seen = new Set<string>();
  for (;;) {
    const job = (await app.api("GET", `/v1/jobs/${id}`, { key })).json;
    seen.add(job.status + (job.progress ? `:${job.progress.stage}` : ""));
    if (job.status === "complete" || job.status === "failed") return { job, seen };
    if (Date.now() > end) throw new Error(`job stuck: ${JSON.stringify(job)}`);
    await Bun.sleep(200);
  }
}

testShared("a live job on a real two-speaker recording completes with every output filled and fetchable", async () => {
  const key = app.key("live-e2e", "live");
  // The organisation spells one caller's name its way, the job the other's: both lists reach the
  // recogniser, and the recording's "Diane" and "Sheila" come out spelled as listed.
  expect((await app.api("PUT", "/v1/vocabulary", { key, body: { entries: ["Dianne"] } })).status).toBe(200);
  const body = {
    source: { type: "video_url", url: media.url("two_speakers_call.wav") },
    options: { clip_count: 2, min_clip_seconds: 6, max_clip_seconds: 20, caption_style: "karaoke", vocabulary: ["Sheilah"] },
  };
  const submitted = await app.api("POST", "/v1/jobs", { key, body });
  expect(submitted.status).toBe(202);
  const { job, seen } = await poll(key, submitted.json.id, 240_000);
  expect(job.error).toBeNull();
  expect(job.status).toBe("complete");
  expect([...seen].some((s) => s.startsWith("processing:"))).toBe(true); // progress was visible
  const out = job.output;
  expect(out.clips.length).toBeGreaterThanOrEqual(1);
  for (const [i, c] of out.clips.entries()) {
    expect(c.rank).toBe(i + 1);
    expect(c.id).toMatch(/^clip_/);
    for (const f of ["category", "hook", "pull_quote", "transcript_text"]) expect(c[f].length).toBeGreaterThan(0);
    // Posting copy (extension fields).
    expect(c.title.length).toBeLessThanOrEqual(70);
    expect(c.description.length).toBeGreaterThan(0);
    expect(c.hashtags.length).toBeGreaterThanOrEqual(3);
    expect(c.hashtags.length).toBeLessThanOrEqual(5);
    expect(c.duration_seconds).toBeCloseTo(c.end_time - c.start_time, 2);
    expect(c.duration_seconds).toBeGreaterThanOrEqual(6);
    for (const dest of ["linkedin", "x"]) {
      const res = await fetch(c.rendered_urls[dest]);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("video/mp4");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
    }
  }
  expect(out.trailer).toBeNull(); // none asked for
  expect(out.show_notes).toMatch(/^# .+/m);
  expect(out.transcript.length).toBeGreaterThan(1);
  expect(new Set(out.transcript.map((s: any) => s.speaker)).size).toBe(2);
  const said = out.transcript.map((s: any) => s.text).join(" ");
  expect(said).toContain("Dianne");
  expect(said).toContain("Sheilah");
  expect(said).not.toMatch(/\b(Diane|Sheila)\b/);
  expect(job.options.vocabulary).toEqual(["Sheilah"]); // the job echoes only its own list
  expect(out.engine.asr).toBeTruthy();
  const share = await fetch(out.guest_share_url);
  expect(share.status).toBe(200);
  expect(await share.text()).toContain(out.clips[0].rendered_urls.linkedin.split("/").pop());
  // Partial download: players seek with Range requests.
  const range = await fetch(out.clips[0].rendered_urls.x, { headers: { range: "bytes=0-99" } });
  expect(range.status).toBe(206);
  expect((await range.arrayBuffer()).byteLength).toBe(100);
  // Studio exports: every one downloads and parses; the timeline names the URL's file.
  const exports = await checkExports(job);
  expect(exports.timeline[0]!.clips[0]!.media).toBe("two_speakers_call.wav");
}, 300_000);

test("a live job whose media URL answers 404 fails with media_fetch_failed", async () => {
  const key = app.key("live-e2e", "live");
  const submitted = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "video_url", url: media.url("missing.mp4") } } });
  const { job } = await poll(key, submitted.json.id, 30_000);
  expect(job.error.code).toBe("media_fetch_failed");
  expect(job.error.message).toContain("404");
  expect(job.output).toBeNull();
});

test("a live youtube job that cannot be downloaded fails with youtube_ingestion_failed", async () => {
  const key = app.key("live-e2e", "live");
  const submitted = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "youtube_url", url: "https://youtu.be/dQw4w9WgXcQ" } } });
  const { job } = await poll(key, submitted.json.id, 120_000);
  expect(job.error.code).toBe("youtube_ingestion_failed");
}, 150_000);
