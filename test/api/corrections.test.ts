import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * POST /v1/jobs/{id}/transcript/corrections through the real server with sandbox jobs (which have
 * the fixture's turns and no word timings, so `replace` swaps their stored text and nothing is
 * rendered): happy path, replays, Idempotency-Key, validation and state errors, another
 * organisation's and the other world's jobs, no charge. The live correction, with its re-rendered
 * captions, is test/e2e/editing.test.ts.
 */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.005" } });
});
afterAll(() => app.stop());

async function finished(key: string, body: unknown = VIDEO_BODY) {
  const created = await app.api("POST", "/v1/jobs", { key, body });
  return eventually(async () => (await app.api("GET", `/v1/jobs/${created.json.id}`, { key })).json, (j) => j.status === "complete" || j.status === "failed", { what: "the sandbox job" });
}

const correct = (key: string, job: string, body: unknown, headers: Record<string, string> = {}) => app.api("POST", `/v1/jobs/${job}/transcript/corrections`, { key, body, headers });

test("replace swaps whole words in the transcript, the clips' copy and the show notes; a replay changes nothing; nothing is billed", async () => {
  const key = app.key("corrections-happy");
  const job = await finished(key);
  const wallet = (await app.api("GET", "/v1/wallet", { key })).json;
  const res = await correct(key, job.id, { replace: [{ find: "bus shelter", with: "tram stop" }, { find: "sunburned", with: "sunburnt" }] });
  expect(res.status).toBe(202);
  expect(res.json).toMatchObject({ object: "transcript_correction", job_id: job.id, clips_rerendered: [], trailer_rerendered: false });
  expect(res.json.id).toMatch(/^cor_/);
  expect(res.json.changes).toBeGreaterThan(0);
  const after = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  const all = JSON.stringify(after.output);
  expect(JSON.stringify(job.output)).toMatch(/bus shelter/i);
  expect(all).not.toMatch(/bus shelter|sunburned/i);
  expect(after.output.transcript[0].text).toContain("slightly sunburnt, is my co-host");
  const clip = after.output.clips[0];
  expect(clip.hook).toBe("My first hive swarmed in June, and half the colony left and settled on the tram stop.");
  expect(clip.title).toBe("The Day My Bees Swarmed a Tram Stop");
  expect(clip.hashtags).toContain("#TramStop");
  expect(after.output.show_notes).toContain("tram stop");
  // Everything else stays: ids, times, files.
  expect(after.output.clips.map((c: any) => [c.id, c.start_time, c.end_time, c.rendered_urls])).toEqual(job.output.clips.map((c: any) => [c.id, c.start_time, c.end_time, c.rendered_urls]));
  // The same correction again: nothing left to change.
  const again = await correct(key, job.id, { replace: [{ find: "bus shelter", with: "tram stop" }, { find: "sunburned", with: "sunburnt" }] });
  expect(again.status).toBe(202);
  expect(again.json.changes).toBe(0);
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json).toEqual(after);
  expect((await app.api("GET", "/v1/wallet", { key })).json).toEqual(wallet);
});

test("Idempotency-Key replays the first answer and refuses a different body, across re-renders and new clips too", async () => {
  const key = app.key("corrections-idempotent");
  const job = await finished(key);
  const headers = { "idempotency-key": "correction-key-0001" };
  const body = { replace: [{ find: "honey", with: "nectar" }] };
  const first = await correct(key, job.id, body, headers);
  expect(first.status).toBe(202);
  expect(first.json.changes).toBeGreaterThan(0);
  const replay = await correct(key, job.id, body, headers);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.json).toEqual(first.json);
  const other = await correct(key, job.id, { replace: [{ find: "honey", with: "syrup" }] }, headers);
  expect(other.status).toBe(409);
  expect(other.json.error).toMatchObject({ code: "idempotency_key_reused_with_different_body", type: "idempotency_error" });
  const asRender = await app.api("POST", `/v1/jobs/${job.id}/clips/${job.output.clips[0].id}/renders`, { key, body: { caption_style: "boxed" }, headers });
  expect(asRender.json.error.code).toBe("idempotency_key_reused_with_different_body");
  expect((await correct(key, job.id, body, { "idempotency-key": "short" })).json.error.code).toBe("invalid_idempotency_key");
});

test("bad bodies get the error envelope naming the field; a job not complete is refused", async () => {
  const key = app.key("corrections-errors");
  const job = await finished(key);
  const cases: Array<[unknown, string]> = [
    [{}, "replace"],
    [{ replace: [] }, "replace"],
    [{ replace: [{ find: "x" }] }, "replace.0.with"],
    [{ replace: [{ find: "", with: "y" }] }, "replace.0.find"],
    [{ replace: [{ find: "...", with: "y" }] }, "replace.0.find"],
    [{ replace: [{ find: "a", with: "b", case: true }] }, "replace.0.case"],
    [{ words: [{ start_time: 5, end_time: 4, text: "x" }] }, "words.0.end_time"],
    [{ words: [{ start_time: -1, end_time: 4, text: "x" }] }, "words.0.start_time"],
    [{ words: [{ start_time: 1, end_time: 4 }] }, "words.0.text"],
    [{ replace: [{ find: "a", with: "b" }], add_to_vocabulary: "yes" }, "add_to_vocabulary"],
    [{ replace: Array.from({ length: 101 }, () => ({ find: "a", with: "b" })) }, "replace"],
    [{ speakers: [] }, "speakers"],
    [{ speakers: [{ speaker: "Speaker 1" }] }, "speakers.0.name"],
    [{ speakers: [{ speaker: "Speaker 1", name: "Ann", same_as: "Speaker 2" }] }, "speakers.0.name"],
    [{ speakers: [{ speaker: "Speaker 1", name: "<b>Ann</b>" }] }, "speakers.0.name"],
    [{ speakers: [{ speaker: "Speaker 1", name: "   " }] }, "speakers.0.name"],
    [{ speakers: [{ speaker: "", name: "Ann" }] }, "speakers.0.speaker"],
    [{ speakers: [{ speaker: "Speaker 1", name: "Ann", role: "host" }] }, "speakers.0.role"],
    [{ speakers: [{ speaker: "Speaker 1", start_time: 3 }] }, "speakers.0.end_time"],
    [{ speakers: [{ speaker: "Speaker 1", start_time: 3, end_time: 2 }] }, "speakers.0.end_time"],
    [{ speakers: [{ speaker: "Speaker 1", name: "Ann", start_time: 3, end_time: 4 }] }, "speakers.0.name"],
    [{ speakers: [{ speaker: "<i>Kyle</i>", start_time: 3, end_time: 4 }] }, "speakers.0.speaker"],
    [{ speakers: [{ speaker: "Kyle", start_time: 9000, end_time: 9001 }] }, "speakers.0.start_time"],
    // Valid in shape, refused on the transcript: no such voice, a voice as itself, a name another voice has.
    [{ speakers: [{ speaker: "Speaker 7", name: "Ann" }] }, "speakers.0.speaker"],
    [{ speakers: [{ speaker: "Speaker 1", name: "Ann" }, { speaker: "Speaker 2", same_as: "Bob" }] }, "speakers.1.same_as"],
    [{ speakers: [{ speaker: "Speaker 2", same_as: "speaker 2" }] }, "speakers.0.same_as"],
    [{ speakers: [{ speaker: "Speaker 1", name: "Ann" }, { speaker: "Speaker 2", name: "ann" }] }, "speakers.1.name"],
  ];
  for (const [body, param] of cases) {
    const res = await correct(key, job.id, body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "invalid_body", param, request_id: res.headers.get("x-request-id") });
  }
  expect((await app.api("POST", `/v1/jobs/${job.id}/transcript/corrections`, { key, raw: "[" })).status).toBe(400);
  const failed = await finished(key, { source: { type: "video_url", url: "https://media.example.com/fail.mp4" } });
  const notDone = await correct(key, failed.id, { replace: [{ find: "a", with: "b" }] });
  expect(notDone.status).toBe(409);
  expect(notDone.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json).toEqual(job);
});

test("speakers: a voice is named, two voices become one person; the transcript shows it, speaker_names says why; nothing is billed", async () => {
  const key = app.key("corrections-speakers");
  const job = await finished(key);
  const wallet = (await app.api("GET", "/v1/wallet", { key })).json;
  expect(new Set(job.output.transcript.map((s: any) => s.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
  const named = await correct(key, job.id, { speakers: [{ speaker: "speaker 1", name: "Nora Vance" }, { speaker: "Speaker 2", name: "Theo" }, { speaker: "theo", name: "Theo Marsh" }] });
  expect(named.status).toBe(202);
  expect(named.json).toMatchObject({ object: "transcript_correction", changes: 3, clips_rerendered: [], trailer_rerendered: false });
  const after = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  expect(after.output.transcript.map((s: any) => s.speaker)).toEqual(job.output.transcript.map((s: any) => (s.speaker === "Speaker 1" ? "Nora Vance" : "Theo Marsh")));
  expect(after.output.speaker_names).toEqual([
    { speaker: "Speaker 1", name: "Nora Vance", evidence: ["named by the producer (transcript correction)"] },
    { speaker: "Speaker 2", name: "Theo Marsh", evidence: ["named by the producer (transcript correction)"] },
  ]);
  // The text is what was said, as before.
  expect(after.output.transcript.map((s: any) => s.text)).toEqual(job.output.transcript.map((s: any) => s.text));
  // Theo is said to be Nora: one person, who keeps her name; Theo's name goes with his voice.
  const merged = await correct(key, job.id, { speakers: [{ speaker: "Theo Marsh", same_as: "nora vance" }] });
  expect(merged.json.changes).toBe(1);
  const one = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  expect(new Set(one.output.transcript.map((s: any) => s.speaker))).toEqual(new Set(["Nora Vance"]));
  expect(one.output.speaker_names).toEqual([{ speaker: "Speaker 1", name: "Nora Vance", evidence: ["named by the producer (transcript correction)"] }]);
  // The merge sent again names a voice that is gone (an Idempotency-Key is how to retry safely).
  expect((await correct(key, job.id, { speakers: [{ speaker: "Theo Marsh", same_as: "nora vance" }] })).json.error).toMatchObject({ code: "invalid_body", param: "speakers.0.speaker" });
  // A refused edit changes nothing, though the ones before it in the list could apply.
  const refused = await correct(key, job.id, { speakers: [{ speaker: "Nora Vance", name: "Nora" }, { speaker: "Theo Marsh", name: "Theo" }] });
  expect(refused.json.error).toMatchObject({ code: "invalid_body", param: "speakers.1.speaker" });
  // The voices it names are the transcript's as the edits before left it.
  expect(refused.json.error.message).toBe('No speaker "Theo Marsh" in this transcript; it has "Nora".');
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json).toEqual(one);
  expect((await app.api("GET", "/v1/wallet", { key })).json).toEqual(wallet);
});

test("speakers: a sandbox job's turns between two times go to a voice, a new one the fixture lacks included", async () => {
  const key = app.key("corrections-speaker-spans");
  const job = await finished(key);
  const second = job.output.transcript[1];
  const res = await correct(key, job.id, { speakers: [{ speaker: "Kyle", start_time: second.start, end_time: second.end }] });
  expect(res.status).toBe(202);
  expect(res.json.changes).toBe(1);
  const after = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  expect(after.output.transcript.map((s: any) => s.speaker)).toEqual(job.output.transcript.map((s: any, i: number) => (i === 1 ? "Kyle" : s.speaker)));
  expect(after.output.speaker_names).toEqual([{ speaker: "Speaker 3", name: "Kyle", evidence: ["named by the producer (transcript correction)"] }]);
  // A merge where nobody is named: one voice, and still no names.
  const plain = await finished(key);
  const merged = await correct(key, plain.id, { speakers: [{ speaker: "Speaker 2", same_as: "Speaker 1" }] });
  expect(merged.status).toBe(202);
  const one = (await app.api("GET", `/v1/jobs/${plain.id}`, { key })).json;
  expect(new Set(one.output.transcript.map((s: any) => s.speaker))).toEqual(new Set(["Speaker 1"]));
  expect(one.output.speaker_names).toBeUndefined();
});

test("another organisation's job and the other world's key are not found; a key is required", async () => {
  const owner = app.key("corrections-owner");
  const job = await finished(owner);
  const body = { replace: [{ find: "honey", with: "nectar" }] };
  for (const key of [app.key("corrections-stranger"), app.key("corrections-owner", "live")]) {
    const res = await correct(key, job.id, body);
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: "not_found", param: "id" });
  }
  expect((await app.api("POST", `/v1/jobs/${job.id}/transcript/corrections`, { body })).json.error.code).toBe("missing_authorization");
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key: owner })).json).toEqual(job);
});

test("add_to_vocabulary adds the replacements the organisation's vocabulary lacks, in the key's world only", async () => {
  const key = app.key("corrections-vocabulary");
  const job = await finished(key);
  expect((await app.api("PUT", "/v1/vocabulary", { key, body: { entries: ["Nora Vance"] } })).status).toBe(200);
  const res = await correct(key, job.id, { replace: [{ find: "nora vance", with: "Nora Vance" }, { find: "honey", with: "Wildflower Honey" }, { find: "hive", with: "wildflower honey" }], add_to_vocabulary: true });
  expect(res.status).toBe(202);
  expect(res.json.vocabulary_added).toEqual(["Wildflower Honey"]);
  expect((await app.api("GET", "/v1/vocabulary", { key })).json.entries).toEqual(["Nora Vance", "Wildflower Honey"]);
  // Again: nothing is missing any more.
  expect((await correct(key, job.id, { replace: [{ find: "honey", with: "Wildflower Honey" }], add_to_vocabulary: true })).json.vocabulary_added).toEqual([]);
  // The live world's list is another list.
  expect((await app.api("GET", "/v1/vocabulary", { key: app.key("corrections-vocabulary", "live") })).json.entries).toEqual([]);
  // A replacement too long for a vocabulary entry is refused, and nothing changes.
  const tooLong = await correct(key, job.id, { replace: [{ find: "bees", with: "b".repeat(61) }], add_to_vocabulary: true });
  expect(tooLong.status).toBe(400);
  expect(tooLong.json.error).toMatchObject({ code: "invalid_body", param: "add_to_vocabulary" });
  expect(JSON.stringify((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json.output)).not.toContain("b".repeat(61));
  // Without the flag the vocabulary is left alone and the answer has no vocabulary_added.
  const plain = await correct(key, job.id, { replace: [{ find: "roof", with: "Rooftop Garden" }] });
  expect(plain.json.vocabulary_added).toBeUndefined();
  expect((await app.api("GET", "/v1/vocabulary", { key })).json.entries).toEqual(["Nora Vance", "Wildflower Honey"]);
});

test("the OpenAPI document describes the corrections endpoint", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  const op = doc.paths["/v1/jobs/{id}/transcript/corrections"].post;
  expect(op.responses["202"]).toBeDefined();
  expect(Object.keys(doc.components.schemas.TranscriptCorrection.properties)).toEqual(["replace", "words", "speakers", "add_to_vocabulary"]);
  expect(Object.keys(doc.components.schemas.TranscriptCorrection.properties.speakers.items.properties)).toEqual(["speaker", "name", "same_as", "start_time", "end_time"]);
});
