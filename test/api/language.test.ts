/** The `language` job option (extension) through the real server: validated like every option (invalid_option + param), echoed by sandbox jobs. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ERRORS } from "../../src/errors.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance();
  key = app.key("language");
});
afterAll(() => app.stop());

const post = (options: unknown) => app.api("POST", "/v1/jobs", { key, body: { ...VIDEO_BODY, options } });

test("a sandbox job takes a language code or auto and echoes it on submission and when read back", async () => {
  for (const language of ["fr", "auto", "ja"]) {
    const res = await post({ language, clip_count: 2 });
    expect(res.status).toBe(202);
    expect(res.json.options).toEqual({ language, clip_count: 2 });
    const again = await app.api("GET", `/v1/jobs/${res.json.id}`, { key });
    expect(again.json.options).toEqual({ language, clip_count: 2 });
  }
});

test("an unknown language, a name, a locale or a number is invalid_option (as for every option) naming options.language", async () => {
  for (const language of ["xx", "French", "fr-FR", "", 7, null]) {
    const res = await post({ language });
    expect(res.status).toBe(ERRORS.invalid_option.status!);
    expect(res.json.error).toMatchObject({ code: "invalid_option", param: "options.language" });
  }
});

test("the OpenAPI document lists the option with Whisper's codes", async () => {
  const doc = await app.api("GET", "/v1/openapi.json", { key });
  const text = JSON.stringify(doc.json);
  expect(text).toContain("the episode's spoken language");
  expect(text).toContain('"yue"');
});
