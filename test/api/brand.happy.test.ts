import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { makeImage } from "../helpers/images.ts";
import { rawUpload } from "../helpers/uploads.ts";

/** GET/PUT /v1/brand through the real server: what is sent is stored and answered back; the logo is kept as a PNG in the appliance's storage. */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
});
afterAll(() => app.stop());

const FULL = { logo_position: "bottom-left", logo_scale: 0.2, accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Serif" };

test("never stored: every field its default, no logo", async () => {
  const res = await app.api("GET", "/v1/brand", { key: app.key("brand-fresh", "live") });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({
    object: "brand", logo_upload_id: null, logo: null, logo_position: "top-right", logo_scale: 0.15,
    accent_color: "#7FDBCA", background_color: "#1B2A41", caption_font: "DejaVu Sans", intro_card: null, outro_card: null, updated_at: null, livemode: true,
  });
});

test("a PNG logo is stored as a PNG of its own and answered back; a GET's answer can be PUT back after the upload is gone", async () => {
  const key = app.key("brand-happy", "live");
  const up = await rawUpload(app, key, makeImage({ width: 320, height: 120, format: "png", colour: "0x00FF00" }), "?filename=logo.png");
  expect(up.status).toBe(201);
  const put = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: up.json.id, ...FULL } });
  expect(put.status).toBe(200);
  expect(put.json).toMatchObject({ object: "brand", logo_upload_id: up.json.id, ...FULL, livemode: true });
  expect(put.json.logo).toMatchObject({ width: 320, height: 120 });
  expect(put.json.logo.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(put.json.updated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  const stored = join(app.dataDir, "brand", `${put.json.logo.sha256}.png`);
  expect(existsSync(stored)).toBe(true);
  const bytes = readFileSync(stored);
  expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  expect(bytes.length).toBe(put.json.logo.bytes);
  expect(new Bun.CryptoHasher("sha256").update(bytes).digest("hex")).toBe(put.json.logo.sha256);

  const got = await app.api("GET", "/v1/brand", { key });
  expect(got.json).toEqual(put.json);
  // The logo itself, for a preview: the stored PNG, its hash as ETag.
  const logoRes = await fetch(`${app.baseUrl}/v1/brand/logo`, { headers: { authorization: `Bearer ${key}` } });
  expect(logoRes.status).toBe(200);
  expect(logoRes.headers.get("content-type")).toBe("image/png");
  expect(logoRes.headers.get("etag")).toBe(`"${put.json.logo.sha256}"`);
  expect(new Uint8Array(await logoRes.arrayBuffer())).toEqual(new Uint8Array(bytes));

  // The upload goes (tus termination); the brand keeps its own copy, and PUTting the GET back keeps it.
  const del = await fetch(`${app.baseUrl}/v1/uploads/${up.json.id}`, { method: "DELETE", headers: { authorization: `Bearer ${key}`, "tus-resumable": "1.0.0" } });
  expect(del.status).toBe(204);
  const { object, logo, updated_at, livemode, ...settings } = got.json;
  const again = await app.api("PUT", "/v1/brand", { key, body: { ...settings, accent_color: "#00AAFF" } });
  expect(again.status).toBe(200);
  expect(again.json.logo).toEqual(logo);
  expect(again.json.accent_color).toBe("#00AAFF");
  expect(existsSync(stored)).toBe(true);
});

test("a JPEG logo is accepted and stored as PNG", async () => {
  const key = app.key("brand-jpeg", "live");
  const up = await rawUpload(app, key, makeImage({ width: 200, height: 200, format: "jpeg", colour: "0x3366CC" }));
  const put = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: up.json.id } });
  expect(put.status).toBe(200);
  expect(put.json.logo).toMatchObject({ width: 200, height: 200 });
  expect([...readFileSync(join(app.dataDir, "brand", `${put.json.logo.sha256}.png`)).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
});

test("PUT replaces the whole kit: an empty body clears it to the defaults", async () => {
  const key = app.key("brand-clear", "live");
  await app.api("PUT", "/v1/brand", { key, body: FULL });
  const cleared = await app.api("PUT", "/v1/brand", { key, body: {} });
  expect(cleared.status).toBe(200);
  expect(cleared.json).toMatchObject({ logo: null, logo_upload_id: null, logo_position: "top-right", accent_color: "#7FDBCA", caption_font: "DejaVu Sans" });
  expect(cleared.json.updated_at).not.toBeNull();
  const none = await app.api("GET", "/v1/brand/logo", { key });
  expect(none.status).toBe(404);
  expect(none.json.error.code).toBe("not_found");
});

test("a sandbox key validates and echoes the brand in its own world", async () => {
  const key = app.key("brand-sandbox", "test");
  const up = await rawUpload(app, key, makeImage({ width: 64, height: 64, format: "png" }));
  const put = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: up.json.id, ...FULL } });
  expect(put.status).toBe(200);
  expect(put.json).toMatchObject({ logo_upload_id: up.json.id, ...FULL, livemode: false });
  expect(put.json.logo).toMatchObject({ width: 64, height: 64 });
  expect((await app.api("GET", "/v1/brand", { key })).json).toEqual(put.json);
});

test("options.brand: false is a job option, echoed", async () => {
  const key = app.key("brand-option", "test");
  const res = await app.api("POST", "/v1/jobs", { key, body: { ...VIDEO_BODY, options: { brand: false } } });
  expect(res.status).toBe(202);
  expect(res.json.options).toEqual({ brand: false });
  const bad = await app.api("POST", "/v1/jobs", { key, body: { ...VIDEO_BODY, options: { brand: "no" } } });
  expect(bad.json.error).toMatchObject({ code: "invalid_body", param: "options.brand" });
});
