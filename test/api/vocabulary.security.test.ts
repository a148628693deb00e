import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";

/** An organisation's vocabulary is its own, per world, and needs a valid key. */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
});
afterAll(() => app.stop());

const code = (r: { json: any }) => r.json?.error?.code;

test("both routes need a valid, unrevoked key", async () => {
  for (const method of ["GET", "PUT"]) {
    const body = method === "PUT" ? { entries: ["Rooftop Hours"] } : undefined;
    expect(code(await app.api(method, "/v1/vocabulary", { body }))).toBe("missing_authorization");
    expect(code(await app.api(method, "/v1/vocabulary", { body, key: "sk_nope" }))).toBe("invalid_api_key_format");
    expect(code(await app.api(method, "/v1/vocabulary", { body, key: app.key("vocab-sec") + "x" }))).toBe("invalid_api_key");
  }
  expect(app.ctx.db.$client.query("SELECT count(*) AS n FROM org_vocabulary").get()).toEqual({ n: 0 });
});

test("another organisation's list is neither visible nor changed; a sandbox key cannot change the live list", async () => {
  const a = app.key("vocab-a", "live");
  const b = app.key("vocab-b", "live");
  const aTest = app.key("vocab-a", "test");
  await app.api("PUT", "/v1/vocabulary", { key: a, body: { entries: ["Secret Guest"] } });
  expect((await app.api("GET", "/v1/vocabulary", { key: b })).json.entries).toEqual([]);
  await app.api("PUT", "/v1/vocabulary", { key: b, body: { entries: ["Other Show"] } });
  await app.api("PUT", "/v1/vocabulary", { key: aTest, body: { entries: ["Sandbox Name"] } });
  expect((await app.api("GET", "/v1/vocabulary", { key: a })).json.entries).toEqual(["Secret Guest"]);
  expect((await app.api("GET", "/v1/vocabulary", { key: aTest })).json.entries).toEqual(["Sandbox Name"]);
});
