import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { eventually } from "../helpers/wait.ts";

/** The organisation's vocabulary (GET/PUT /v1/vocabulary) and the job option, through the real server. */
let app: TestAppliance;
const clock = new ManualClock(Date.UTC(2026, 10, 26, 2));
beforeAll(async () => {
  app = await startAppliance({ clock, scheduler: false });
});
afterAll(() => app.stop());

test("a list never stored reads empty; PUT replaces it, GET answers it back, and it is stored", async () => {
  const key = app.key("vocab-happy");
  expect((await app.api("GET", "/v1/vocabulary", { key })).json).toEqual({ object: "vocabulary", entries: [], updated_at: null, livemode: false });

  const put = await app.api("PUT", "/v1/vocabulary", { key, body: { entries: ["Rooftop Hours", "Nora Vance"] } });
  expect(put.status).toBe(200);
  expect(put.json).toEqual({ object: "vocabulary", entries: ["Rooftop Hours", "Nora Vance"], updated_at: "2026-11-26T02:00:00.000Z", livemode: false });
  expect((await app.api("GET", "/v1/vocabulary", { key })).json).toEqual(put.json);

  clock.advance(60_000);
  const replaced = await app.api("PUT", "/v1/vocabulary", { key, body: { entries: ["Theo Marsh"] } });
  expect(replaced.json).toMatchObject({ entries: ["Theo Marsh"], updated_at: "2026-11-26T02:01:00.000Z" });
  // Durable: the row itself, not a cache.
  const row = app.ctx.db.$client.query("SELECT entries, env FROM org_vocabulary").all();
  expect(row).toEqual([{ entries: JSON.stringify(["Theo Marsh"]), env: "test" }]);

  // An empty list clears it.
  expect((await app.api("PUT", "/v1/vocabulary", { key, body: { entries: [] } })).json.entries).toEqual([]);
  expect((await app.api("GET", "/v1/vocabulary", { key })).json.entries).toEqual([]);
});

test("a live key has its own world's list", async () => {
  const live = app.key("vocab-worlds", "live");
  const test_ = app.key("vocab-worlds", "test");
  await app.api("PUT", "/v1/vocabulary", { key: live, body: { entries: ["Kyle Gass"] } });
  expect((await app.api("GET", "/v1/vocabulary", { key: live })).json).toMatchObject({ entries: ["Kyle Gass"], livemode: true });
  expect((await app.api("GET", "/v1/vocabulary", { key: test_ })).json).toMatchObject({ entries: [], livemode: false });
});

test("a sandbox job validates the vocabulary option and echoes it exactly, also once complete", async () => {
  // The scheduler's own clock: sandbox jobs finish after their (scaled) time has passed.
  const running = await startAppliance();
  try {
    const key = running.key("vocab-sandbox");
    const options = { vocabulary: ["Rooftop Hours", "  Nora Vance "] };
    const res = await running.api("POST", "/v1/jobs", { key, body: { ...VIDEO_BODY, options } });
    expect(res.status).toBe(202);
    expect(res.json.options).toEqual(options);
    const done = await eventually(async () => (await running.api("GET", `/v1/jobs/${res.json.id}`, { key })).json, (j) => j.status === "complete", { timeoutMs: 60_000, what: "the sandbox job to complete" });
    expect(done.options).toEqual(options);
  } finally {
    await running.stop();
  }
}, 90_000);

test("the OpenAPI document has the routes and the option", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  expect(Object.keys(doc.paths["/v1/vocabulary"]).sort()).toEqual(["get", "put"]);
  expect(doc.components.schemas.JobCreate.properties.options.properties.vocabulary).toMatchObject({ type: "array", maxItems: 100, items: { type: "string", maxLength: 60 } });
  expect(doc.components.schemas.VocabularyPut.required).toEqual(["entries"]);
});
