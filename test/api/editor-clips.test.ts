import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * POST /v1/jobs/{id}/clips and DELETE /v1/jobs/{id}/clips/{clip_id} through the real server with
 * sandbox jobs (the new clip is recorded at once, the fixture's files standing in): happy path,
 * idempotency, validation and state errors, the limit, another organisation's and the other world's
 * jobs, and no charge. The live render of a new clip is test/e2e/editing.test.ts.
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

const add = (key: string, job: string, body: unknown, headers: Record<string, string> = {}) => app.api("POST", `/v1/jobs/${job}/clips`, { key, body, headers });

test("a new clip is ranked after the machine's, origin editor, with copy, captions and files; the same request again adds nothing", async () => {
  const key = app.key("editor-clips-happy");
  const job = await finished(key);
  const machine = job.output.clips;
  expect(machine.every((c: any) => c.origin === "machine")).toBe(true);
  const wallet = (await app.api("GET", "/v1/wallet", { key })).json;
  const seg = job.output.transcript[4];
  const res = await add(key, job.id, { start_time: seg.start, end_time: seg.end, caption_style: "minimal", formats: ["x"], title: "Our own pick" });
  expect(res.status).toBe(202);
  const clip = res.json;
  expect(clip).toMatchObject({ rank: machine.length + 1, origin: "editor", title: "Our own pick", caption_style: "minimal", start_time: seg.start, end_time: seg.end });
  expect(clip.id).toMatch(/^clip_/);
  expect(clip.transcript_text).toContain(seg.text);
  expect(clip.hook.length).toBeGreaterThan(0);
  expect(clip.description.length).toBeGreaterThan(0);
  expect(clip.hashtags.length).toBeGreaterThanOrEqual(3);
  expect(Object.keys(clip.rendered_urls)).toEqual(["x"]);
  expect(clip.captions_srt_url).toStartWith(job.output.guest_share_url);
  expect(clip.render).toMatchObject({ status: "complete", formats: ["x"], caption_style: "minimal" });
  expect((await fetch(clip.rendered_urls.x)).status).toBe(200);
  const after = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  expect(after.output.clips).toHaveLength(machine.length + 1);
  expect(after.output.clips.slice(0, machine.length)).toEqual(machine);
  expect(after.output.clips.at(-1)).toEqual(clip);
  // The same request without a key answers the clip already added (200), adding nothing.
  const again = await add(key, job.id, { start_time: seg.start, end_time: seg.end, caption_style: "minimal", formats: ["x"], title: "Our own pick" });
  expect(again.json.id).toBe(clip.id);
  expect(again.status).toBe(200);
  expect(again.json).toEqual(clip);
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json.output.clips).toHaveLength(machine.length + 1);
  // Never billed: the wallet reads the same.
  expect((await app.api("GET", "/v1/wallet", { key })).json).toEqual(wallet);
});

test("Idempotency-Key replays the first answer and refuses a different body", async () => {
  const key = app.key("editor-clips-idempotent");
  const job = await finished(key);
  const seg = job.output.transcript[2];
  const headers = { "idempotency-key": "editor-clip-key-0001" };
  const first = await add(key, job.id, { start_time: seg.start, end_time: seg.end }, headers);
  expect(first.status).toBe(202);
  const replay = await add(key, job.id, { start_time: seg.start, end_time: seg.end }, headers);
  expect(replay.status).toBe(202);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.json.id).toBe(first.json.id);
  const other = await add(key, job.id, { start_time: seg.start, end_time: seg.end + 5 }, headers);
  expect(other.status).toBe(409);
  expect(other.json.error).toMatchObject({ code: "idempotency_key_reused_with_different_body", type: "idempotency_error" });
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json.output.clips.filter((c: any) => c.origin === "editor")).toHaveLength(1);
});

test("bad bounds and bodies get the error envelope naming the field; a job not complete, an unknown clip and the limit are refused", async () => {
  const key = app.key("editor-clips-errors");
  const job = await finished(key);
  const cases: Array<[unknown, string]> = [
    [{}, "start_time"],
    [{ start_time: 5 }, "end_time"],
    [{ start_time: -1, end_time: 5 }, "start_time"],
    [{ start_time: 10, end_time: 5 }, "end_time"],
    [{ start_time: 10, end_time: 10 }, "end_time"],
    [{ start_time: 1, end_time: 9, caption_style: "neon" }, "caption_style"],
    [{ start_time: 1, end_time: 9, formats: [] }, "formats"],
    [{ start_time: 1, end_time: 9, formats: ["tiktok"] }, "formats.0"],
    [{ start_time: 1, end_time: 9, title: "x".repeat(71) }, "title"],
    [{ start_time: 1, end_time: 9, rank: 1 }, "rank"],
    // Past the end of the episode: nothing is said there.
    [{ start_time: 5000, end_time: 5100 }, "start_time"],
  ];
  for (const [body, param] of cases) {
    const res = await add(key, job.id, body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "invalid_body", param, request_id: res.headers.get("x-request-id") });
  }
  expect((await app.api("POST", `/v1/jobs/${job.id}/clips`, { key, raw: "{" })).json.error.code).toBe("invalid_json");
  const failed = await finished(key, { source: { type: "video_url", url: "https://media.example.com/fail.mp4" } });
  expect(failed.status).toBe("failed");
  const notDone = await add(key, failed.id, { start_time: 1, end_time: 9 });
  expect(notDone.status).toBe(409);
  expect(notDone.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  const deleteNotDone = await app.api("DELETE", `/v1/jobs/${failed.id}/clips/clip_x`, { key });
  expect(deleteNotDone.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  const unknown = await app.api("DELETE", `/v1/jobs/${job.id}/clips/clip_nope`, { key });
  expect(unknown.status).toBe(404);
  expect(unknown.json.error).toMatchObject({ code: "not_found", param: "clip_id" });
  // At most 10 clips added by hand; the eleventh is refused until one is deleted.
  const segs = job.output.transcript;
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await add(key, job.id, { start_time: segs[i].start, end_time: segs[i].end });
    expect(res.status).toBe(202);
    ids.push(res.json.id);
  }
  const eleventh = await add(key, job.id, { start_time: segs[10].start, end_time: segs[10].end });
  expect(eleventh.status).toBe(409);
  expect(eleventh.json.error).toMatchObject({ code: "clip_limit_reached", param: "id" });
  expect((await app.api("DELETE", `/v1/jobs/${job.id}/clips/${ids[0]}`, { key })).status).toBe(200);
  expect((await add(key, job.id, { start_time: segs[10].start, end_time: segs[10].end })).status).toBe(202);
  // Nothing was added to the failed job.
  expect((await app.api("GET", `/v1/jobs/${failed.id}`, { key })).json.output).toBeNull();
});

test("DELETE removes a clip (the machine's or one's own) and nothing else; deleting it again is not found", async () => {
  const key = app.key("editor-clips-delete");
  const job = await finished(key);
  const [c1, c2, c3] = job.output.clips;
  const wallet = (await app.api("GET", "/v1/wallet", { key })).json;
  const res = await app.api("DELETE", `/v1/jobs/${job.id}/clips/${c2.id}`, { key });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ id: c2.id, object: "clip", deleted: true });
  const after = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  // The others keep their ranks and everything else.
  expect(after.output.clips).toEqual([c1, c3]);
  const again = await app.api("DELETE", `/v1/jobs/${job.id}/clips/${c2.id}`, { key });
  expect(again.status).toBe(404);
  expect(again.json.error).toMatchObject({ code: "not_found", param: "clip_id" });
  // A sandbox clip's files are the shared fixtures: still served for the clips that name them.
  expect((await fetch(c1.rendered_urls.x)).status).toBe(200);
  expect((await app.api("GET", "/v1/wallet", { key })).json).toEqual(wallet);
});

test("another organisation's job and the other world's key are not found; a key is required", async () => {
  const owner = app.key("editor-clips-owner");
  const job = await finished(owner);
  const seg = job.output.transcript[3];
  for (const key of [app.key("editor-clips-stranger"), app.key("editor-clips-owner", "live")]) {
    const added = await add(key, job.id, { start_time: seg.start, end_time: seg.end });
    expect(added.status).toBe(404);
    expect(added.json.error).toMatchObject({ code: "not_found", param: "id" });
    const deleted = await app.api("DELETE", `/v1/jobs/${job.id}/clips/${job.output.clips[0].id}`, { key });
    expect(deleted.status).toBe(404);
    expect(deleted.json.error).toMatchObject({ code: "not_found", param: "id" });
  }
  expect((await app.api("POST", `/v1/jobs/${job.id}/clips`, { body: { start_time: 1, end_time: 9 } })).json.error.code).toBe("missing_authorization");
  expect((await app.api("DELETE", `/v1/jobs/${job.id}/clips/${job.output.clips[0].id}`, {})).json.error.code).toBe("missing_authorization");
  // The owner's job is untouched.
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key: owner })).json.output.clips).toEqual(job.output.clips);
});

test("the OpenAPI document describes both endpoints and the clip's origin", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  expect(doc.paths["/v1/jobs/{id}/clips"].post.responses["202"]).toBeDefined();
  expect(doc.paths["/v1/jobs/{id}/clips/{clip_id}"].delete.responses["200"]).toBeDefined();
  expect(Object.keys(doc.components.schemas.ClipCreate.properties)).toEqual(["start_time", "end_time", "caption_style", "formats", "title"]);
  expect(doc.components.schemas.Clip.properties.origin.enum).toEqual(["machine", "editor"]);
});
