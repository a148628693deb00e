import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findOrgByName } from "../../src/accounts/orgs.ts";
import { ClipRenderWorker } from "../../src/renders/worker.ts";
import { claimNextJob } from "../../src/jobs/store.ts";
import { submitJob } from "../../src/jobs/submit.ts";
import { JobTransitions } from "../../src/jobs/transitions.ts";
import { jobOutputDir, jobWorkDir, type StoredOutput } from "../../src/pipeline/output.ts";
import type { RerenderFn } from "../../src/pipeline/render/rerender.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";

/**
 * The re-render queue is shared fairly (issue 36.6): requests go through the real server; an
 * organisation may have CLIPYARD_MAX_QUEUED_RENDERS_PER_ORG re-renders queued or rendering (more get
 * 429 too_many_queued_renders with Retry-After), and the render worker takes them round-robin across
 * organisations, so a burst delays another organisation's first render by one render at most. The
 * worker runs on the appliance's database with the render itself injected (it records the order and
 * writes small files); the real ffmpeg render is test/e2e/rerender.test.ts.
 */

const MAX = 10;
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false, env: { CLIPYARD_MAX_QUEUED_RENDERS_PER_ORG: String(MAX) } });
});
afterAll(() => app.stop());

const words = ["Bees", "swarm.", "Honey", "sells", "well.", "Roofs", "are", "warm."].map((word, i) => ({ word, start: 1 + i * 0.4, end: 1.3 + i * 0.4, speaker: "S1" }));

/** A complete live job of `org` with one clip and the checkpoint a re-render reads. */
function completedLiveJob(org: string): { key: string; id: string } {
  const key = app.key(org, "live");
  const { db, clock } = app.ctx;
  const scope = { orgId: findOrgByName(db, org)!.id, env: "live" as const };
  const id = submitJob(db, clock, scope, { source: { type: "video_url", url: "https://e.com/a.mp4" } }, { requestId: "req_x", timeScale: 1 }).job.id;
  expect(claimNextJob(db, "live", "w", clock.now(), 60_000)?.id).toBe(id);
  mkdirSync(jobOutputDir(app.dataDir, id), { recursive: true });
  writeFileSync(join(jobWorkDir(app.dataDir, id), "checkpoint.json"), JSON.stringify({ done: [], state: { transcript: { language: "en", segments: [], words } } }));
  const output: StoredOutput = {
    clips: [{ id: "clip_a1", rank: 1, category: "story", hook: "h", pull_quote: "q", start_time: 1, end_time: 2.3, duration_seconds: 1.3, transcript_text: "t", files: { x: "job:clip1_x.mp4" }, captions: { srt: "job:clip1.srt", vtt: "job:clip1.vtt" } }],
    trailer: null,
    show_notes: "# n",
    transcript: [],
  };
  new JobTransitions(db, clock, "secret").complete(id, output, { from: ["processing"] });
  return { key, id };
}

const STYLES = ["minimal", "boxed"] as const;
const rerender = (job: { key: string; id: string }, i: number, key = job.key) =>
  app.api("POST", `/v1/jobs/${job.id}/clips/clip_a1/renders`, { key, body: { caption_style: STYLES[i % 2] } });

test("a burst of 60 re-render requests queues 10 renders and gets 429 for every further one; another organisation's render runs second", async () => {
  const a = completedLiveJob("renders-burst-a");
  const b = completedLiveJob("renders-burst-b");
  // Two keys of A's organisation, 30 requests each (a key's write budget is 60 a minute): the bound
  // is the organisation's, whichever key asks.
  const keys = [app.key("renders-burst-a", "live"), app.key("renders-burst-a", "live")];
  const answers = [];
  for (let i = 0; i < 60; i++) answers.push(await rerender(a, i, keys[i % 2]));
  // Requests alternate two styles: each one that would change the clip queues a render until the
  // bound; after it, those are refused and the others (asking for what the latest render already
  // will make) queue nothing and answer 202 with that render.
  const queued = new Set(answers.filter((r) => r.status === 202).map((r) => r.json.render.id));
  expect(queued.size).toBe(MAX);
  const refused = answers.filter((r) => r.status !== 202);
  expect(refused).toHaveLength((60 - MAX) / 2);
  for (const r of refused) {
    expect(r.status).toBe(429);
    expect(r.json.error).toMatchObject({ type: "rate_limit_error", code: "too_many_queued_renders" });
    expect(r.json.error.message).toContain(`${MAX} re-renders queued or rendering`);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  }
  // The bound is per organisation: B's first request is accepted.
  expect((await rerender(b, 0)).status).toBe(202);

  const order: string[] = [];
  const render: RerenderFn = async (input) => {
    order.push(input.jobId === a.id ? "A" : "B");
    const out = jobOutputDir(app.dataDir, input.jobId);
    for (const f of input.formats) writeFileSync(join(out, `clip1_${input.tag}_${f}.mp4`), "new");
    return { files: Object.fromEntries(input.formats.map((f) => [f, `job:clip1_${input.tag}_${f}.mp4`])), captions: { srt: "job:clip1.srt", vtt: "job:clip1.vtt" }, transcript_text: "" };
  };
  const worker = new ClipRenderWorker(app.ctx.db, app.ctx.clock, app.dataDir, render);
  await worker.tick();
  // One of A's renders finished: A may queue one more.
  expect((await rerender(a, MAX)).status).toBe(202);
  expect((await rerender(a, MAX + 1)).status).toBe(429);
  while (order.length < MAX + 2) await worker.tick();
  await worker.tick();
  // A's burst came first, yet B's render was the second one made: it waited for one render only.
  expect(order).toEqual(["A", "B", ...Array(MAX).fill("A")]);
  const clip = (await app.api("GET", `/v1/jobs/${b.id}`, { key: b.key })).json.output.clips[0];
  expect(clip.render).toMatchObject({ status: "complete", caption_style: "minimal" });
  await worker.stop();
});
