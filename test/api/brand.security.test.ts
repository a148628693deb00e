import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { makeImage } from "../helpers/images.ts";
import { rawUpload } from "../helpers/uploads.ts";

/** A brand is its organisation's, per world: another's uploads cannot become its logo, nor can its brand be read or changed by another key. */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
});
afterAll(() => app.stop());

const code = (r: { json: any }) => r.json?.error?.code;
const stored = () => app.ctx.db.$client.query("SELECT count(*) AS n FROM org_brand").get();

test("both routes need a valid key", async () => {
  expect(code(await app.api("GET", "/v1/brand/logo"))).toBe("missing_authorization");
  for (const method of ["GET", "PUT"]) {
    const body = method === "PUT" ? { accent_color: "#FF0000" } : undefined;
    expect(code(await app.api(method, "/v1/brand", { body }))).toBe("missing_authorization");
    expect(code(await app.api(method, "/v1/brand", { body, key: "sk_nope" }))).toBe("invalid_api_key_format");
    expect(code(await app.api(method, "/v1/brand", { body, key: app.key("brand-sec") + "x" }))).toBe("invalid_api_key");
  }
  expect(stored()).toEqual({ n: 0 });
});

test("an upload of another organisation, or of the other world, reads as no upload", async () => {
  const mine = app.key("brand-owner", "live");
  const other = app.key("brand-thief", "live");
  const mineTest = app.key("brand-owner", "test");
  const logo = makeImage({ width: 100, height: 50, format: "png" });
  const foreign = await rawUpload(app, mine, logo);
  const thief = await app.api("PUT", "/v1/brand", { key: other, body: { logo_upload_id: foreign.json.id } });
  expect(thief.status).toBe(400);
  expect(thief.json.error).toMatchObject({ code: "invalid_body", param: "logo_upload_id" });
  // The message is the same as for an id that never existed: it does not say the upload exists.
  const none = await app.api("PUT", "/v1/brand", { key: other, body: { logo_upload_id: "upl_" + foreign.json.id.slice(4).split("").reverse().join("") } });
  expect(thief.json.error.message.replace(foreign.json.id, "ID")).toBe(none.json.error.message.replace(/upl_\w+/, "ID"));
  const otherWorld = await app.api("PUT", "/v1/brand", { key: mineTest, body: { logo_upload_id: foreign.json.id } });
  expect(otherWorld.json.error).toMatchObject({ code: "invalid_body", param: "logo_upload_id" });
  expect(stored()).toEqual({ n: 0 });
});

test("another organisation's brand is neither visible nor changed; the sandbox and live brands are separate", async () => {
  const a = app.key("brand-a", "live");
  const b = app.key("brand-b", "live");
  const aTest = app.key("brand-a", "test");
  await app.api("PUT", "/v1/brand", { key: a, body: { accent_color: "#AA0000" } });
  expect((await app.api("GET", "/v1/brand", { key: b })).json).toMatchObject({ accent_color: "#7FDBCA", updated_at: null });
  await app.api("PUT", "/v1/brand", { key: b, body: { accent_color: "#00BB00" } });
  await app.api("PUT", "/v1/brand", { key: aTest, body: { accent_color: "#0000CC" } });
  expect((await app.api("GET", "/v1/brand", { key: a })).json).toMatchObject({ accent_color: "#AA0000", livemode: true });
  expect((await app.api("GET", "/v1/brand", { key: aTest })).json).toMatchObject({ accent_color: "#0000CC", livemode: false });
  expect((await app.api("GET", "/v1/brand", { key: b })).json.accent_color).toBe("#00BB00");
});

test("a sandbox brand's stored logo cannot be borrowed by the live world by naming its upload", async () => {
  const t = app.key("brand-borrow", "test");
  const l = app.key("brand-borrow", "live");
  const up = await rawUpload(app, t, makeImage({ width: 64, height: 64, format: "png" }));
  expect((await app.api("PUT", "/v1/brand", { key: t, body: { logo_upload_id: up.json.id } })).status).toBe(200);
  const live = await app.api("PUT", "/v1/brand", { key: l, body: { logo_upload_id: up.json.id } });
  expect(live.json.error).toMatchObject({ code: "invalid_body", param: "logo_upload_id" });
});
