/**
 * The brand kit survives a backup and restore: the stored logo (brand/<sha256>.png under the data
 * directory) and the kit's row come back together, and the restored kit resolves to a logo file a
 * render can read, byte for byte the one stored, long after the upload it came from is gone.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brandSnapshot } from "../../src/accounts/brand.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { systemClock } from "../../src/clock.ts";
import { openDbFile } from "../../src/db/client.ts";
import { lookOf } from "../../src/pipeline/render/brand.ts";
import { backup, restore } from "../../src/storage/backup.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { TEST_DATABASE_URL } from "../helpers/db.ts";
import { makeImage } from "../helpers/images.ts";
import { rawUpload } from "../helpers/uploads.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-brand-backup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// SQLite only: a PostgreSQL backup and restore (another database) is test/cli/backup.test.ts's; the logo files travel the same way on both.
test.skipIf(!!TEST_DATABASE_URL)("backup and restore carry the stored logo and the kit", async () => {
  const app = await startAppliance({ scheduler: false });
  let sha: string;
  let stored: Uint8Array;
  try {
    const key = app.key("brand-backup", "live");
    const up = await rawUpload(app, key, makeImage({ width: 120, height: 60, format: "png", colour: "0xFF00FF" }));
    const put = await app.api("PUT", "/v1/brand", { key, body: { logo_upload_id: up.json.id, logo_position: "bottom-left", accent_color: "#112233" } });
    expect(put.status).toBe(200);
    sha = put.json.logo.sha256;
    stored = readFileSync(join(app.dataDir, "brand", `${sha}.png`));
    const m = backup({ dataDir: app.dataDir }, join(work, "backup"));
    expect(m.files.map((f) => f.path)).toContain(`brand/${sha}.png`);
  } finally {
    await app.stop();
  }
  const restored = join(work, "restored");
  restore(join(work, "backup"), { dataDir: restored });
  const db = openDbFile(join(restored, "clipyard.sqlite"));
  try {
    const org = ensureOrg(db, "brand-backup", systemClock);
    const snapshot = brandSnapshot(db, { orgId: org.id, env: "live" });
    expect(snapshot).toMatchObject({ logo: { sha256: sha, width: 120, height: 60 }, logo_position: "bottom-left", accent_color: "#112233" });
    const look = await lookOf(snapshot, restored);
    expect(look.logo!.path).toBe(join(restored, "brand", `${sha}.png`));
    expect(new Uint8Array(readFileSync(look.logo!.path))).toEqual(new Uint8Array(stored));
  } finally {
    db.$client.close();
  }
});
