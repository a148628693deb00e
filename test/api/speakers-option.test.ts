import { afterAll, beforeAll, expect, test } from "bun:test";
import { ERRORS } from "../../src/errors.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance();
  key = app.key("speakers");
});
afterAll(() => app.stop());

const post = (options: unknown) => app.api("POST", "/v1/jobs", { key, body: { ...VIDEO_BODY, options } });

test("a sandbox job takes speakers as a number or a list of names and echoes them as sent", async () => {
  for (const speakers of [2, 3, 10, ["Ann", "Bob"], [" Ann Lee ", "Bob", "Kyle"], Array.from({ length: 10 }, (_, i) => `Person ${i + 1}`)]) {
    const res = await post({ speakers });
    expect(res.status).toBe(202);
    expect(res.json.options).toEqual({ speakers });
    expect((await app.api("GET", `/v1/jobs/${res.json.id}`, { key })).json.options).toEqual({ speakers });
  }
});

test("bad speakers get invalid_body with param naming the option, and no job", async () => {
  const before = (await app.api("GET", "/v1/jobs?limit=100", { key })).json.data.length;
  const cases: Array<[unknown, string, string]> = [
    [1, "options.speakers", "options.speakers: must be at least 2"],
    [11, "options.speakers", "options.speakers: must be at most 10"],
    [2.5, "options.speakers", "options.speakers: must be a number 2-10 or a list of 2-10 names"],
    ["3", "options.speakers", "options.speakers: must be a number 2-10 or a list of 2-10 names"],
    [null, "options.speakers", "options.speakers: must be a number 2-10 or a list of 2-10 names"],
    [{ count: 2 }, "options.speakers", "options.speakers: must be a number 2-10 or a list of 2-10 names"],
    [["Ann"], "options.speakers", "options.speakers: must be at least 2 items"],
    [Array.from({ length: 11 }, (_, i) => `P${i}`), "options.speakers", "options.speakers: must be a number 2-10 or a list of 2-10 names"],
    [["Ann", 5], "options.speakers", "options.speakers: must be a number 2-10 or a list of 2-10 names"],
    [["Ann", "   "], "options.speakers.1", "options.speakers.1: must not be blank"],
    [["Ann", "x".repeat(61)], "options.speakers.1", "options.speakers.1: must be at most 60 characters"],
    [["Ann", "Bo\u0000b"], "options.speakers.1", "options.speakers.1: must not contain control characters or <, >, {, }"],
    [["Ann", "<b>Bob</b>"], "options.speakers.1", "options.speakers.1: must not contain control characters or <, >, {, }"],
    [["Ann", " ann"], "options.speakers", "options.speakers: must not name anyone twice"],
  ];
  for (const [speakers, param, message] of cases) {
    const res = await post({ speakers });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({ type: ERRORS.invalid_body.type, code: "invalid_body", message, param, request_id: res.headers.get("x-request-id") });
  }
  expect((await app.api("GET", "/v1/jobs?limit=100", { key })).json.data.length).toBe(before);
});

test("the OpenAPI document describes the speakers option and the speaker_names output", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json", { key })).json;
  const text = JSON.stringify(doc);
  expect(text).toContain("Extension: the people who talk");
  expect(text).toContain("speaker_names");
});
