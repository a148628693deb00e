import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { brandSnapshot } from "../../src/accounts/brand.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { makeImage } from "../helpers/images.ts";
import { rawUpload } from "../helpers/uploads.ts";

/**
 * The brand kit's intro and outro cards through the real server: stored and answered back, the
 * card's picture kept as a PNG of its own like the logo, a GET's answer PUT back keeps it, and the
 * snapshot a job renders with carries the cards.
 */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
});
afterAll(() => app.stop());

test("cards with text and a picture are stored, answered back and reach the job's snapshot", async () => {
  const key = app.key("cards-happy", "live");
  const up = await rawUpload(app, key, makeImage({ width: 400, height: 300, format: "jpeg", colour: "0x336699" }), "?filename=cover.jpg");
  expect(up.status).toBe(201);
  const body = {
    background_color: "#102030",
    intro_card: { seconds: 1.5, text: "  Rooftop Hours, episode 42  ", image_upload_id: up.json.id },
    outro_card: { seconds: 0.5, text: "Subscribe wherever you listen" },
  };
  const put = await app.api("PUT", "/v1/brand", { key, body });
  expect(put.status).toBe(200);
  expect(put.json.intro_card).toMatchObject({ seconds: 1.5, text: "Rooftop Hours, episode 42", image_upload_id: up.json.id, image: { width: 400, height: 300 } });
  expect(put.json.outro_card).toEqual({ seconds: 0.5, text: "Subscribe wherever you listen", image_upload_id: null, image: null });
  const image = put.json.intro_card.image;
  const stored = join(app.dataDir, "brand", `${image.sha256}.png`);
  expect(existsSync(stored)).toBe(true);
  const bytes = readFileSync(stored);
  expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  expect(bytes.length).toBe(image.bytes);
  expect((await app.api("GET", "/v1/brand", { key })).json).toEqual(put.json);

  // The snapshot a job of this world renders with: the picture by its hash, never the upload.
  const org = app.ctx.db.$client.query("SELECT org_id AS id FROM org_brand").get() as { id: string };
  expect(brandSnapshot(app.ctx.db, { orgId: org.id, env: "live" })).toMatchObject({
    intro_card: { seconds: 1.5, text: "Rooftop Hours, episode 42", image: { sha256: image.sha256, width: 400, height: 300 } },
    outro_card: { seconds: 0.5, text: "Subscribe wherever you listen" },
  });

  // The upload goes; PUTting the GET's cards back (without the read-only `image`) keeps the stored picture.
  const del = await fetch(`${app.baseUrl}/v1/uploads/${up.json.id}`, { method: "DELETE", headers: { authorization: `Bearer ${key}`, "tus-resumable": "1.0.0" } });
  expect(del.status).toBe(204);
  const { image: _image, ...intro } = put.json.intro_card;
  const again = await app.api("PUT", "/v1/brand", { key, body: { intro_card: { ...intro, seconds: 3 }, outro_card: null } });
  expect(again.status).toBe(200);
  expect(again.json.intro_card).toEqual({ ...put.json.intro_card, seconds: 3 });
  expect(again.json.outro_card).toBeNull();
});

test("a plain card (no text, no picture) is a card of the background colour; null and {} clear the cards", async () => {
  const key = app.key("cards-plain", "live");
  const put = await app.api("PUT", "/v1/brand", { key, body: { outro_card: { seconds: 3 } } });
  expect(put.status).toBe(200);
  expect(put.json).toMatchObject({ intro_card: null, outro_card: { seconds: 3, text: null, image_upload_id: null, image: null } });
  const cleared = await app.api("PUT", "/v1/brand", { key, body: {} });
  expect(cleared.json).toMatchObject({ intro_card: null, outro_card: null });
});

test("a sandbox key validates and echoes the cards in its own world", async () => {
  const key = app.key("cards-sandbox", "test");
  const up = await rawUpload(app, key, makeImage({ width: 64, height: 64, format: "png" }));
  const put = await app.api("PUT", "/v1/brand", { key, body: { intro_card: { seconds: 2, image_upload_id: up.json.id } } });
  expect(put.status).toBe(200);
  expect(put.json).toMatchObject({ livemode: false, intro_card: { seconds: 2, text: null, image_upload_id: up.json.id, image: { width: 64, height: 64 } } });
  expect((await app.api("GET", "/v1/brand", { key })).json).toEqual(put.json);
  // The live world's kit is untouched.
  expect((await app.api("GET", "/v1/brand", { key: app.key("cards-sandbox", "live") })).json.intro_card).toBeNull();
});

test("the OpenAPI document describes the cards, a clip's card seconds and a render's warnings", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  const put = doc.components.schemas.BrandPut.properties;
  expect(Object.keys(put)).toEqual(expect.arrayContaining(["intro_card", "outro_card"]));
  expect(JSON.stringify(put.intro_card)).toContain('"maximum":3');
  expect(Object.keys(doc.components.schemas.Brand.properties)).toEqual(expect.arrayContaining(["intro_card", "outro_card"]));
  const text = JSON.stringify(doc.components.schemas.Job);
  expect(text).toContain("intro_seconds");
  expect(text).toContain("a cover that could not be made");
});
