/**
 * The brand kit with shared storage (CLIPYARD_STORAGE_URL, a real SeaweedFS): the logo is read from
 * the upload in the bucket, stored in the bucket as brand/<sha256>.png, and a node that has never
 * seen it (an empty data directory) fetches it from there to render.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { lookOf } from "../../src/pipeline/render/brand.ts";
import { openStore } from "../../src/storage/index.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { makeImage } from "../helpers/images.ts";
import { SEAWEEDFS_MISSING, startSeaweedFs, type SeaweedFs } from "../helpers/seaweedfs.ts";
import { rawUpload } from "../helpers/uploads.ts";

let sw: SeaweedFs;
let app: TestAppliance;
const work = mkdtempSync(join(tmpdir(), "clipyard-brand-s3-"));
beforeAll(async () => {
  if (SEAWEEDFS_MISSING) return;
  sw = await startSeaweedFs();
  app = await startAppliance({ scheduler: false, env: sw.env() });
}, 150_000);
afterAll(async () => {
  await app?.stop();
  await sw?.stop();
  rmSync(work, { recursive: true, force: true });
});

test.skipIf(!!SEAWEEDFS_MISSING)("the logo comes from the upload in the bucket, goes to the bucket, and reaches a node without it", async () => {
  const key = app.key("brand-s3", "live");
  const png = makeImage({ width: 150, height: 50, format: "png", colour: "0xFF00FF" });
  const up = await rawUpload(app, key, png);
  expect(up.status).toBe(201);
  expect(await sw.keys("uploads/")).toContain(`uploads/${up.json.id}`);
  const put = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: up.json.id, logo_position: "top-left" } });
  expect(put.status).toBe(200);
  const sha = put.json.logo.sha256;
  expect(await sw.keys("brand/")).toEqual([`brand/${sha}.png`]);

  const elsewhere = join(work, "other-node");
  const store = openStore(elsewhere, loadConfig({ CLIPYARD_DATA_DIR: elsewhere, ...sw.env() }).storage);
  const look = await lookOf({ logo: { sha256: sha, width: 150, height: 50 }, logo_position: "top-left", logo_scale: 0.15, accent_color: "#7FDBCA", background_color: "#1B2A41", caption_font: "DejaVu Sans" }, elsewhere, store);
  const bytes = readFileSync(look.logo!.path);
  expect(look.logo!.path).toBe(join(elsewhere, "brand", `${sha}.png`));
  expect(new Bun.CryptoHasher("sha256").update(bytes).digest("hex")).toBe(sha);
  // A logo the bucket does not have is an error, never a render without it.
  await expect(lookOf({ logo: { sha256: "0".repeat(64), width: 1, height: 1 }, logo_position: "top-left", logo_scale: 0.15, accent_color: "#7FDBCA", background_color: "#1B2A41", caption_font: "DejaVu Sans" }, elsewhere, store)).rejects.toThrow(/missing from storage/);
}, 120_000);
