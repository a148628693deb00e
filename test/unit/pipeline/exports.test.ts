import { describe, expect, test } from "bun:test";
import { assEventSpans, buildAss } from "../../../src/pipeline/render/captions.ts";
import { joinWords } from "../../../src/pipeline/highlights/sentences.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSync } from "subtitle";
import { clipCaptionCues, otioTimeline, podcastChapters, transcriptCues, transcriptText, writeClipCaptions, writeExports } from "../../../src/pipeline/exports.ts";
import { transcriptFromTurns } from "../../helpers/synthetic-transcript.ts";

const t = transcriptFromTurns([
  { speaker: "Speaker 1", text: "Welcome back to the show. Today we talk about bees on a roof, and what they teach us." },
  { speaker: "Speaker 2", text: "Thanks for having me. I started with one hive, then two, then three, all above a bus stop." },
  { speaker: "Speaker 1", text: "How did the neighbours take it?" },
]);

describe("clip captions", () => {
  test("one cue per burned-in caption chunk: same spans as the ASS events the renderer draws", () => {
    const clip = { start_time: t.words[3]!.start - 0.2, end_time: t.words[25]!.end + 0.3, hook: "h" };
    const duration = clip.end_time - clip.start_time;
    const cues = clipCaptionCues(t.words, clip);
    // The ASS script draws one event per (chunk, active word); a chunk's events tile its cue.
    const spans = assEventSpans(buildAss(t.words, { frame: { width: 1080, height: 1920 }, offset: clip.start_time, duration }));
    const cs = (s: number) => Math.round(s * 100) * 10;
    for (const cue of cues) {
      const inside = spans.filter(([a, b]) => a >= cs(cue.start) - 10 && b <= cs(cue.end) + 10);
      expect(inside.length).toBe(cue.text.split(" ").length);
      expect(Math.min(...inside.map((s) => s[0]))).toBe(cs(cue.start));
      expect(Math.max(...inside.map((s) => s[1]))).toBe(cs(cue.end));
    }
    const heard = t.words.filter((w) => w.end > clip.start_time && w.start < clip.end_time);
    expect(cues.map((c) => c.text).join(" ")).toBe(heard.map((w) => w.word).join(" "));
    expect(cues[0]!.start).toBeCloseTo(Math.max(0, heard[0]!.start - clip.start_time), 5);
  });
});

describe("clip captions with an intro card", () => {
  test("the sidecars are shifted by the intro's seconds, so they stay on the delivered file's audio; the timelines are not", () => {
    const dir = mkdtempSync(join(tmpdir(), "clipyard-exports-cards-"));
    try {
      const clip = { start_time: t.words[3]!.start - 0.2, end_time: t.words[25]!.end + 0.3, hook: "h" };
      const plain = clipCaptionCues(t.words, clip);
      writeClipCaptions(dir, t.words, { ...clip, intro_seconds: 1.52 }, "carded");
      for (const ext of ["srt", "vtt"]) {
        const cues = parseSync(readFileSync(join(dir, `carded.${ext}`), "utf8")).filter((n) => n.type === "cue").map((n) => n.data as { start: number; end: number; text: string });
        expect(cues.map((c) => [c.start, c.end, c.text])).toEqual(plain.map((c) => [Math.round((c.start + 1.52) * 1000), Math.round((c.end + 1.52) * 1000), c.text]));
      }
      const files = writeExports(dir, {
        title: "T", words: t.words, segments: t.segments, chapters: [], clips: [{ ...clip, intro_seconds: 1.52 }],
        source: { name: "ep.mp4", durationSeconds: t.words.at(-1)!.end + 1, fps: 25, hasVideo: true },
      });
      // The episode timeline marks the clip's range of the source, cards or not.
      expect(readFileSync(join(dir, files.timeline), "utf8")).toContain(`"value": ${Math.round(clip.start_time * 25)}`);
      expect(readFileSync(join(dir, files.clips[0]!.srt), "utf8")).toBe(readFileSync(join(dir, "carded.srt"), "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("transcript", () => {
  test("cues follow the words, never mix speakers, and carry the speaker's name", () => {
    const cues = transcriptCues(t.words, { "Speaker 2": "Theo" });
    expect(cues.map((c) => c.text).join(" ")).toBe(joinWords(t.words.map((w) => w.word)));
    let w = 0;
    for (const c of cues) {
      // The cue's words are the shortest run from here whose joined text is the cue's.
      let n = 1;
      while (w + n < t.words.length && joinWords(t.words.slice(w, w + n).map((x) => x.word)) !== c.text) n++;
      const own = t.words.slice(w, w + n);
      expect(joinWords(own.map((x) => x.word))).toBe(c.text);
      w += n;
      expect(c.start).toBe(own[0]!.start);
      expect(c.end).toBe(own.at(-1)!.end);
      expect(new Set(own.map((x) => x.speaker)).size).toBe(1);
      expect(c.voice).toBe(own[0]!.speaker === "Speaker 2" ? "Theo" : "Speaker 1");
      expect(c.text.length).toBeLessThanOrEqual(100);
    }
  });

  test("whisper's sub-word pieces are written as one word in the transcript (\"co-host\", \"60,000\", \"o'clock\")", () => {
    const words = ["I'm", "your", "co", "-host", "with", "60", ",000", "bees", "at", "nine", "o", "'clock", "."].map((word, i) => ({ word, start: i, end: i + 0.5, speaker: "A" }));
    expect(transcriptCues(words).map((c) => c.text)).toEqual(["I'm your co-host with 60,000 bees at nine o'clock."]);
  });

  test("a word timed with no duration still gets a cue that shows, never over the next one", () => {
    const words = [
      { word: "Yes.", start: 1, end: 1, speaker: "A" },
      { word: "No.", start: 1.05, end: 1.05, speaker: "B" },
      { word: "Maybe.", start: 3, end: 3, speaker: "A" },
    ];
    const spans = transcriptCues(words).map((c) => [c.start, c.end]);
    [[1, 1.05], [1.05, 1.15], [3, 3.1]].forEach(([a, b], i) => {
      expect(spans[i]![0]).toBeCloseTo(a!, 9);
      expect(spans[i]![1]).toBeCloseTo(b!, 9);
    });
  });

  test("plain text has one paragraph per turn with its time and speaker", () => {
    const text = transcriptText(t.segments, { "Speaker 1": "Nora" });
    expect(text.trim().split("\n\n")).toHaveLength(3);
    expect(text).toStartWith("[00:00] Nora: Welcome back");
  });
});

test("chapters follow the Podcasting 2.0 shape", () => {
  expect(podcastChapters("Ep", [{ start: 0.5004, title: "Intro" }, { start: 61.25, title: "Bees" }])).toEqual({
    version: "1.2.0",
    title: "Ep",
    chapters: [{ startTime: 0.5, title: "Intro" }, { startTime: 61.25, title: "Bees" }],
  });
});

test("the timeline has a video track only for video sources, and ranges at the source's frame rate", () => {
  const clips = [{ start_time: 10, end_time: 40.5, hook: "first" }];
  const video = otioTimeline({ title: "Ep", clips, source: { name: "ep.mp4", durationSeconds: 600, fps: 30, hasVideo: true } });
  expect(video.tracks.children.map((c) => c.kind)).toEqual(["Video", "Audio"]);
  expect(video.tracks.children[0]!.children[0]!.source_range).toEqual({
    OTIO_SCHEMA: "TimeRange.1",
    start_time: { OTIO_SCHEMA: "RationalTime.1", rate: 30, value: 300 },
    duration: { OTIO_SCHEMA: "RationalTime.1", rate: 30, value: 915 },
  });
  const audio = otioTimeline({ title: "Ep", clips, source: { name: "ep.mp3", durationSeconds: 600, hasVideo: false } });
  expect(audio.tracks.children.map((c) => c.kind)).toEqual(["Audio"]);
});
