import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

/** Bad vocabularies get the error envelope with the code and the param that names what is wrong; nothing is stored. */
let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
  key = app.key("vocab-errors");
});
afterAll(() => app.stop());

const BAD: Array<[unknown, string]> = [
  [{ entries: "Rooftop Hours" }, "entries"],
  [{}, "entries"],
  [{ entries: ["ok", 5] }, "entries.1"],
  [{ entries: ["ok", ""] }, "entries.1"],
  [{ entries: ["   "] }, "entries.0"],
  [{ entries: ["x".repeat(61)] }, "entries.0"],
  [{ entries: ["Kyle\u0000Gass"] }, "entries.0"],
  [{ entries: Array.from({ length: 101 }, (_, i) => `Name ${i}`) }, "entries"],
  [{ entries: [], extra: true }, "extra"],
];

test("PUT /v1/vocabulary: invalid_body with param", async () => {
  for (const [body, param] of BAD) {
    const res = await app.api("PUT", "/v1/vocabulary", { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: "invalid_request_error", code: "invalid_body", param });
  }
  expect((await app.api("PUT", "/v1/vocabulary", { key, raw: "[1,2]" })).json.error.code).toBe("invalid_body");
  expect((await app.api("PUT", "/v1/vocabulary", { key, raw: "{nope" })).json.error.code).toBe("invalid_json");
  expect(app.ctx.db.$client.query("SELECT count(*) AS n FROM org_vocabulary").get()).toEqual({ n: 0 });
});

test("POST /v1/jobs: the option's errors name options.vocabulary and the entry; no job is made", async () => {
  for (const [vocabulary, param] of [
    ["Rooftop Hours", "options.vocabulary"],
    [["x".repeat(61)], "options.vocabulary.0"],
    [["ok", ""], "options.vocabulary.1"],
    [Array.from({ length: 101 }, (_, i) => `Name ${i}`), "options.vocabulary"],
  ] as const) {
    const res = await app.api("POST", "/v1/jobs", { key, body: { ...VIDEO_BODY, options: { vocabulary } } });
    expect(res.status).toBe(400);
    // Every option's error uses the options code (docs/api.md), param naming the entry.
    expect(res.json.error).toMatchObject({ code: "invalid_body", param });
  }
  expect((await app.api("GET", "/v1/jobs", { key })).json.data).toEqual([]);
});
