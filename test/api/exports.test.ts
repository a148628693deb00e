import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, submitAndSettle, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { checkExports } from "../helpers/exports.ts";

/**
 * Studio exports of sandbox jobs, through the real HTTP server: every export URL downloads from the
 * share link and parses (SRT/VTT, Podcasting 2.0 chapters, OpenTimelineIO), for every source type.
 */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.005" } });
});
afterAll(() => app.stop());

async function completed(key: string, body: unknown) {
  const { created, job } = await submitAndSettle(app, key, body);
  expect(created.status).toBe(202);
  expect(created.json.output).toBeNull();
  return job;
}

test("a sandbox video job carries every export, and each one downloads and parses", async () => {
  const key = app.key("exports-video");
  const job = await completed(key, VIDEO_BODY);
  expect(job.status).toBe("complete");
  const parsed = await checkExports(job);
  // The fixture episode's seven chapters, the first at the first word.
  expect(parsed.chapters.chapters).toHaveLength(7);
  expect(parsed.chapters.chapters[0]).toEqual({ startTime: job.output.transcript[0].start, title: "Welcome and introductions" });
  expect(parsed.transcriptVtt[0]!.text).toStartWith("<v Nora Vance>Welcome back to Rooftop Hours");
  expect(parsed.transcriptTxt).toStartWith("[00:00] Nora Vance: Welcome back");
  // An audio fixture: the timeline has only an audio track, named after the episode's source file.
  expect(parsed.timeline.map((t) => t.kind)).toEqual(["Audio"]);
  expect(parsed.timeline[0]!.clips[0]!.media).toBe("rooftop-hours-bees.wav");
  // The share page offers them too.
  const page = await (await fetch(job.output.guest_share_url)).text();
  for (const url of [job.output.transcript_srt_url, job.output.chapters_url, job.output.timeline_url, job.output.clips[0].captions_vtt_url]) {
    expect(page).toContain(new URL(url).pathname);
  }
}, 60_000);

test("a failed sandbox job has no exports; a listed job carries the same URLs as GET", async () => {
  const key = app.key("exports-list");
  const failed = await completed(key, { source: { type: "youtube_url", url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" } });
  expect(failed.status).toBe("failed");
  expect(failed.output).toBeNull();
  const job = await completed(key, { source: { type: "video_url", url: "https://media.example.com/another.mp4" } });
  const listed = (await app.api("GET", "/v1/jobs", { key })).json.data.find((j: any) => j.id === job.id);
  expect(listed.output.timeline_url).toBe(job.output.timeline_url);
  expect(listed.output.clips.map((c: any) => c.captions_srt_url)).toEqual(job.output.clips.map((c: any) => c.captions_srt_url));
}, 60_000);

test("a file the job does not name is not served under its share link", async () => {
  const key = app.key("exports-scope");
  const job = await completed(key, VIDEO_BODY);
  const base = job.output.guest_share_url;
  expect((await fetch(`${base}/files/chapters.json`)).status).toBe(200);
  for (const name of ["manifest.json", "..%2Fmanifest.json", "notes.md", "transcript.json"]) expect((await fetch(`${base}/files/${name}`)).status).toBe(404);
}, 60_000);
