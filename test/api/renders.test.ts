import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * POST /v1/jobs/{id}/clips/{clip_id}/renders through the real server with sandbox jobs (which record
 * the request and render nothing): happy path, idempotency, validation errors, other organisations.
 * The live render itself is test/e2e/rerender.test.ts.
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

const renders = (key: string, job: string, clip: string, body: unknown, headers: Record<string, string> = {}) =>
  app.api("POST", `/v1/jobs/${job}/clips/${clip}/renders`, { key, body, headers });

test("a sandbox re-render records the new caption style on that clip only, at once, with its files unchanged", async () => {
  const key = app.key("renders-happy");
  const job = await finished(key);
  const [c1, c2] = job.output.clips;
  expect(c1.caption_style).toBe("bold");
  const res = await renders(key, job.id, c1.id, { caption_style: "minimal", formats: ["x"] });
  expect(res.status).toBe(202);
  expect(res.json).toMatchObject({ id: c1.id, rank: 1, caption_style: "minimal", rendered_urls: c1.rendered_urls });
  expect(res.json.render).toMatchObject({ status: "complete", caption_style: "minimal", formats: ["x"], start_time: c1.start_time, end_time: c1.end_time, error: null });
  expect(res.json.render.id).toMatch(/^rnd_/);
  const after = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  expect(after.output.clips[0]).toEqual(res.json);
  expect(after.output.clips[1]).toEqual(c2);
  // The same request again changes nothing: no new render.
  const again = await renders(key, job.id, c1.id, { caption_style: "minimal", formats: ["x"] });
  expect(again.json.render.id).toBe(res.json.render.id);
});

test("Idempotency-Key replays the first answer and refuses a different body", async () => {
  const key = app.key("renders-idempotent");
  const job = await finished(key);
  const clip = job.output.clips[2];
  const headers = { "idempotency-key": "rerender-key-0001" };
  const first = await renders(key, job.id, clip.id, { caption_style: "boxed" }, headers);
  expect(first.status).toBe(202);
  const replay = await renders(key, job.id, clip.id, { caption_style: "boxed" }, headers);
  expect(replay.status).toBe(202);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.json.render.id).toBe(first.json.render.id);
  const other = await renders(key, job.id, clip.id, { caption_style: "karaoke" }, headers);
  expect(other.status).toBe(409);
  expect(other.json.error).toMatchObject({ code: "idempotency_key_reused_with_different_body", type: "idempotency_error" });
  expect((await renders(key, job.id, clip.id, { caption_style: "boxed" }, { "idempotency-key": "short" })).json.error.code).toBe("invalid_idempotency_key");
});

test("bad requests get the error envelope naming the field", async () => {
  const key = app.key("renders-errors");
  const job = await finished(key);
  const clip = job.output.clips[0].id;
  const cases: Array<[unknown, string, string | null]> = [
    [{}, "invalid_body", null],
    [{ caption_style: "neon" }, "invalid_body", "caption_style"],
    [{ start_time: -1 }, "invalid_body", "start_time"],
    [{ start_time: 10, end_time: 5 }, "invalid_body", "end_time"],
    [{ end_time: "soon" }, "invalid_body", "end_time"],
    [{ formats: [] }, "invalid_body", "formats"],
    [{ formats: ["tiktok"] }, "invalid_body", "formats.0"],
    [{ style: "bold" }, "invalid_body", "style"],
  ];
  for (const [body, code, param] of cases) {
    const res = await renders(key, job.id, clip, body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param, request_id: res.headers.get("x-request-id") });
  }
  // An end before the clip's own start, when only the end is given.
  const before = await renders(key, job.id, clip, { end_time: job.output.clips[0].start_time / 2 });
  expect(before.json.error).toMatchObject({ code: "invalid_body", param: "end_time" });
  expect((await app.api("POST", `/v1/jobs/${job.id}/clips/${clip}/renders`, { key, raw: "{" })).json.error.code).toBe("invalid_json");
  const unknownClip = await renders(key, job.id, "clip_nope", { caption_style: "boxed" });
  expect(unknownClip.status).toBe(404);
  expect(unknownClip.json.error).toMatchObject({ code: "not_found", param: "clip_id" });
  const failed = await finished(key, { source: { type: "video_url", url: "https://media.example.com/fail.mp4" } });
  expect(failed.status).toBe("failed");
  const notDone = await renders(key, failed.id, "clip_x", { caption_style: "boxed" });
  expect(notDone.status).toBe(409);
  expect(notDone.json.error).toMatchObject({ code: "job_not_complete", param: "id" });
  // Nothing changed on the clip.
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json.output.clips[0].render).toBeUndefined();
});

test("another organisation's job is not found, and a key is required", async () => {
  const owner = app.key("renders-owner");
  const job = await finished(owner);
  const clip = job.output.clips[0].id;
  const stranger = await renders(app.key("renders-stranger"), job.id, clip, { caption_style: "boxed" });
  expect(stranger.status).toBe(404);
  expect(stranger.json.error).toMatchObject({ code: "not_found", param: "id" });
  expect((await app.api("POST", `/v1/jobs/${job.id}/clips/${clip}/renders`, { body: { caption_style: "boxed" } })).json.error.code).toBe("missing_authorization");
  expect((await app.api("GET", `/v1/jobs/${job.id}/clips/${clip}/renders`, { key: owner })).status).toBe(405);
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key: owner })).json.output.clips[0].render).toBeUndefined();
});

test("the OpenAPI document describes the re-render endpoint and the clip's extension fields", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  const op = doc.paths["/v1/jobs/{id}/clips/{clip_id}/renders"].post;
  expect(op.responses["202"]).toBeDefined();
  expect(Object.keys(doc.components.schemas.ClipRenderCreate.properties)).toEqual(["caption_style", "start_time", "end_time", "formats"]);
  expect(Object.keys(doc.components.schemas.Clip.properties)).toEqual(expect.arrayContaining(["caption_style", "review", "render"]));
});
