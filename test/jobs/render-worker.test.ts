import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKey } from "../../src/accounts/keys.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { ManualClock } from "../../src/clock.ts";
import type { Db } from "../../src/db/client.ts";
import { openTestDb } from "../helpers/db.ts";
import { clipRenders } from "../../src/db/schema.ts";
import { jobOutputDir, jobWorkDir, type StoredOutput } from "../../src/pipeline/output.ts";
import { ClipRenderWorker, TRAILER_RENDER } from "../../src/renders/worker.ts";
import { insertRender } from "../../src/renders/store.ts";
import { EditorClips } from "../../src/jobs/editor-clips.ts";
import { snapToSentenceEdges } from "../../src/pipeline/highlights/clip-bounds.ts";
import { RenderRequests } from "../../src/renders/requests.ts";
import { claimNextJob, getJobById } from "../../src/jobs/store.ts";
import { submitJob } from "../../src/jobs/submit.ts";
import { JobTransitions } from "../../src/jobs/transitions.ts";
import { rerenderLiveClip, type RerenderFn } from "../../src/pipeline/render/rerender.ts";
import { ffmpeg } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { presentJob } from "../../src/jobs/present.ts";

/**
 * The render worker's bookkeeping on a real SQLite database: a worker that dies mid-render loses its
 * lease and the next one finishes the render; a render that fails leaves the clip as it was. The
 * render itself is injected here (writing small files); the real ffmpeg render is test/e2e/rerender.test.ts.
 */
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const words = ["Bees", "swarm.", "Honey", "sells", "well.", "Roofs", "are", "warm."].map((word, i) => ({ word, start: 1 + i * 0.4 + Math.floor(i / 3) * 0.5, end: 1.3 + i * 0.4 + Math.floor(i / 3) * 0.5, speaker: "S1" }));

function completedLiveJob(db: Db, clock: ManualClock) {
  const org = ensureOrg(db, "o", clock);
  createKey(db, org.id, "live", clock);
  const scope = { orgId: org.id, env: "live" as const };
  const id = submitJob(db, clock, scope, { source: { type: "video_url", url: "https://e.com/a.mp4" } }, { requestId: "req_x", timeScale: 1 }).job.id;
  claimNextJob(db, "live", "w", clock.now(), 60_000);
  const out = jobOutputDir(dir, id);
  mkdirSync(out, { recursive: true });
  for (const f of ["clip1_linkedin.mp4", "clip1_x.mp4", "clip1.srt", "clip1.vtt"]) writeFileSync(join(out, f), "old");
  // The checkpoint a live job leaves behind: the re-render reads its transcript.
  writeFileSync(join(jobWorkDir(dir, id), "checkpoint.json"), JSON.stringify({ done: [], state: { transcript: { language: "en", segments: [], words } } }));
  const output: StoredOutput = {
    clips: [{ id: "clip_a1", rank: 1, category: "story", hook: "h", pull_quote: "q", start_time: 1, end_time: 5.2, duration_seconds: 4.2, transcript_text: "t", files: { linkedin: "job:clip1_linkedin.mp4", x: "job:clip1_x.mp4" }, captions: { srt: "job:clip1.srt", vtt: "job:clip1.vtt" } }],
    trailer: null,
    show_notes: "# n",
    transcript: [],
  };
  new JobTransitions(db, clock, "secret").complete(id, output, { from: ["processing"] });
  return { id, scope, out };
}

const clipOf = (db: Db, id: string) => (JSON.parse(getJobById(db, id)!.output!) as StoredOutput).clips[0]!;

test("a worker that dies mid-render loses its lease; the next finishes it and swaps in the new files", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-render-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const db = openTestDb(dir);
  const { id, scope, out } = completedLiveJob(db, clock);
  const requests = new RenderRequests(db, clock, dir, () => {});
  const { clip } = requests.request(scope, id, "clip_a1", { caption_style: "boxed", start_time: 2.6, end_time: 5 });
  expect(clip.render).toMatchObject({ status: "queued", caption_style: "boxed", formats: ["linkedin", "x"] });
  const snapped = { start: clip.render!.start_time, end: clip.render!.end_time };

  let dead = true;
  const render: RerenderFn = async (input) => {
    if (dead) await new Promise(() => {}); // the process "dies" mid-render
    for (const f of input.formats) writeFileSync(join(out, `clip1_${input.tag}_${f}.mp4`), "new");
    writeFileSync(join(out, `clip1_${input.tag}.srt`), "new");
    writeFileSync(join(out, `clip1_${input.tag}.vtt`), "new");
    return { files: Object.fromEntries(input.formats.map((f) => [f, `job:clip1_${input.tag}_${f}.mp4`])), captions: { srt: `job:clip1_${input.tag}.srt`, vtt: `job:clip1_${input.tag}.vtt` }, transcript_text: "Honey sells well." };
  };
  const first = new ClipRenderWorker(db, clock, dir, render);
  void first.tick();
  expect(clipOf(db, id).render!.status).toBe("rendering");
  // Before the lease lapses nobody else takes it; after, the next worker does.
  const second = new ClipRenderWorker(db, clock, dir, render);
  await second.tick();
  expect(clipOf(db, id).render!.status).toBe("rendering");
  clock.advance(121_000);
  dead = false;
  await second.tick();
  const after = clipOf(db, id);
  expect(after).toMatchObject({ caption_style: "boxed", start_time: snapped.start, end_time: snapped.end, transcript_text: "Honey sells well.", render: { status: "complete", error: null } });
  expect(after.files.x).toMatch(/^job:clip1_\w{8}_x\.mp4$/);
  expect(db.select().from(clipRenders).get()).toMatchObject({ status: "complete", attempts: 2, leaseOwner: null });
  // The replaced files are deleted; the new ones exist.
  for (const f of ["clip1_linkedin.mp4", "clip1_x.mp4", "clip1.srt", "clip1.vtt"]) expect(existsSync(join(out, f))).toBe(false);
  for (const ref of [...Object.values(after.files), after.captions!.srt]) expect(existsSync(join(out, ref.slice(4)))).toBe(true);
  // The "dead" worker's render never returns; stopping it ends its heartbeat before the database closes
  // (left running, it wrote into the closed database 30 s later, failing whichever test ran then).
  await first.stop(0);
  db.$client.close();
});

test("a render that fails leaves the clip's files and bounds as they were and says so", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-render-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const db = openTestDb(dir);
  const { id, scope, out } = completedLiveJob(db, clock);
  const before = clipOf(db, id);
  new RenderRequests(db, clock, dir, () => {}).request(scope, id, "clip_a1", { caption_style: "minimal" });
  await new ClipRenderWorker(db, clock, dir, async () => {
    throw new Error("ffmpeg exited 1");
  }).tick();
  const after = clipOf(db, id);
  expect(after.render).toMatchObject({ status: "failed", caption_style: "minimal" });
  expect(after.render!.error).toContain("could not be rendered");
  expect(after.render!.error).not.toContain("ffmpeg");
  expect({ ...after, render: undefined }).toEqual({ ...before, render: undefined });
  expect(existsSync(join(out, "clip1_x.mp4"))).toBe(true);
  db.$client.close();
});

test("a queued trailer render replaces the trailer's file in the output and deletes the old one", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-render-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const db = openTestDb(dir);
  const { id, out } = completedLiveJob(db, clock);
  const job = getJobById(db, id)!;
  const output = JSON.parse(job.output!) as StoredOutput;
  output.trailer = { file: "job:trailer.mp4", duration_seconds: 61 };
  writeFileSync(join(out, "trailer.mp4"), "old");
  db.$client.query("UPDATE jobs SET output = ? WHERE id = ?").run(JSON.stringify(output), id);
  insertRender(db, { id: "rnd_trailer0001", jobId: id, orgId: job.orgId, env: "live", clipId: TRAILER_RENDER, params: JSON.stringify({ caption_style: "bold" }), idempotencyKey: null, requestHash: "h", status: "queued", createdAt: clock.now() });
  const asked: unknown[] = [];
  const worker = new ClipRenderWorker(db, clock, dir, async () => { throw new Error("no clip render expected"); }, undefined, async (input) => {
    asked.push(input);
    writeFileSync(join(out, `trailer_${input.tag}.mp4`), "new");
    return { file: `job:trailer_${input.tag}.mp4`, duration_seconds: 60.5 };
  });
  await worker.tick();
  expect(asked).toEqual([{ dataDir: dir, jobId: id, tag: "iler0001", style: "bold" }]);
  const after = JSON.parse(getJobById(db, id)!.output!) as StoredOutput;
  expect(after.trailer).toEqual({ file: "job:trailer_iler0001.mp4", duration_seconds: 60.5 });
  expect(existsSync(join(out, "trailer.mp4"))).toBe(false);
  expect(existsSync(join(out, "trailer_iler0001.mp4"))).toBe(true);
  expect(db.select().from(clipRenders).all().find((r) => r.id === "rnd_trailer0001")).toMatchObject({ status: "complete", error: null });
  // The clip is untouched.
  expect(after.clips).toEqual(output.clips);
  await worker.stop();
});

test("a live clip of one's own is queued on the render worker, counted against the organisation's cap on queued renders", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-render-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const db = openTestDb(dir);
  const { id, scope } = completedLiveJob(db, clock);
  let woken = 0;
  const clips = new EditorClips(db, clock, dir, () => woken++, undefined, 1);
  const { clip, created } = clips.create(scope, id, { start_time: 2.4, end_time: 4.9 });
  expect(created).toBe(true);
  expect(clip).toMatchObject({ rank: 2, origin: "editor", files: {}, render: { status: "queued", formats: ["linkedin", "x"] } });
  const snapped = snapToSentenceEdges(words, 2.4, 4.9)!;
  expect([clip.start_time, clip.end_time]).toEqual([snapped.start, snapped.end]);
  expect(woken).toBe(1);
  expect(db.select().from(clipRenders).all().filter((r) => r.clipId === clip.id && r.status === "queued")).toHaveLength(1);
  // The same clip asked again answers it and queues nothing; another one waits for the queue to drain.
  expect(clips.create(scope, id, { start_time: 2.4, end_time: 4.9 })).toMatchObject({ created: false, clip: { id: clip.id } });
  expect(() => clips.create(scope, id, { start_time: 2.4, end_time: 4.9, caption_style: "minimal" })).toThrow(expect.objectContaining({ code: "too_many_queued_renders" }));
  expect((JSON.parse(getJobById(db, id)!.output!) as StoredOutput).clips).toHaveLength(2);
});

test("a re-render whose cover cannot be written completes without thumbnails and says so on the clip's render", async () => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-render-"));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const db = openTestDb(dir);
  const { id, scope, out } = completedLiveJob(db, clock);
  // A real checkpoint to render from: a 6-second audio episode (the clip becomes an audiogram).
  const episode = join(jobWorkDir(dir, id), "episode.wav");
  await ffmpeg(["-y", "-f", "lavfi", "-i", "sine=frequency=220:duration=6", "-ar", "48000", episode]);
  const source = await probeMedia(episode);
  writeFileSync(join(jobWorkDir(dir, id), "checkpoint.json"), JSON.stringify({
    done: [], state: { source, transcript: { language: "en", segments: [], words }, plan: { clips: [], showNotes: "# Bees", similarity: "tfidf", warnings: [] }, brand: null, warnings: [], engine: {} },
  }));
  const { clip } = new RenderRequests(db, clock, dir, () => {}).request(scope, id, "clip_a1", { caption_style: "boxed", formats: ["x"] });
  // The cover's file name is taken by a folder (a stale leftover, a full inode table: anything that
  // makes ffmpeg's write fail); the clip itself renders.
  const tag = clip.render!.id.slice(-8);
  mkdirSync(join(out, `clip1_${tag}_x.jpg`));
  await new ClipRenderWorker(db, clock, dir, rerenderLiveClip).tick();
  const after = clipOf(db, id);
  expect(after.render).toMatchObject({ status: "complete", error: null, warnings: ["clip 1 has no thumbnail: it could not be made; the appliance's log has the details"] });
  expect(after.thumbnails).toBeUndefined();
  expect(after.files).toEqual({ x: `job:clip1_${tag}_x.mp4` });
  expect(existsSync(join(out, `clip1_${tag}_x.mp4`))).toBe(true);
  // The API shows it on the clip's render.
  const shown = presentJob(getJobById(db, id)!, { publicUrl: "http://studio.lan:8787", shareSecret: "s" }).output!.clips[0]!;
  expect(shown.render!.warnings).toEqual(after.render!.warnings!);
  expect(shown.thumbnail_urls).toBeUndefined();

  // The next render that makes its cover clears the warning.
  const again = new RenderRequests(db, clock, dir, () => {}).request(scope, id, "clip_a1", { caption_style: "minimal", formats: ["x"] });
  await new ClipRenderWorker(db, clock, dir, rerenderLiveClip).tick();
  const fixed = clipOf(db, id);
  expect(fixed.render).toMatchObject({ id: again.clip.render!.id, status: "complete" });
  expect(fixed.render!.warnings).toBeUndefined();
  expect(Object.keys(fixed.thumbnails!)).toEqual(["x"]);
  db.$client.close();
}, 120_000);
