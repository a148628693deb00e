import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { checkEditorTimeline, readOtio, readTimeline } from "../helpers/exports.ts";
import { SHARED_MEDIA } from "../helpers/media-server.ts";
import { beforeAllShared, testShared } from "../helpers/shared.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-process-"));
const source = join(work, "interview.mp4");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A 20 s two-person video from the real talking-head recordings: left, right, left, right speaking. */
beforeAllShared(async () => {
  const a = join(SHARED_MEDIA, "talking_head_a.mp4");
  const b = join(SHARED_MEDIA, "talking_head_b.mp4");
  const side = (i: number) => `[${i}:v]trim=0:5,setpts=PTS-STARTPTS,fps=25,scale=640:640,setsar=1[v${i}]`;
  await ffmpeg([
    "-y", ...mediaInput(a), ...mediaInput(b),
    "-filter_complex",
    `${side(0)};${side(1)};[v0]split[l0][l1];[v1]split[r0][r1];` +
      "[l0][l1]concat=n=2,setpts=N/25/TB[lv];[r0][r1]concat=n=2,setpts=N/25/TB[rv];" +
      "color=c=0x202830:s=1920x1080:r=25:d=20[bg];[bg][lv]overlay=160:220:eof_action=repeat[bl];[bl][rv]overlay=1120:220:eof_action=repeat[v];" +
      "[0:a]atrim=0:5,asetpts=PTS-STARTPTS,aresample=48000,asplit[a0][a2];[1:a]atrim=0:5,asetpts=PTS-STARTPTS,aresample=48000,asplit[a1][a3];" +
      "[a0][a1][a2][a3]concat=n=4:v=0:a=1[a]",
    "-map", "[v]", "-map", "[a]", "-t", "20", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "aac", source,
  ]);
}, 60_000);

testShared("clipyard process writes clips in both formats, notes, transcript and job.json for a local video", async () => {
  const out = join(work, "out");
  // The default encoder settings, whatever preset the test run renders its other clips with (scripts/test.sh).
  const env = { ...process.env };
  delete env.CLIPYARD_X264_PRESET;
  const proc = Bun.spawn(["bun", "run", join(ROOT, "src/main.ts"), "process", source, "--out", out, "--clips", "1", "--min-seconds", "5", "--max-seconds", "20", "--caption-style", "boxed"], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  // The whole stderr in the failure, so a failed run says why.
  expect({ code: await proc.exited, stderr }).toMatchObject({ code: 0, stderr: expect.stringMatching(/done in [\d.]+ s: 1 clips/) });
  const job = JSON.parse(readFileSync(join(out, "job.json"), "utf8"));
  expect(job.clips).toHaveLength(1);
  const clip = job.clips[0];
  expect(clip.rank).toBe(1);
  expect(clip.hook.length).toBeGreaterThan(0);
  for (const [dest, size] of [["linkedin", [1080, 1920]], ["x", [1920, 1080]]] as const) {
    const info = await probeMedia(join(out, clip.rendered_urls[dest]));
    expect([info.width, info.height]).toEqual([...size]);
    expect(info.hasAudio).toBe(true);
    expect(info.durationSeconds).toBeCloseTo(clip.duration_seconds, 0);
  }
  expect(readFileSync(join(out, "notes.md"), "utf8")).toMatch(/^# /);
  const transcript = JSON.parse(readFileSync(join(out, "transcript.json"), "utf8"));
  expect(transcript.words.length).toBeGreaterThan(10);
  expect(job.engine.ffmpeg).toEndWith(", libx264 veryfast");
  // x264 writes its settings into the stream: veryfast's (CABAC on, hexagon motion search), not ultrafast's.
  const settings = /x264 - core \d+ .*? options: ([^\0]*?)(?:\0|$)/.exec(readFileSync(join(out, clip.rendered_urls.x), "latin1"))?.[1] ?? "";
  expect(settings).toContain("cabac=1");
  expect(settings).toContain("me=hex");
  // The studio exports sit beside the clips, named in job.json like the API's fields; the timeline
  // of a video source has a video track at its frame rate and names the local file.
  expect(readFileSync(join(out, clip.captions_srt_url), "utf8")).toMatch(/^1\n00:00:\d\d,\d{3} --> /);
  for (const k of ["transcript_srt_url", "transcript_vtt_url", "transcript_txt_url", "chapters_url"]) expect(existsSync(join(out, job[k]))).toBe(true);
  const timeline = readOtio(join(out, job.timeline_url));
  expect(timeline.map((t) => t.kind)).toEqual(["Video", "Audio"]);
  expect(timeline[0]!.clips[0]).toMatchObject({ media: "interview.mp4" });
  expect(timeline[0]!.clips[0]!.start).toBeCloseTo(clip.start_time, 1);
  // The Final Cut Pro / Resolve and Premiere timelines: the episode with every clip a marked range.
  const fcpxml = readTimeline(join(out, job.timeline_fcpxml_url), "fcpx_xml");
  const xmeml = readTimeline(join(out, job.timeline_xmeml_url), "fcp_xml");
  expect(xmeml.map((t) => t.kind)).toEqual(["Video", "Audio"]);
  expect(xmeml[0]!.clips[0]!.media).toBe("interview.mp4");
  checkEditorTimeline(fcpxml, job.clips, 0.1);
  checkEditorTimeline(xmeml, job.clips, 0.05);
  expect(readFileSync(join(out, job.timeline_fcpxml_url), "utf8")).toContain(`role="iTT?captionFormat=ITT.en"`);
  expect(existsSync(join(out, ".clipyard-work"))).toBe(false);
}, 180_000);

testShared("clipyard process refuses bad options and missing files with a clear message", async () => {
  const run = async (...args: string[]) => {
    const p = Bun.spawn(["bun", "run", join(ROOT, "src/main.ts"), "process", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    return { code: await p.exited, err: await new Response(p.stderr).text() };
  };
  expect(await run(source, "--out", join(work, "x"), "--caption-style", "comic")).toMatchObject({ code: 2, err: expect.stringContaining("caption_style") });
  expect(await run(source, "--out", join(work, "x"), "--speakers", "1")).toMatchObject({ code: 2, err: expect.stringContaining("speakers") });
  expect(await run(source, "--out", join(work, "x"), "--speakers", "Ann, ann")).toMatchObject({ code: 2, err: expect.stringContaining("must not name anyone twice") });
  expect(await run(join(work, "nope.mp4"), "--out", join(work, "x"))).toMatchObject({ code: 2, err: expect.stringContaining("no such file") });
  expect((await run(source)).code).toBe(2);
});

test("clipyard doctor --json reports every check", async () => {
  const p = Bun.spawn(["bun", "run", join(ROOT, "src/main.ts"), "doctor", "--json"], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, CLIPYARD_DATA_DIR: join(work, "data") } });
  const report = JSON.parse(await new Response(p.stdout).text());
  expect(await p.exited).toBe(0);
  const names = report.checks.map((c: any) => c.name);
  for (const n of ["ffmpeg", "speech runtime", "gpu", "model whisper-tiny.en", "model silero-vad", "yt-dlp", "database", "data directory"]) expect(names).toContain(n);
  expect(report.checks.find((c: any) => c.name === "ffmpeg").data.encoder).toBeString();
}, 60_000);
