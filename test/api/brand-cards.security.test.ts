import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { makeImage } from "../helpers/images.ts";
import { rawUpload } from "../helpers/uploads.ts";

/** A card's picture is the organisation's own, per world, as the logo is: another's upload, or the other world's, reads as no upload. */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
});
afterAll(() => app.stop());

test("another organisation's upload, or the other world's, cannot become a card's picture", async () => {
  const mine = app.key("cards-owner", "live");
  const other = app.key("cards-thief", "live");
  const mineTest = app.key("cards-owner", "test");
  const up = await rawUpload(app, mine, makeImage({ width: 64, height: 64, format: "png" }));
  expect(up.status).toBe(201);
  for (const key of [other, mineTest]) {
    const res = await app.api("PUT", "/v1/brand", { key, body: { intro_card: { seconds: 1, image_upload_id: up.json.id } } });
    expect(res.json.error).toMatchObject({ code: "invalid_body", param: "intro_card.image_upload_id" });
    // The same message as for an upload that does not exist: nothing says the id is someone else's.
    const none = await app.api("PUT", "/v1/brand", { key, body: { intro_card: { seconds: 1, image_upload_id: "upl_doesnotexist" } } });
    expect(res.json.error.message.replace(up.json.id, "ID")).toBe(none.json.error.message.replace("upl_doesnotexist", "ID"));
  }
  // The owner's cards are neither visible to nor changed by the other organisation.
  const put = await app.api("PUT", "/v1/brand", { key: mine, body: { outro_card: { seconds: 2, text: "Mine", image_upload_id: up.json.id } } });
  expect(put.status).toBe(200);
  expect((await app.api("GET", "/v1/brand", { key: other })).json.outro_card).toBeNull();
  await app.api("PUT", "/v1/brand", { key: other, body: { outro_card: { seconds: 1, text: "Theirs" } } });
  expect((await app.api("GET", "/v1/brand", { key: mine })).json.outro_card).toEqual(put.json.outro_card);
});

test("a card's text is kept as text: markup and format directives are stored as sent, never interpreted", async () => {
  const key = app.key("cards-text", "live");
  const text = "<script>alert(1)</script> %{pts} '; rm -rf / \\";
  const put = await app.api("PUT", "/v1/brand", { key, body: { intro_card: { seconds: 1, text } } });
  expect(put.status).toBe(200);
  expect(put.json.intro_card.text).toBe(text);
});
