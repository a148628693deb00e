import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance();
  key = app.key("happy");
});
afterAll(() => app.stop());

test("a submission is 202 with a queued job that echoes source and options", async () => {
  const body = { ...VIDEO_BODY, options: { include_trailer: true, caption_style: "karaoke" } };
  const res = await app.api("POST", "/v1/jobs", { key, body });
  expect(res.status).toBe(202);
  expect(res.json).toMatchObject({ object: "job", status: "queued", source: body.source, options: body.options, completed_at: null, output: null, error: null });
  expect(res.json.id).toMatch(/^job_/);
  expect(res.json.created_at).toMatch(/Z$/);
  expect(res.headers.get("x-ratelimit-limit")).toBe("60");
  const got = await app.api("GET", `/v1/jobs/${res.json.id}`, { key });
  expect(got.json.id).toBe(res.json.id);
  expect(got.headers.get("x-ratelimit-limit")).toBe("600");
});

test("five concurrent identical idempotent submissions create exactly one job", async () => {
  const k2 = app.key("happy-idem");
  const headers = { "idempotency-key": "concurrent-key-1" };
  const results = await Promise.all(Array.from({ length: 5 }, () => app.api("POST", "/v1/jobs", { key: k2, body: VIDEO_BODY, headers })));
  expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
  expect(results.every((r) => r.status === 202)).toBe(true);
  expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true").length).toBe(4);
  expect((await app.api("GET", "/v1/jobs", { key: k2 })).json.data.length).toBe(1);
  // Key order and whitespace do not make a different body.
  const reordered = await app.api("POST", "/v1/jobs", { key: k2, raw: `{ "source": { "url": "${VIDEO_BODY.source.url}", "type": "video_url" } }`, headers });
  expect(reordered.json.id).toBe(results[0]!.json.id);
});

test("list pages newest first with a cursor", async () => {
  const k3 = app.key("happy-list");
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await app.api("POST", "/v1/jobs", { key: k3, body: VIDEO_BODY })).json.id);
  const seen: string[] = [];
  let cursor = "";
  for (;;) {
    const page = await app.api("GET", `/v1/jobs?limit=3${cursor}`, { key: k3 });
    expect(page.json.object).toBe("list");
    seen.push(...page.json.data.map((j: any) => j.id));
    if (!page.json.has_more) break;
    cursor = `&starting_after=${seen.at(-1)}`;
  }
  expect(seen).toEqual(ids.reverse());
});

test("openapi document is generated from the schemas", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.components.schemas.JobCreate.properties.source).toBeDefined();
  expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain("invalid_source_url");
});
