import { afterAll, beforeAll, expect, test } from "bun:test";
import { ERRORS } from "../../src/errors.ts";
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

const urlOfLength = (n: number, base = "https://media.example.com/") => base + "a".repeat(n - base.length);

test("source.url is bounded: at most 2048 characters, no control characters or whitespace (NUL included)", async () => {
  expect((await post({ source: { type: "video_url", url: urlOfLength(2048) } })).status).toBe(202);
  const long = await post({ source: { type: "video_url", url: urlOfLength(2049) } });
  expectError(long, "invalid_source_url", "source.url");
  expect(long.json.error.message).toBe("source.url: must be at most 2048 characters");
  for (const [char, name] of [["\u0000", "U+0000"], ["\u001f", "U+001F"], ["\u007f", "U+007F"], ["\u0085", "U+0085"], [" ", "U+0020"], ["\u00a0", "U+00A0"], ["\n", "U+000A"]]) {
    const res = await post({ source: { type: "video_url", url: `https://media.example.com/a${char}b.mp4` } });
    expectError(res, "invalid_source_url", "source.url");
    expect(res.json.error.message).toBe(`source.url: must not contain whitespace or control characters (found ${name} at index 27)`);
  }
  // Nothing with a NUL was stored.
  const urls = (app.ctx.db.$client.query("SELECT source_url FROM jobs").all() as { source_url: string }[]).map((r) => r.source_url);
  expect(urls.filter((u) => u.includes("\u0000"))).toEqual([]);
});

test("validation messages say what is wrong: a field sent with the wrong type is not 'required'", async () => {
  const message = async (body: unknown) => (await post(body)).json.error.message;
  expect(await message({ source: { type: "video_url", url: 5 } })).toBe("source.url: must be a string, not 5");
  expect(await message({ source: { type: "video_url", url: null } })).toBe("source.url: must be a string, not null");
  expect(await message({ source: { type: "video_url" } })).toBe("source.url is required.");
  expect(await message({ source: ["x"] })).toBe("source: must be an object, not an array");
  expect(await message({ ...VIDEO_BODY, options: { clip_count: 2.5 } })).toBe("options.clip_count: must be an integer, not 2.5");
  expect(await message({ ...VIDEO_BODY, options: { clip_count: "3" } })).toBe("options.clip_count: must be a number, not a string");
  expect(await message({ ...VIDEO_BODY, options: { clip_count: 11 } })).toBe("options.clip_count: must be at most 10");
  expect(await message({ ...VIDEO_BODY, options: { include_trailer: "yes" } })).toBe("options.include_trailer: must be true or false, not a string");
  expect(await message({ ...VIDEO_BODY, options: { caption_style: 5 } })).toBe('options.caption_style: must be one of "bold", "minimal", "karaoke", "boxed"');
  expect(await message({ source: { type: "vimeo_url", url: "https://vimeo.com/1" } })).toBe('source.type: must be one of "video_url", "youtube_url", "upload"');
  expect((await app.api("GET", "/v1/jobs?limit=101", { key })).json.error.message).toBe("limit: must be at most 100");
});

test("a bad option is invalid_body naming the option (the spec lists no other code for POST /v1/jobs)", async () => {
  expectError(await post({ ...VIDEO_BODY, options: { caption_style: "comic-sans" } }), "invalid_body", "options.caption_style");
  expectError(await post({ ...VIDEO_BODY, options: { include_trailer: "yes" } }), "invalid_body", "options.include_trailer");
  expectError(await post({ ...VIDEO_BODY, options: { colour: "red" } }), "invalid_body", "options.colour");
  expectError(await post({ ...VIDEO_BODY, options: { clip_count: 0 } }), "invalid_body", "options.clip_count");
  expectError(await post({ ...VIDEO_BODY, options: { min_clip_seconds: 40, max_clip_seconds: 30 } }), "invalid_body", "options.min_clip_seconds");
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
