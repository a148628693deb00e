import { spawnSync } from "bun";
import { expect } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSync, type NodeCue } from "subtitle";
import { z } from "zod";

/**
 * Downloads and parses every studio export of a completed job the way its consumers would: the
 * subtitle files with a real SRT/WebVTT parser, the chapters against the Podcasting 2.0 chapters
 * spec, the timeline with OpenTimelineIO itself (Python, in a cached venv made on first use).
 */

/** Podcasting 2.0 JSON chapters, version 1.2.0 (podcast-namespace docs/jsonChapters.md). */
const PodcastChapters = z.object({
  version: z.literal("1.2.0"),
  title: z.string().optional(),
  chapters: z
    .array(z.object({ startTime: z.number().min(0), title: z.string().min(1), endTime: z.number().optional(), img: z.string().optional(), url: z.string().optional(), toc: z.boolean().optional() }).strict())
    .min(1),
});

/**
 * A Python with opentimelineio and its Final Cut Pro adapters: the test-only venv that
 * scripts/setup/otio.sh makes (pinned versions) in .vendor/otio-venv; made on first use if missing.
 */
export function otioPython(): string {
  const root = join(import.meta.dir, "../..");
  const p = spawnSync(["bash", join(root, "scripts/setup/otio.sh")], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`scripts/setup/otio.sh failed: ${p.stderr.toString().slice(-2000)}`);
  return join(root, ".vendor/otio-venv/bin/python");
}

export interface TimelineTrack {
  kind: string;
  clips: Array<{ name: string; start: number; duration: number; media: string; markers: Array<{ name: string; start: number; end: number }> }>;
}

/**
 * Clips of every track of a timeline as OpenTimelineIO reads it with the adapter for its format
 * (otio_json, fcpx_xml for .fcpxml, fcp_xml for Final Cut 7 XML), with their ranged markers.
 */
export function readTimeline(path: string, adapter: "otio_json" | "fcpx_xml" | "fcp_xml" = "otio_json"): TimelineTrack[] {
  const script = `
import json, sys, opentimelineio as otio
t = otio.adapters.read_from_file(sys.argv[1], adapter_name=sys.argv[2])
if isinstance(t, otio.schema.SerializableCollection):
    t = t[0]
def marker(m):
    r = m.marked_range
    return {"name": m.name, "start": r.start_time.to_seconds(), "end": (r.start_time + r.duration).to_seconds()}
print(json.dumps([{"kind": tr.kind, "clips": [{"name": c.name, "start": c.source_range.start_time.to_seconds(), "duration": c.source_range.duration.to_seconds(), "media": c.media_reference.target_url, "markers": [marker(m) for m in c.markers]} for c in tr.find_clips()]} for tr in t.tracks]))
`;
  const p = spawnSync([otioPython(), "-c", script, path, adapter], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`opentimelineio (${adapter}) could not read ${path}: ${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString());
}

/** Clips of every track of an .otio file as OpenTimelineIO reads them. */
export const readOtio = (path: string) => readTimeline(path, "otio_json");

/**
 * Checks an editor timeline (FCPXML or xmeml) the way the editor's importer reads it: one clip per
 * track, the whole episode from the source file, with one marker per job clip spanning its range.
 * `slack` is how far a range may sit from the clip's own times (frame rounding, and the FCPXML
 * adapter's float truncation of rational times to frames).
 */
export function checkEditorTimeline(tracks: TimelineTrack[], clips: Array<{ start_time: number; end_time: number; title?: string; hook: string }>, slack: number): void {
  expect(tracks.length).toBeGreaterThan(0);
  for (const track of tracks) {
    expect(track.clips).toHaveLength(1);
    const [episode] = track.clips;
    expect(episode!.start).toBe(0);
    expect(episode!.media).toBeTruthy();
    expect(episode!.media).not.toContain("/");
    expect(episode!.markers).toHaveLength(clips.length);
    episode!.markers.forEach((m, i) => {
      expect(m.name).toStartWith(`Clip ${i + 1}: `);
      expect(Math.abs(m.start - clips[i]!.start_time)).toBeLessThanOrEqual(slack);
      expect(Math.abs(m.end - clips[i]!.end_time)).toBeLessThanOrEqual(slack);
    });
  }
}

async function download(url: string, type: RegExp): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type") ?? "").toMatch(type);
  return res.text();
}

export function cues(text: string): NodeCue["data"][] {
  return parseSync(text)
    .filter((n): n is NodeCue => n.type === "cue")
    .map((n) => n.data);
}

const words = (s: string) => s.replace(/<v [^>]*>/g, "").split(/\s+/).filter(Boolean);

export interface ParsedExports {
  clipCaptions: Array<{ srt: NodeCue["data"][]; vtt: NodeCue["data"][] }>;
  transcriptSrt: NodeCue["data"][];
  transcriptVtt: NodeCue["data"][];
  transcriptTxt: string;
  chapters: z.infer<typeof PodcastChapters>;
  timeline: TimelineTrack[];
  /** The FCPXML and xmeml timelines as OpenTimelineIO's adapters read them (absent where the job has none). */
  fcpxml?: TimelineTrack[];
  xmeml?: TimelineTrack[];
}

/**
 * Fetches and parses every export URL of a completed job and checks what holds whatever the
 * episode: caption cues inside their clip and spelling out its words in order, transcript cues in
 * order with the speaker of the segment they fall in, chapters valid and ordered, the timeline's
 * clips exactly the job's clips as ranges of the source.
 */
export async function checkExports(job: any): Promise<ParsedExports> {
  const out = job.output;
  for (const k of ["transcript_srt_url", "transcript_vtt_url", "transcript_txt_url", "chapters_url", "timeline_url"]) expect(out[k]).toStartWith(out.guest_share_url + "/files/");
  const clipCaptions = [];
  for (const clip of out.clips) {
    const srt = cues(await download(clip.captions_srt_url, /^application\/x-subrip/));
    const vtt = cues(await download(clip.captions_vtt_url, /^text\/vtt/));
    expect(vtt).toEqual(srt);
    expect(srt.length).toBeGreaterThan(3);
    for (const [i, c] of srt.entries()) {
      expect(c.start).toBeGreaterThanOrEqual(0);
      expect(c.end).toBeGreaterThan(c.start);
      expect(c.end).toBeLessThanOrEqual(Math.round(clip.duration_seconds * 1000));
      if (i > 0) expect(c.start).toBeGreaterThanOrEqual(srt[i - 1]!.end);
    }
    // The captions are what the video shows: the clip's words, plus a word the clip's edges cut into.
    const shown = srt.flatMap((c) => words(c.text)).join(" ");
    const said = words(clip.transcript_text).join(" ");
    expect(shown).toContain(said);
    expect(words(shown).length - words(said).length).toBeLessThanOrEqual(2);
    clipCaptions.push({ srt, vtt });
  }

  const transcriptSrt = cues(await download(out.transcript_srt_url, /^application\/x-subrip/));
  const vttText = await download(out.transcript_vtt_url, /^text\/vtt/);
  expect(vttText).toStartWith("WEBVTT");
  const transcriptVtt = cues(vttText);
  expect(transcriptVtt.map((c) => [c.start, c.end])).toEqual(transcriptSrt.map((c) => [c.start, c.end]));
  for (const [i, c] of transcriptVtt.entries()) {
    expect(c.end).toBeGreaterThan(c.start);
    if (i > 0) expect(c.start).toBeGreaterThanOrEqual(transcriptVtt[i - 1]!.end);
    // Every cue falls inside one transcript segment, names that segment's speaker and quotes it.
    const seg = out.transcript.find((s: any) => c.start >= Math.round(s.start * 1000) - 1 && c.end <= Math.round(s.end * 1000) + 1);
    expect(seg).toBeDefined();
    const voice = /^<v ([^>]+)>(.*)$/s.exec(c.text);
    expect(voice).not.toBeNull();
    expect(seg.text).toContain(voice![2]!.trim());
    expect(transcriptSrt[i]!.text).toBe(`${voice![1]}: ${voice![2]}`);
  }
  expect(transcriptVtt.flatMap((c) => words(c.text))).toEqual(out.transcript.flatMap((s: any) => words(s.text)));

  const transcriptTxt = await download(out.transcript_txt_url, /^text\/plain/);
  expect(transcriptTxt.trim().split(/\n\n/)).toHaveLength(out.transcript.length);

  const chapters = PodcastChapters.parse(JSON.parse(await download(out.chapters_url, /^application\/json/)));
  for (let i = 1; i < chapters.chapters.length; i++) expect(chapters.chapters[i]!.startTime).toBeGreaterThan(chapters.chapters[i - 1]!.startTime);

  const dir = mkdtempSync(join(tmpdir(), "clipyard-otio-check-"));
  const otioPath = join(dir, "timeline.otio");
  writeFileSync(otioPath, await download(out.timeline_url, /^application\/json/));
  const timeline = readOtio(otioPath);
  expect(timeline.some((t) => t.kind === "Audio")).toBe(true);
  for (const track of timeline) {
    expect(track.clips).toHaveLength(out.clips.length);
    track.clips.forEach((c, i) => {
      const rate = 1 / 25; // the coarsest rate the writer uses: one frame of slack
      expect(Math.abs(c.start - out.clips[i].start_time)).toBeLessThanOrEqual(rate);
      expect(Math.abs(c.start + c.duration - out.clips[i].end_time)).toBeLessThanOrEqual(rate);
      expect(c.media).toBeTruthy();
    });
  }
  // Two frames of the coarsest rate the writers use: rounding to a frame, then the FCPXML adapter's truncation.
  let fcpxml: TimelineTrack[] | undefined;
  let xmeml: TimelineTrack[] | undefined;
  if (out.timeline_fcpxml_url) {
    const path = join(dir, "timeline.fcpxml");
    writeFileSync(path, await download(out.timeline_fcpxml_url, /^application\/xml/));
    fcpxml = readTimeline(path, "fcpx_xml");
    checkEditorTimeline(fcpxml, out.clips, 2 / 25);
  }
  if (out.timeline_xmeml_url) {
    const path = join(dir, "timeline.xml");
    writeFileSync(path, await download(out.timeline_xmeml_url, /^application\/xml/));
    xmeml = readTimeline(path, "fcp_xml");
    checkEditorTimeline(xmeml, out.clips, 1 / 25);
  }
  return { clipCaptions, transcriptSrt, transcriptVtt, transcriptTxt, chapters, timeline, fcpxml, xmeml };
}
