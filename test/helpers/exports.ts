import { spawnSync } from "bun";
import { expect } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
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

const OTIO_VERSION = "0.18.1";

/** A Python with opentimelineio installed: a venv under the temp folder, reused across runs. */
export function otioPython(): string {
  const venv = join(tmpdir(), `clipyard-otio-${OTIO_VERSION}`);
  const python = join(venv, "bin/python");
  if (!existsSync(join(venv, ".ready"))) {
    const run = (cmd: string[]) => {
      const p = spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
      if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString().slice(-2000)}`);
    };
    run(["python3", "-m", "venv", venv]);
    run([python, "-m", "pip", "install", "-q", `opentimelineio==${OTIO_VERSION}`]);
    writeFileSync(join(venv, ".ready"), OTIO_VERSION);
  }
  return python;
}

/** Clips of every track of an .otio file as OpenTimelineIO reads them: [kind, name, start s, duration s, media]. */
export function readOtio(path: string): Array<{ kind: string; clips: Array<{ name: string; start: number; duration: number; media: string }> }> {
  const script = `
import json, sys, opentimelineio as otio
t = otio.adapters.read_from_file(sys.argv[1])
print(json.dumps([{"kind": tr.kind, "clips": [{"name": c.name, "start": c.source_range.start_time.to_seconds(), "duration": c.source_range.duration.to_seconds(), "media": c.media_reference.target_url} for c in tr.find_clips()]} for tr in t.tracks]))
`;
  const p = spawnSync([otioPython(), "-c", script, path], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`opentimelineio could not read ${path}: ${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString());
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
  timeline: ReturnType<typeof readOtio>;
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
  return { clipCaptions, transcriptSrt, transcriptVtt, transcriptTxt, chapters, timeline };
}
