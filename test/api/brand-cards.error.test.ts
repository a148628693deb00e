import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { badImages, makeImage, SVG_LOGO } from "../helpers/images.ts";
import { rawUpload } from "../helpers/uploads.ts";

/** Bad intro and outro cards get invalid_body with the param naming the card's field; nothing is stored. */
let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
  key = app.key("cards-errors", "live");
});
afterAll(() => app.stop());

const stored = () => app.ctx.db.$client.query("SELECT count(*) AS n FROM org_brand").get();

test("bad seconds, text and fields: invalid_body naming the card's field", async () => {
  const BAD: Array<[unknown, string]> = [
    [{ intro_card: { seconds: 0.4 } }, "intro_card.seconds"],
    [{ intro_card: { seconds: 3.01 } }, "intro_card.seconds"],
    [{ outro_card: { seconds: "2" } }, "outro_card.seconds"],
    [{ outro_card: {} }, "outro_card.seconds"],
    [{ intro_card: { seconds: 1, text: "x".repeat(81) } }, "intro_card.text"],
    [{ intro_card: { seconds: 1, text: "   " } }, "intro_card.text"],
    [{ intro_card: { seconds: 1, text: "line\nbreak" } }, "intro_card.text"],
    [{ intro_card: { seconds: 1, text: 7 } }, "intro_card.text"],
    [{ outro_card: { seconds: 1, image_upload_id: 5 } }, "outro_card.image_upload_id"],
    [{ outro_card: { seconds: 1, colour: "#FF0000" } }, "outro_card.colour"],
    [{ intro_card: { seconds: 1, image: { sha256: "x" } } }, "intro_card.image"],
    [{ intro_card: 2 }, "intro_card"],
    [{ intro_card: "hello" }, "intro_card"],
    [{ middle_card: { seconds: 1 } }, "middle_card"],
  ];
  for (const [body, param] of BAD) {
    const res = await app.api("PUT", "/v1/brand", { key, body });
    expect({ body, status: res.status, code: res.json.error?.code, param: res.json.error?.param }).toEqual({ body, status: 400, code: "invalid_body", param });
  }
  expect(stored()).toEqual({ n: 0 });
});

test("a card's picture is checked exactly as the logo is: the same bad files (badImages), an unknown upload", async () => {
  for (const [what, bytes] of badImages()) {
    const up = await rawUpload(app, key, bytes);
    expect(up.status).toBe(201);
    for (const card of ["intro_card", "outro_card"]) {
      const res = await app.api("PUT", "/v1/brand", { key, body: { [card]: { seconds: 1, image_upload_id: up.json.id } } });
      expect({ what, status: res.status, code: res.json.error?.code, param: res.json.error?.param }).toEqual({ what, status: 400, code: "invalid_body", param: `${card}.image_upload_id` });
      expect(res.json.error.message).toContain("card image");
    }
  }
  const unknown = await app.api("PUT", "/v1/brand", { key, body: { outro_card: { seconds: 1, image_upload_id: "upl_doesnotexist" } } });
  expect(unknown.json.error).toMatchObject({ code: "invalid_body", param: "outro_card.image_upload_id" });
  // A good logo beside a bad card picture stores nothing at all.
  const logo = await rawUpload(app, key, makeImage({ width: 64, height: 64, format: "png" }));
  const svg = await rawUpload(app, key, SVG_LOGO);
  const mixed = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: logo.json.id, intro_card: { seconds: 1, image_upload_id: svg.json.id } } });
  expect(mixed.json.error).toMatchObject({ code: "invalid_body", param: "intro_card.image_upload_id" });
  expect(stored()).toEqual({ n: 0 });
});
