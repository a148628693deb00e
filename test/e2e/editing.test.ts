import { expect } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { probeMedia } from "../../src/media/probe.ts";
import { snapToSentenceEdges } from "../../src/pipeline/highlights/clip-bounds.ts";
import { splitSentences } from "../../src/pipeline/highlights/sentences.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { checkExports, cues } from "../helpers/exports.ts";
import type { TestAppliance } from "../helpers/appliance.ts";
import { CALL_TWO_CLIPS, finishedJob } from "../helpers/finished-job.ts";
import { afterAllShared, testShared } from "../helpers/shared.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * The producer's editing loop (issue 32) on a real recording through the real server: a clip of the
 * producer's own renders with captions and copy; a transcript correction reaches the captions of the
 * clip it touches (read back from the re-rendered clip's SRT), the show notes and the exports; the
 * FCPXML and xmeml timelines, written again by the correction with every clip, read back with
 * OpenTimelineIO's FCP adapters; deleting a clip removes its files; nothing is billed.
 */
let app: TestAppliance;
afterAllShared(() => app?.stop());

/** A request; long renders are polled past the key's rate limit, so a 429 waits out its Retry-After and asks again. */
async function call(method: string, path: string, opts: Parameters<TestAppliance["api"]>[2]) {
  for (;;) {
    const res = await app.api(method, path, opts);
    if (res.status !== 429) return res;
    await Bun.sleep(Number(res.headers.get("retry-after") ?? 1) * 1000);
  }
}

async function jobNow(key: string, id: string): Promise<any> {
  const res = await call("GET", `/v1/jobs/${id}`, { key });
  expect(res.status).toBe(200);
  return res.json;
}

const bareWords = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}']+/u).filter(Boolean);
const srtText = async (url: string) => cues(await (await fetch(url)).text()).map((c) => c.text).join(" ");

testShared("a clip of one's own renders, a correction reaches a re-rendered clip's captions and the notes, and the timelines read back", async () => {
  // The live job on the call, shared with rerender.test.ts (test/helpers/finished-job.ts): this file starts from it finished.
  const finished = await finishedJob(CALL_TWO_CLIPS.recording(), CALL_TWO_CLIPS.options);
  app = finished.app;
  const { key, id } = finished;
  const job = await jobNow(key, id);
  expect(job.error).toBeNull();
  expect(job.status).toBe("complete");
  expect(job.output.timeline_fcpxml_url).toBeDefined();
  const walletBefore = (await call("GET", "/v1/wallet", { key })).json;
  const machine = job.output.clips;

  // 1. A clip of one's own: rough times, snapped to sentence edges, ranked last, rendered by the worker.
  // Rough times around two sentences after the opening, where the snapped clip opens on a word with a
  // duration (a zero-length word alone in a caption chunk shows in no cue, here as in the video).
  const words = JSON.parse(readFileSync(join(app.dataDir, "jobs", id, "checkpoint.json"), "utf8")).state.transcript.words as Word[];
  const sentences = splitSentences(words);
  const ask = sentences
    .slice(1, -1)
    .map((s, i) => ({ start_time: s.start + 0.1, end_time: sentences[i + 2]!.end - 0.1 }))
    .find((a) => {
      const snapped = snapToSentenceEdges(words, a.start_time, a.end_time);
      const opening = snapped && words.find((w) => w.start >= snapped.start - 0.001);
      return snapped && opening && snapped.start > 8 && snapped.end - snapped.start >= 3 && opening.end - opening.start >= 0.1;
    });
  expect(ask).toBeDefined();
  const snapped = snapToSentenceEdges(words, ask!.start_time, ask!.end_time)!;
  const added = await call("POST", `/v1/jobs/${id}/clips`, { key, body: { ...ask, caption_style: "boxed" } });
  expect(added.status).toBe(202);
  expect(added.json.start_time).toBeCloseTo(snapped.start, 3);
  expect(added.json.end_time).toBeCloseTo(snapped.end, 3);
  expect(added.json).toMatchObject({ rank: machine.length + 1, origin: "editor", caption_style: "boxed", render: { status: "queued", formats: ["linkedin", "x"] } });
  expect(added.json.title.length).toBeGreaterThan(0);
  expect(added.json.hashtags.length).toBeGreaterThanOrEqual(3);
  const mine = await eventually(async () => (await jobNow(key, id)).output.clips.find((c: any) => c.id === added.json.id), (c) => ["complete", "failed"].includes(c.render.status), { timeoutMs: 200_000, what: "the new clip's render" });
  expect(mine.render).toMatchObject({ status: "complete", error: null });
  for (const dest of ["linkedin", "x"]) {
    const info = await probeMedia(join(app.dataDir, "jobs", id, "out", mine.rendered_urls[dest].split("/").pop()));
    expect(Math.abs(info.durationSeconds - mine.duration_seconds)).toBeLessThan(0.1);
  }
  const mineCaptions = await srtText(mine.captions_srt_url);
  // Its captions say its sentences (a recogniser's word at the very edge of a clip may fall outside the caption cues).
  const shown = bareWords(mineCaptions);
  const said = bareWords(mine.transcript_text);
  expect(said.length).toBeGreaterThan(3);
  expect(said.filter((w) => shown.includes(w)).length).toBeGreaterThanOrEqual(said.length - 1);

  // 2. A correction: a word the first clip's captions and the show notes both say becomes another.
  const first = machine[0];
  const captionWords = new Set(bareWords(await srtText(first.captions_srt_url)).filter((w) => w.length >= 4 && /^\p{L}+$/u.test(w)));
  const notesWords = new Set(bareWords(job.output.show_notes));
  const word = [...captionWords].find((w) => notesWords.has(w));
  expect(word).toBeDefined();
  const corrected = await call("POST", `/v1/jobs/${id}/transcript/corrections`, { key, body: { replace: [{ find: word, with: "zanzibar" }] }, headers: { "idempotency-key": "editing-e2e-correction" } });
  expect(corrected.status).toBe(202);
  expect(corrected.json.changes).toBeGreaterThan(0);
  expect(corrected.json.clips_rerendered).toContain(first.id);
  expect(corrected.json.trailer_rerendered).toBe(false);
  // Replayed with its key: the first answer; without: nothing left to change.
  expect((await call("POST", `/v1/jobs/${id}/transcript/corrections`, { key, body: { replace: [{ find: word, with: "zanzibar" }] }, headers: { "idempotency-key": "editing-e2e-correction" } })).json).toEqual(corrected.json);
  const replay = await call("POST", `/v1/jobs/${id}/transcript/corrections`, { key, body: { replace: [{ find: word, with: "zanzibar" }] } });
  expect(replay.json).toMatchObject({ changes: 0, clips_rerendered: [] });

  const done = await eventually(
    () => jobNow(key, id),
    (j) => corrected.json.clips_rerendered.every((cid: string) => ["complete", "failed"].includes(j.output.clips.find((c: any) => c.id === cid).render.status)),
    { timeoutMs: 300_000, what: "the corrected clips' renders" },
  );
  const after = done.output.clips.find((c: any) => c.id === first.id);
  expect(after.render).toMatchObject({ status: "complete", error: null });
  expect(after.captions_srt_url).not.toBe(first.captions_srt_url);
  const burned = bareWords(await srtText(after.captions_srt_url));
  expect(burned).toContain("zanzibar");
  expect(burned).not.toContain(word);
  expect(bareWords(after.transcript_text)).toContain("zanzibar");
  expect(bareWords(done.output.show_notes)).toContain("zanzibar");
  expect(bareWords(done.output.show_notes)).not.toContain(word);
  expect(bareWords(done.output.transcript.map((s: any) => s.text).join(" "))).not.toContain(word);
  expect(bareWords(await (await fetch(done.output.transcript_txt_url)).text())).toContain("zanzibar");
  // The replaced export files are gone.
  expect((await fetch(job.output.transcript_srt_url)).status).toBe(404);

  // 3. Every export parses and agrees with the clips, the editor timelines included (read by OpenTimelineIO's FCP adapters).
  const parsed = await checkExports(done);
  expect(parsed.fcpxml![0]!.clips[0]!.markers).toHaveLength(done.output.clips.length);
  expect(parsed.xmeml![0]!.clips[0]!.media).toBe("two_speakers_call.wav");

  // 3b. A speaker correction: the first voice gets a name the conversation did not give. The
  // transcript, its exports and the notes' speakers list show it at once; the audiogram clips where
  // that voice talks (their cards name it) are rendered again.
  const voice = done.output.transcript[0].speaker;
  const renamed = await call("POST", `/v1/jobs/${id}/transcript/corrections`, { key, body: { speakers: [{ speaker: voice, name: "Ada Lovelace" }] } });
  expect(renamed.status).toBe(202);
  expect(renamed.json.changes).toBe(1);
  const voiceTalks = done.output.clips.filter((c: any) => done.output.transcript.some((s: any) => s.speaker === voice && s.start < c.end_time && c.start_time < s.end));
  // (The card follows the diarizer's turns, which run a little past the words: at least these.)
  expect(voiceTalks.length).toBeGreaterThan(0);
  expect(renamed.json.clips_rerendered).toEqual(expect.arrayContaining(voiceTalks.map((c: any) => c.id)));
  const named = await jobNow(key, id);
  expect(named.output.transcript.map((s: any) => s.speaker)).toEqual(done.output.transcript.map((s: any) => (s.speaker === voice ? "Ada Lovelace" : s.speaker)));
  expect(named.output.speaker_names).toContainEqual(expect.objectContaining({ name: "Ada Lovelace", evidence: ["named by the producer (transcript correction)"] }));
  expect(await (await fetch(named.output.transcript_txt_url)).text()).toContain("Ada Lovelace: ");
  expect(named.output.show_notes).toMatch(/^- Ada Lovelace \(Speaker \d+\): /m);
  const renderedAgain = await eventually(
    () => jobNow(key, id),
    (j) => renamed.json.clips_rerendered.every((cid: string) => ["complete", "failed"].includes(j.output.clips.find((c: any) => c.id === cid).render.status)),
    { timeoutMs: 300_000, what: "the renamed voice's clips' renders" },
  );
  for (const cid of renamed.json.clips_rerendered) expect(renderedAgain.output.clips.find((c: any) => c.id === cid).render).toMatchObject({ status: "complete", error: null });

  // 4. Deleting the clip of one's own removes it and its files (as the renders left them).
  const mineNow = renderedAgain.output.clips.find((c: any) => c.id === mine.id);
  const files = [...Object.values(mineNow.rendered_urls), mineNow.captions_srt_url].map((u) => join(app.dataDir, "jobs", id, "out", (u as string).split("/").pop()!));
  expect(files.every((f) => existsSync(f))).toBe(true);
  expect((await call("DELETE", `/v1/jobs/${id}/clips/${mine.id}`, { key })).json).toEqual({ id: mine.id, object: "clip", deleted: true });
  expect(files.some((f) => existsSync(f))).toBe(false);
  expect((await jobNow(key, id)).output.clips.map((c: any) => c.id)).toEqual(machine.map((c: any) => c.id));

  // Nothing billed for any of it.
  expect((await call("GET", "/v1/wallet", { key })).json).toEqual(walletBefore);
}, 900_000);
