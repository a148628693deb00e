import { afterAll, beforeAll, expect, test } from "bun:test";
import { ERRORS } from "../../src/api/errors.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance();
  key = app.key("errors");
});
afterAll(() => app.stop());

function expectError(res: { status: number; json: any; headers: Headers }, code: keyof typeof ERRORS, param: string | null = null) {
  expect(res.json).toEqual({
    error: { type: ERRORS[code].type, code, message: expect.any(String), param, request_id: res.headers.get("x-request-id") },
  });
  expect(res.status).toBe(ERRORS[code].status!);
}

const post = (body: unknown, headers?: Record<string, string>) => app.api("POST", "/v1/jobs", { key, body, headers });

test("invalid_json and invalid_body", async () => {
  expectError(await app.api("POST", "/v1/jobs", { key, raw: "{nope" }), "invalid_json");
  expectError(await app.api("POST", "/v1/jobs", { key, raw: "" }), "invalid_json");
  for (const raw of ["[]", "1", '"s"', "null", "false"]) expectError(await app.api("POST", "/v1/jobs", { key, raw }), "invalid_body");
  expectError(await post({}), "invalid_body", "source");
  expectError(await post({ source: "https://x.com/a.mp4" }), "invalid_body", "source");
  expectError(await post({ ...VIDEO_BODY, extra: 1 }), "invalid_body", "extra");
  expectError(await post({ source: { type: "video_url" } }), "invalid_source_url", "source.url");
  expectError(await post({ source: { type: "video_url", url: 42 } }), "invalid_source_url", "source.url");
});

test("invalid_source_type and invalid_source_url carry their param", async () => {
  expectError(await post({ source: { type: "vimeo_url", url: "https://vimeo.com/1" } }), "invalid_source_type", "source.type");
  expectError(await post({ source: { url: "https://vimeo.com/1" } }), "invalid_source_type", "source.type");
  expectError(await post({ source: { type: "video_url", url: "not a url" } }), "invalid_source_url", "source.url");
  expectError(await post({ source: { type: "video_url", url: "http://insecure.example.com/a.mp4" } }), "invalid_source_url", "source.url");
  expectError(await post({ source: { type: "youtube_url", url: "https://example.com/watch?v=dQw4w9WgXcQ" } }), "invalid_source_url", "source.url");
});

test("invalid_option names the option", async () => {
  expectError(await post({ ...VIDEO_BODY, options: { caption_style: "comic-sans" } }), "invalid_option", "options.caption_style");
  expectError(await post({ ...VIDEO_BODY, options: { include_trailer: "yes" } }), "invalid_option", "options.include_trailer");
  expectError(await post({ ...VIDEO_BODY, options: { colour: "red" } }), "invalid_option", "options.colour");
  expectError(await post({ ...VIDEO_BODY, options: { clip_count: 0 } }), "invalid_option", "options.clip_count");
  expectError(await post({ ...VIDEO_BODY, options: { min_clip_seconds: 40, max_clip_seconds: 30 } }), "invalid_option", "options.min_clip_seconds");
  expectError(await post({ ...VIDEO_BODY, options: [] }), "invalid_body", "options");
});

test("idempotency key length, reuse with another body", async () => {
  expectError(await post(VIDEO_BODY, { "idempotency-key": "1234567" }), "invalid_idempotency_key", "Idempotency-Key");
  expectError(await post(VIDEO_BODY, { "idempotency-key": "x".repeat(256) }), "invalid_idempotency_key", "Idempotency-Key");
  expect((await post(VIDEO_BODY, { "idempotency-key": "k".repeat(8) })).status).toBe(202);
  expect((await post(VIDEO_BODY, { "idempotency-key": "k".repeat(255) })).status).toBe(202);
  const other = { source: { type: "video_url", url: "https://media.example.com/other.mp4" } };
  expectError(await post(other, { "idempotency-key": "k".repeat(8) }), "idempotency_key_reused_with_different_body");
});

test("not_found, method_not_allowed, invalid_parameter, body_too_large", async () => {
  expectError(await app.api("GET", "/v1/jobs/job_doesnotexist", { key }), "not_found", "id");
  expectError(await app.api("GET", "/v1/nothing", { key }), "not_found");
  const wrong = await app.api("DELETE", "/v1/jobs", { key });
  expectError(wrong, "method_not_allowed");
  expect(wrong.headers.get("allow")).toContain("POST");
  for (const q of ["limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5", "starting_after=job_nope", "colour=red"]) {
    expect((await app.api("GET", `/v1/jobs?${q}`, { key })).json.error.code).toBe("invalid_parameter");
  }
  expectError(await app.api("POST", "/v1/jobs", { key, raw: JSON.stringify({ pad: "x".repeat(1024 * 1024) }) }), "body_too_large");
});

test("every error in the table with an HTTP status has one, and codes used on jobs have none", () => {
  for (const [code, def] of Object.entries(ERRORS)) {
    if (def.status !== null) expect(def.status).toBeGreaterThanOrEqual(400);
    expect(["invalid_request_error", "authentication_error", "rate_limit_error", "idempotency_error", "api_error", "pipeline_error"]).toContain(def.type);
    expect(code).toMatch(/^[a-z_]+$/);
  }
});
