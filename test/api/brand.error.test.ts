import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { badImages } from "../helpers/images.ts";
import { rawUpload } from "../helpers/uploads.ts";

/** Bad brands get invalid_body with the param that names what is wrong; nothing is stored. */
let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
  key = app.key("brand-errors", "live");
});
afterAll(() => app.stop());

const stored = () => app.ctx.db.$client.query("SELECT count(*) AS n FROM org_brand").get();

test("bad colours, corners, scales and fonts: invalid_body naming the field", async () => {
  const BAD: Array<[unknown, string]> = [
    [{ accent_color: "#FFF" }, "accent_color"],
    [{ accent_color: "red" }, "accent_color"],
    [{ accent_color: "#GG0000" }, "accent_color"],
    [{ accent_color: "FF0000" }, "accent_color"],
    [{ background_color: "#12345678" }, "background_color"],
    [{ background_color: 0x102030 }, "background_color"],
    [{ logo_position: "centre" }, "logo_position"],
    [{ logo_scale: 0 }, "logo_scale"],
    [{ logo_scale: 0.9 }, "logo_scale"],
    [{ logo_scale: "big" }, "logo_scale"],
    [{ caption_font: "Comic Sans MS" }, "caption_font"],
    [{ logo_upload_id: 42 }, "logo_upload_id"],
    [{ colour: "#FF0000" }, "colour"],
  ];
  for (const [body, param] of BAD) {
    const res = await app.api("PUT", "/v1/brand", { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: "invalid_request_error", code: "invalid_body", param });
  }
  expect((await app.api("PUT", "/v1/brand", { key, raw: "[1]" })).json.error.code).toBe("invalid_body");
  expect((await app.api("PUT", "/v1/brand", { key, raw: "{nope" })).json.error.code).toBe("invalid_json");
  expect(stored()).toEqual({ n: 0 });
});

test("bad images: SVG, GIF, text, a PNG header over garbage, a truncated PNG, too many or too few pixels, an unknown upload", async () => {
  for (const [what, bytes] of badImages()) {
    const up = await rawUpload(app, key, bytes);
    expect(up.status).toBe(201);
    const res = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: up.json.id } });
    expect({ what, status: res.status, code: res.json.error?.code, param: res.json.error?.param }).toEqual({ what, status: 400, code: "invalid_body", param: "logo_upload_id" });
  }
  const unknown = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: "upl_doesnotexist" } });
  expect(unknown.json.error).toMatchObject({ code: "invalid_body", param: "logo_upload_id" });
  expect(stored()).toEqual({ n: 0 });
});

test("an unfinished upload is not a logo yet", async () => {
  const res = await fetch(`${app.baseUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}`, "tus-resumable": "1.0.0", "upload-length": "1000" } });
  expect(res.status).toBe(201);
  const id = res.headers.get("location")!.split("/").pop()!;
  const put = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: id } });
  expect(put.json.error).toMatchObject({ code: "invalid_body", param: "logo_upload_id" });
  expect(put.json.error.message).toContain("not been fully received");
  expect(stored()).toEqual({ n: 0 });
});
