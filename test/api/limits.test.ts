import { afterEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
afterEach(() => app?.stop());

test("the 61st write in 60 s is 429 too_many_requests with Retry-After; reads and other keys are unaffected", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  app = await startAppliance({ clock, scheduler: false });
  const key = app.key("limits");
  for (let i = 0; i < 60; i++) {
    const res = await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-ratelimit-remaining")).toBe(String(59 - i));
    clock.advance(500);
  }
  const refused = await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY });
  expect(refused.status).toBe(429);
  expect(refused.json.error).toMatchObject({ code: "too_many_requests", type: "rate_limit_error" });
  expect(refused.headers.get("retry-after")).toBe("30"); // now t=30 s; the first write (t=0) leaves the window at t=60 s
  expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  expect((await app.api("GET", "/v1/jobs", { key })).status).toBe(200);
  expect((await app.api("POST", "/v1/webhooks", { key, body: { url: "https://hooks.example.com/x", events: ["job.failed"] } })).status).toBe(429);
  expect((await app.api("POST", "/v1/jobs", { key: app.key("limits"), body: VIDEO_BODY })).status).toBe(202);
  clock.advance(30_001);
  expect((await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).status).toBe(202);
});

test("a test event with no job in the organisation yet is no_job_for_test_event", async () => {
  app = await startAppliance({ scheduler: false });
  const key = app.key("no-jobs");
  const hook = (await app.api("POST", "/v1/webhooks", { key, body: { url: "https://hooks.example.com/x", events: ["job.completed"] } })).json;
  const res = await app.api("POST", `/v1/webhooks/${hook.id}/test`, { key });
  expect(res.status).toBe(409);
  expect(res.json.error.code).toBe("no_job_for_test_event");
});
