/** The `language` job option (extension) through the real server: validated like every option (invalid_body + param), echoed by sandbox jobs. */
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

test("an unknown language, a name, a locale or a number is invalid_body (as for every option) naming options.language", async () => {
  for (const language of ["xx", "French", "fr-FR", "", 7, null]) {
    const res = await post({ language });
    expect(res.status).toBe(ERRORS.invalid_body.status!);
    expect(res.json.error).toMatchObject({ code: "invalid_body", param: "options.language" });
  }
});

test("the OpenAPI document lists the option with Whisper's codes", async () => {
  const doc = await app.api("GET", "/v1/openapi.json", { key });
  const text = JSON.stringify(doc.json);
  expect(text).toContain("the episode's spoken language");
  expect(text).toContain('"yue"');
});

test("the share page's fixed text follows the output's language (French), and stays English without one", async () => {
  let job = (await post({ language: "fr" })).json;
  while (job.status !== "complete") {
    expect(job.status).not.toBe("failed");
    await Bun.sleep(50);
    job = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  }
  const english = await (await fetch(job.output.guest_share_url)).text();
  expect(english).toContain('<html lang="en">');
  expect(english).toContain("Shared with you");
  // A live job's stored output records its transcript's language; give this one French.
  const row = app.ctx.db.$client.query("SELECT output FROM jobs WHERE id = ?").get(job.id) as { output: string };
  app.ctx.db.$client.query("UPDATE jobs SET output = ? WHERE id = ?").run(JSON.stringify({ ...JSON.parse(row.output), language: "fr" }), job.id);
  const french = await (await fetch(job.output.guest_share_url)).text();
  expect(french).toContain('<html lang="fr">');
  for (const words of ["Partagé avec vous", "extraits prêts à publier", "Télécharger 9:16", "Pas encore relu.", "Approuver", "Refuser", "Pour votre monteur"]) expect(french).toContain(words);
  expect(french).not.toContain("Shared with you");
});
