import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { probeMedia } from "../../src/media/probe.ts";
import { splitSentences } from "../../src/pipeline/highlights/sentences.ts";
import type { TestAppliance } from "../helpers/appliance.ts";
import { CALL_TWO_CLIPS, finishedJob } from "../helpers/finished-job.ts";
import { eventually } from "../helpers/wait.ts";
import { afterAllShared, testShared } from "../helpers/shared.ts";

/**
 * Re-render (issue #20) on a real live job: one clip gets another caption style and narrower
 * bounds, snapped to the transcript's sentence edges, without a second transcription; only that
 * clip's files change (the other clip's bytes are identical), the new files last exactly the
 * snapped bounds, the old URLs stop serving, and the wallet is not touched.
 */
let running: TestAppliance | undefined;
afterAllShared(() => running?.stop());

const sha = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return new Bun.CryptoHasher("sha256").update(new Uint8Array(await res.arrayBuffer())).digest("hex");
};

async function hashes(clip: any): Promise<string[]> {
  return Promise.all([...Object.values(clip.rendered_urls), clip.captions_srt_url, clip.captions_vtt_url].map((u) => sha(u as string)));
}

testShared("re-rendering one clip changes its caption style and bounds and nothing else", async () => {
  // The live job on the call, shared with editing.test.ts (test/helpers/finished-job.ts): this file starts from it finished.
  const { app, key, id, job } = await finishedJob(CALL_TWO_CLIPS.recording(), CALL_TWO_CLIPS.options);
  running = app;
  expect(job.error).toBeNull();
  expect(job.status).toBe("complete");
  expect(job.output.clips.length).toBe(2);
  const [first, second] = job.output.clips;
  expect(first.caption_style).toBe("karaoke");
  const secondBefore = await hashes(second);
  const walletBefore = (await app.api("GET", "/v1/wallet", { key })).json;

  // Ask for a start a little after the clip's second sentence starts and an end a little before
  // the clip ends: the appliance snaps both to the sentence edges of the job's own transcript.
  const words = JSON.parse(readFileSync(join(app.dataDir, "jobs", id, "checkpoint.json"), "utf8")).state.transcript.words;
  const inside = splitSentences(words).filter((s) => s.start >= first.start_time && s.end <= first.end_time + 0.001);
  expect(inside.length).toBeGreaterThanOrEqual(2);
  const wantStart = inside[1]!.start;
  const lastComplete = [...inside].reverse().find((s) => s.complete && s.end > wantStart)!;
  const askStart = wantStart + 0.15;
  const askEnd = lastComplete.end - 0.15;

  const asked = await app.api("POST", `/v1/jobs/${id}/clips/${first.id}/renders`, { key, body: { caption_style: "boxed", start_time: askStart, end_time: askEnd } });
  expect(asked.status).toBe(202);
  expect(asked.json.id).toBe(first.id);
  expect(asked.json.render).toMatchObject({ status: "queued", caption_style: "boxed", formats: ["linkedin", "x"] });
  expect(asked.json.render.start_time).toBeCloseTo(wantStart, 3);
  expect(asked.json.render.end_time).toBeCloseTo(lastComplete.end, 3);
  // Asking again for the same thing queues nothing more.
  const again = await app.api("POST", `/v1/jobs/${id}/clips/${first.id}/renders`, { key, body: { caption_style: "boxed", start_time: askStart, end_time: askEnd } });
  expect(again.json.render.id).toBe(asked.json.render.id);

  const done = await eventually(async () => (await app.api("GET", `/v1/jobs/${id}`, { key })).json, (j) => ["complete", "failed"].includes(j.output.clips[0].render.status), { timeoutMs: 200_000, what: "the re-render" });
  const [after1, after2] = done.output.clips;
  expect(after1.render.error).toBeNull();
  expect(after1.render.status).toBe("complete");
  expect(after1.caption_style).toBe("boxed");
  expect(after1.start_time).toBeCloseTo(wantStart, 3);
  expect(after1.end_time).toBeCloseTo(lastComplete.end, 3);
  expect(after1.duration_seconds).toBeCloseTo(lastComplete.end - wantStart, 2);
  expect(after1.duration_seconds).toBeLessThan(first.duration_seconds);
  // New file names, so nothing cached serves stale bytes; the old ones are gone.
  for (const dest of ["linkedin", "x"]) {
    expect(after1.rendered_urls[dest]).not.toBe(first.rendered_urls[dest]);
    expect((await fetch(first.rendered_urls[dest])).status).toBe(404);
    const file = join(app.dataDir, "jobs", id, "out", after1.rendered_urls[dest].split("/").pop());
    const info = await probeMedia(file);
    expect(Math.abs(info.durationSeconds - after1.duration_seconds)).toBeLessThan(0.1);
  }
  expect(after1.captions_srt_url).not.toBe(first.captions_srt_url);
  const srt = await (await fetch(after1.captions_srt_url)).text();
  expect(srt).toStartWith("1\n00:00:0");
  // The other clip is untouched, byte for byte.
  expect(after2).toEqual(second);
  expect(await hashes(after2)).toEqual(secondBefore);
  // Nothing billed: the wallet reads the same.
  expect((await app.api("GET", "/v1/wallet", { key })).json).toEqual(walletBefore);
  // The share page serves the new files.
  expect(await (await fetch(done.output.guest_share_url)).text()).toContain(after1.rendered_urls.x.split("/").pop());
}, 600_000);
