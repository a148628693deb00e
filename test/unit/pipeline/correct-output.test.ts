import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobRow } from "../../../src/db/schema.ts";
import { correctLiveJob } from "../../../src/pipeline/correct-output.ts";
import { exportRefs, writeExports } from "../../../src/pipeline/exports.ts";
import type { LiveState } from "../../../src/pipeline/live.ts";
import { jobOutputDir, jobWorkDir, type StoredOutput } from "../../../src/pipeline/output.ts";
import type { ClipPlan, Word } from "../../../src/pipeline/types.ts";

/**
 * A correction applied to a finished live job's checkpoint, output and files (real files in a temp
 * data directory): which clips' captions changed, whether the trailer's passages did, and what was
 * written again.
 */
const dataDir = mkdtempSync(join(tmpdir(), "clipyard-correct-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// 40 sentences of five words, 2.5 s each with a pause between: "Sentence N talks about beehides."
const words: Word[] = Array.from({ length: 40 }, (_, n) =>
  ["Sentence", `${n + 1}`, "talks", "about", n % 10 === 3 ? "beehides." : "honey."].map((w, k) => ({ word: ` ${w}`, start: n * 3 + k * 0.5, end: n * 3 + k * 0.5 + 0.4, speaker: "SPEAKER_00" })),
).flat();

function plan(rank: number, start: number, end: number): ClipPlan {
  return { rank, category: "insight", hook: "About beehides.", pull_quote: "Beehides talk.", start_time: start, end_time: end, transcript_text: "Sentence talks about beehides.", score: 50, reason: "r", title: "Beehides on Roofs", description: "About beehides.", hashtags: ["#Beehides", "#Honey", "#Roofs"] };
}

function setUp(id: string, withTrailer: boolean) {
  const job = { id, sourceType: "file", sourceUrl: "/tmp/ep.mp4", options: "{}" } as unknown as JobRow;
  const out = jobOutputDir(dataDir, id);
  mkdirSync(out, { recursive: true });
  // Clip 1 holds a "beehides" sentence (sentence 4 at 9-11.4 s); clip 2 (sentences 6-9, 15-26.4 s) has none.
  const clips = [plan(1, 9, 14.4), plan(2, 15, 26.4)];
  const passages = [plan(3, 30, 120)];
  const state: LiveState = {
    source: { path: "/tmp/ep.mp4", durationSeconds: 120, hasVideo: true, hasAudio: true, fps: 25 } as LiveState["source"],
    transcript: { language: "en", words, segments: [{ speaker: "SPEAKER_00", start: 0, end: 119.4, text: "all" }] },
    plan: { clips, showNotes: "# Beehides on roofs\n\nWe talk about beehides.", chapters: [{ start: 0, title: "Beehides" }], similarity: "x", warnings: [] },
    rendered: clips.map((p) => ({ plan: p, files: {} })),
    trailerExtras: withTrailer ? passages : [],
    warnings: [],
    engine: {},
  };
  writeFileSync(join(jobWorkDir(dataDir, id), "checkpoint.json"), JSON.stringify({ done: [], state }));
  const files = writeExports(out, { title: "Beehides", words, segments: state.transcript!.segments, chapters: state.plan!.chapters!, clips, source: { name: "ep.mp4", durationSeconds: 120, fps: 25, hasVideo: true } });
  const output: StoredOutput = {
    clips: clips.map((p, i) => ({ ...p, id: `clip_${i + 1}`, duration_seconds: p.end_time - p.start_time, files: {} })),
    trailer: withTrailer ? { file: "job:trailer.mp4", duration_seconds: 66 } : null,
    show_notes: state.plan!.showNotes,
    transcript: state.transcript!.segments,
    exports: exportRefs(files, "job"),
  };
  return { job, output, out };
}

test("a swap in one clip's words re-renders that clip only, rewrites the copy, notes, checkpoint and exports under new names", () => {
  const { job, output, out } = setUp("job_a", false);
  const outcome = correctLiveJob(dataDir, job, output, { replace: [{ find: "beehides", with: "beehives" }] }, "t1")!;
  expect(outcome).toEqual({ changes: 4, captionsChanged: ["clip_1"], trailerChanged: false });
  expect(output.clips[0]).toMatchObject({ hook: "About beehives.", pull_quote: "Beehives talk.", title: "Beehives on Roofs", hashtags: ["#Beehives", "#Honey", "#Roofs"] });
  expect(output.show_notes).toBe("# Beehives on roofs\n\nWe talk about beehives.");
  expect(output.exports!.transcript_srt).toBe("job:transcript_t1.srt");
  expect(output.exports!.timeline_fcpxml).toBe("job:timeline_t1.fcpxml");
  expect(readFileSync(join(out, "transcript_t1.srt"), "utf8")).toContain("beehives");
  expect(readFileSync(join(out, "transcript_t1.srt"), "utf8")).not.toContain("beehides");
  expect(readFileSync(join(out, "notes.md"), "utf8")).toContain("Beehives on roofs");
  const cp = JSON.parse(readFileSync(join(jobWorkDir(dataDir, "job_a"), "checkpoint.json"), "utf8")).state as LiveState;
  expect(cp.transcript!.words.filter((w) => w.word.includes("beehives"))).toHaveLength(4);
  expect(cp.plan!.chapters![0]!.title).toBe("Beehives");
  // The old exports are still on disk: the caller deletes what the output no longer names.
  expect(readdirSync(out)).toContain("transcript.srt");
  // Applied again: nothing left to change, nothing written.
  expect(correctLiveJob(dataDir, job, output, { replace: [{ find: "beehides", with: "beehives" }] }, "t2")).toEqual({ changes: 0, captionsChanged: [], trailerChanged: false });
  expect(readdirSync(out)).not.toContain("transcript_t2.srt");
});

test("the trailer is re-rendered only when a changed word falls in its passages", () => {
  const a = setUp("job_b", true);
  // Sentence 2 (3-5.4 s) is in no clip and no trailer passage.
  expect(correctLiveJob(dataDir, a.job, a.output, { words: [{ start_time: 3, end_time: 3.45, text: "Phrase" }] }, "t1")).toEqual({ changes: 1, captionsChanged: [], trailerChanged: false });
  // Sentence 14 (39-41.4 s) is in the trailer's passages only.
  expect(correctLiveJob(dataDir, a.job, a.output, { replace: [{ find: "beehides", with: "beehives" }] }, "t2")!.trailerChanged).toBe(true);
});

test("a clip whose pending render moves it onto the corrected words is re-rendered, though its present bounds miss them", () => {
  const { job, output } = setUp("job_pending", false);
  // Clip 2 (15-26.4 s) is being moved to start at sentence 4 (9 s), which holds "beehides".
  const now = Date.now();
  output.clips[1]!.render = { id: "rnd_x", status: "rendering", caption_style: "bold", start_time: 9, end_time: 26.4, formats: ["x"], requested_at: now, completed_at: null, error: null };
  const outcome = correctLiveJob(dataDir, job, output, { replace: [{ find: "beehides", with: "beehives" }] }, "t1")!;
  expect(outcome.captionsChanged).toEqual(["clip_1", "clip_2"]);
  // A failed render's bounds are not where the clip is going: only the present ones count.
  const b = setUp("job_failed", false);
  b.output.clips[1]!.render = { id: "rnd_y", status: "failed", caption_style: "bold", start_time: 9, end_time: 26.4, formats: ["x"], requested_at: now, completed_at: now, error: "x" };
  expect(correctLiveJob(dataDir, b.job, b.output, { replace: [{ find: "beehides", with: "beehives" }] }, "t1")!.captionsChanged).toEqual(["clip_1"]);
});

/** Three voices over the 40 sentences: Speaker 1 says 1-20, Ana (Speaker 2) 21-30, Speaker 3 31-40 (really Ana). */
function setUpVoices(id: string, hasVideo: boolean) {
  const voice = (n: number) => (n < 20 ? "Speaker 1" : n < 30 ? "Speaker 2" : "Speaker 3");
  const spoken = words.map((w) => ({ ...w, speaker: voice(Math.floor(w.start / 3)) }));
  const a = setUp(id, false);
  const cpPath = join(jobWorkDir(dataDir, id), "checkpoint.json");
  const cp = JSON.parse(readFileSync(cpPath, "utf8"));
  const turns = [
    { speaker: "Speaker 1", start: 0, end: 59.4 },
    { speaker: "Speaker 2", start: 60, end: 89.4 },
    { speaker: "Speaker 3", start: 90, end: 119.4 },
  ];
  cp.state.source.hasVideo = hasVideo;
  cp.state.transcript = {
    language: "en",
    words: spoken,
    segments: turns.map((t) => ({ ...t, text: "…" })),
    speakerTurns: turns,
    speakerNames: { "Speaker 2": "Ana" },
    speakerNameEvidence: [{ speaker: "Speaker 2", name: "Ana", evidence: ["introduced"] }],
  };
  writeFileSync(cpPath, JSON.stringify(cp));
  // Clip 1 is Speaker 1's (9-14.4 s), clip 2 Speaker 3's (90-100 s), clip 3 Ana's, credited to her (60-70 s).
  const third = { ...a.output.clips[0]!, id: "clip_3", start_time: 60, end_time: 70, description: "Ana: Sentence 21 talks about honey." };
  a.output.clips[1] = { ...a.output.clips[1]!, start_time: 90, end_time: 100 };
  a.output.clips.push(third);
  return a;
}

test("speakers: a merge re-renders the clips over the merged voice's turns and the transcript shows the person; on video a rename re-renders nothing", () => {
  const { job, output } = setUpVoices("job_voices", true);
  const merged = correctLiveJob(dataDir, job, output, { speakers: [{ speaker: "Speaker 3", same_as: "ana" }] }, "s1")!;
  expect(merged).toEqual({ changes: 1, captionsChanged: ["clip_2"], trailerChanged: false });
  expect(new Set(output.transcript.map((s) => s.speaker))).toEqual(new Set(["Speaker 1", "Ana"]));
  const cp = JSON.parse(readFileSync(join(jobWorkDir(dataDir, "job_voices"), "checkpoint.json"), "utf8")).state as LiveState;
  expect(cp.transcript!.words.some((w) => w.speaker === "Speaker 3")).toBe(false);
  expect(cp.transcript!.speakerTurns).toEqual([
    { speaker: "Speaker 1", start: 0, end: 59.4 },
    { speaker: "Speaker 2", start: 60, end: 89.4 },
    { speaker: "Speaker 2", start: 90, end: 119.4 },
  ]);
  const renamed = correctLiveJob(dataDir, job, output, { speakers: [{ speaker: "Ana", name: "Ana Reyes" }] }, "s2")!;
  expect(renamed).toEqual({ changes: 1, captionsChanged: [], trailerChanged: false });
  expect(output.clips.find((c) => c.id === "clip_3")!.description).toBe("Ana Reyes: Sentence 21 talks about honey.");
  expect(output.speaker_names).toEqual([{ speaker: "Speaker 2", name: "Ana Reyes", evidence: ["named by the producer (transcript correction)"] }]);
  expect(output.transcript.map((s) => s.speaker)).toContain("Ana Reyes");
  expect(readFileSync(join(jobOutputDir(dataDir, "job_voices"), "transcript_s2.srt"), "utf8")).toContain("Ana Reyes:");
  expect(JSON.parse(readFileSync(join(jobOutputDir(dataDir, "job_voices"), "transcript.json"), "utf8")).speaker_names[0].name).toBe("Ana Reyes");
});

test("speakers: on an audiogram (cards name the voice) a rename re-renders the clips where that voice talks", () => {
  const { job, output } = setUpVoices("job_voices_audio", false);
  expect(correctLiveJob(dataDir, job, output, { speakers: [{ speaker: "Speaker 1", name: "Nora" }] }, "s1")!.captionsChanged).toEqual(["clip_1"]);
  expect(correctLiveJob(dataDir, job, output, { speakers: [{ speaker: "Speaker 3", same_as: "Ana" }] }, "s2")!.captionsChanged).toEqual(["clip_2"]);
});

test("speakers: words given to another voice re-render the clips over them, on video too", () => {
  const { job, output } = setUpVoices("job_voices_span", true);
  // Sentence 4 (9-11.4 s, in clip 1) was Speaker 1's: it is Ana's.
  const outcome = correctLiveJob(dataDir, job, output, { speakers: [{ speaker: "Ana", start_time: 9, end_time: 11.5 }] }, "s1")!;
  expect(outcome).toEqual({ changes: 1, captionsChanged: ["clip_1"], trailerChanged: false });
  expect(output.transcript.filter((s) => s.speaker === "Ana").some((s) => s.start === 9)).toBe(true);
});
