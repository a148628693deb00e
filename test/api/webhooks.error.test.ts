import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
  key = app.key("webhook-errors");
});
afterAll(() => app.stop());

const register = (url: unknown, events: unknown = ["job.failed"]) => app.api("POST", "/v1/webhooks", { key, body: { url, events } });
const urlOfLength = (n: number, base = "https://hooks.example.com/") => base + "a".repeat(n - base.length);

function expectInvalid(res: { status: number; json: any }, code: string, param: string, message: string) {
  expect(res.status).toBe(400);
  expect(res.json.error).toMatchObject({ type: "invalid_request_error", code, param, message });
}

test("the webhook url has the same bounds as the media URL: 2048 characters, no control characters or whitespace", async () => {
  expect((await register(urlOfLength(2048))).status).toBe(201);
  expectInvalid(await register(urlOfLength(2049)), "invalid_webhook_url", "url", "url: must be at most 2048 characters");
  expectInvalid(await register(urlOfLength(100_000)), "invalid_webhook_url", "url", "url: must be at most 2048 characters");
  expectInvalid(await register("https://hooks.example.com/a\u0000b"), "invalid_webhook_url", "url", "url: must not contain whitespace or control characters (found U+0000 at index 27)");
  expectInvalid(await register("https://hooks.example.com/a\tb"), "invalid_webhook_url", "url", "url: must not contain whitespace or control characters (found U+0009 at index 27)");
  const urls = (app.ctx.db.$client.query("SELECT url FROM webhooks").all() as { url: string }[]).map((r) => r.url);
  expect(Math.max(...urls.map((u) => u.length))).toBe(2048);
  expect(urls.filter((u) => u.includes("\u0000"))).toEqual([]);
});

test("wrong types say what is wrong, missing fields are required", async () => {
  expectInvalid(await register(5), "invalid_webhook_url", "url", "url: must be a string, not 5");
  expectInvalid(await register(undefined), "invalid_webhook_url", "url", "url is required.");
  expectInvalid(await register("https://hooks.example.com/x", "job.failed"), "invalid_events", "events", "events: must be an array, not a string");
  expectInvalid(await register("https://hooks.example.com/x", ["job.started"]), "invalid_events", "events.0", 'events.0: must be one of "job.completed", "job.failed", "clip.reviewed"');
});
