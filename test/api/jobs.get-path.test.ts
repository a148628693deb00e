import { afterAll, beforeAll, expect, test } from "bun:test";
import { revokeKey } from "../../src/accounts/keys.ts";
import { ManualClock } from "../../src/clock.ts";
import { openTestDb } from "../helpers/db.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

// What GET /v1/jobs/{id}'s fast path must keep (issue 37): the handler answers without a promise,
// a remembered key's revocation is read in the same statement as the job's version and still
// counts before the rate limit and before not_found, and every answer carries the rate headers.
let app: TestAppliance;
const clock = new ManualClock(Date.UTC(2026, 0, 1));
beforeAll(async () => {
  app = await startAppliance({ clock, scheduler: false });
});
afterAll(() => app.stop());

const code = (r: { json: any }) => r.json?.error?.code;

test("GET /v1/jobs/{id} answers with a Response, not a promise of one; its failures still get the envelope", async () => {
  const key = app.key("path-sync");
  const id = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json.id;
  const get = (path: string) => app.http.fetch(new Request(`${app.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } }));
  const ok = get(`/v1/jobs/${id}`);
  expect(ok).toBeInstanceOf(Response);
  const res = ok as Response;
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
  expect(res.headers.get("x-request-id")).toMatch(/^req_[A-Za-z0-9]{22}$/);
  expect(res.headers.get("x-ratelimit-limit")).toBe("600");
  expect((await res.json()).id).toBe(id);
  const missing = await get("/v1/jobs/job_doesnotexist");
  expect(missing.status).toBe(404);
  const body = (await missing.json()) as any;
  expect(body.error).toMatchObject({ code: "not_found", param: "id", request_id: missing.headers.get("x-request-id") });
  expect(missing.headers.get("x-ratelimit-limit")).toBe("600");
});

test("the first read of a key (read whole) and the later ones (revocation read beside the version) answer alike", async () => {
  const key = app.key("path-first");
  const id = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json.id;
  // A key the server has not seen yet: a new one, not the one that submitted.
  const fresh = app.key("path-first");
  const first = await app.api("GET", `/v1/jobs/${id}`, { key: fresh });
  const second = await app.api("GET", `/v1/jobs/${id}`, { key: fresh });
  expect(first.status).toBe(200);
  expect(second.text).toBe(first.text);
  expect(first.headers.get("x-ratelimit-remaining")).toBe("599");
  expect(second.headers.get("x-ratelimit-remaining")).toBe("598");
  const otherOrg = app.key("path-other");
  for (let i = 0; i < 2; i++) {
    const foreign = await app.api("GET", `/v1/jobs/${id}`, { key: otherOrg });
    expect(foreign.status).toBe(404);
    expect(code(foreign)).toBe("not_found");
  }
});

test("a remembered key revoked through another connection is refused on the next read, ahead of not_found and of the rate limit", async () => {
  const key = app.key("path-revoked");
  const id = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json.id;
  expect((await app.api("GET", `/v1/jobs/${id}`, { key })).status).toBe(200);
  expect((await app.api("GET", "/v1/jobs/job_doesnotexist", { key })).status).toBe(404);
  const other = openTestDb(app.dataDir);
  try {
    expect(revokeKey(other, key, clock)).toBe(true);
  } finally {
    other.$client.close();
  }
  for (const path of [`/v1/jobs/${id}`, "/v1/jobs/job_doesnotexist"]) {
    const refused = await app.api("GET", path, { key });
    expect(refused.status).toBe(401);
    expect(code(refused)).toBe("api_key_revoked");
    expect(refused.json.error.request_id).toBe(refused.headers.get("x-request-id"));
    // Refused before the rate limit: no window was charged, so no rate headers.
    expect(refused.headers.get("x-ratelimit-limit")).toBeNull();
  }
});

test("reads count down the key's window with exact headers; the 601st in 60 s is 429 with Retry-After, and the window slides", async () => {
  const key = app.key("path-rate");
  const id = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json.id;
  const start = clock.now();
  for (let i = 0; i < 600; i++) {
    const res = await app.api("GET", `/v1/jobs/${id}`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe(String(599 - i));
    expect(res.headers.get("x-ratelimit-reset")).toBe(String(Math.ceil((start + 60_000) / 1000)));
    if (i % 10 === 9) clock.advance(50);
  }
  const refused = await app.api("GET", `/v1/jobs/${id}`, { key });
  expect(refused.status).toBe(429);
  expect(code(refused)).toBe("too_many_requests");
  expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(refused.headers.get("retry-after")).toBe(String(Math.ceil((start + 60_000 - clock.now()) / 1000)));
  // An unknown id with a full window is refused by the limit too, not answered not_found.
  expect(code(await app.api("GET", "/v1/jobs/job_doesnotexist", { key }))).toBe("too_many_requests");
  clock.set(start + 60_001); // the first ten reads (at `start`) have left the window
  const again = await app.api("GET", `/v1/jobs/${id}`, { key });
  expect(again.status).toBe(200);
  expect(again.headers.get("x-ratelimit-remaining")).toBe("9");
});
