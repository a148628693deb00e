/**
 * What a restore refuses before it writes anything, and how the file copy treats hard links and
 * files that vanish: the cases the end-to-end test (test/cli/backup.test.ts) does not reach.
 */
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDbFile } from "../../../src/db/client.ts";
import { migrations } from "../../../src/db/migrations.ts";
import { RestoreRefused } from "../../../src/db/snapshot.ts";
import { SecretBox } from "../../../src/secrets.ts";
import { backup, restore } from "../../../src/storage/backup.ts";
import { copyTree } from "../../../src/storage/copy-tree.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-backup-unit-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string) => join(work, `${name}-${++n}`);

/** A data directory with a database, a sealed secret, an upload and the job source linked to it. */
function appliance(): string {
  const dataDir = fresh("data");
  openDbFile(join((mkdirSync(dataDir, { recursive: true }), dataDir), "clipyard.sqlite")).$client.close();
  SecretBox.forDataDir(dataDir);
  mkdirSync(join(dataDir, "uploads"));
  writeFileSync(join(dataDir, "uploads", "upl_1"), randomBytes(4096));
  mkdirSync(join(dataDir, "jobs", "job_1", "source"), { recursive: true });
  linkSync(join(dataDir, "uploads", "upl_1"), join(dataDir, "jobs", "job_1", "source", "source.media"));
  return dataDir;
}

test("a backup keeps hard-linked files one file, leaves the live database files out, and restores", () => {
  const dataDir = appliance();
  const dir = fresh("backup");
  const m = backup({ dataDir }, dir);
  expect(m.database).toEqual({ kind: "sqlite", file: "clipyard.sqlite", schema_version: migrations.length });
  expect(m.files.map((f) => f.path).sort()).toEqual(["jobs/job_1/source/source.media", "secrets/master.key", "uploads/upl_1"]);
  expect(statSync(join(dir, "files", "uploads", "upl_1")).ino).toBe(statSync(join(dir, "files", "jobs", "job_1", "source", "source.media")).ino);
  const target = fresh("restored");
  restore(dir, { dataDir: target });
  expect(readFileSync(join(target, "uploads", "upl_1"))).toEqual(readFileSync(join(dataDir, "uploads", "upl_1")));
  expect(statSync(join(target, "uploads", "upl_1")).ino).toBe(statSync(join(target, "jobs", "job_1", "source", "source.media")).ino);
  expect(SecretBox.forDataDir(target).fingerprint()).toBe(SecretBox.forDataDir(dataDir).fingerprint());
  expect(statSync(join(target, "secrets", "master.key")).mode & 0o777).toBe(0o600);
});

test("refused before anything is written: a used folder, the other back end, another key, a damaged or newer backup", () => {
  const dataDir = appliance();
  const dir = fresh("backup");
  backup({ dataDir }, dir);
  const refused = (settings: Parameters<typeof restore>[1], message: string, from = dir) => {
    expect(() => restore(from, settings)).toThrow(message);
    expect(() => restore(from, settings)).toThrow(RestoreRefused);
  };
  expect(() => backup({ dataDir }, dir)).toThrow("is not empty");
  refused({ dataDir }, "is not empty");
  refused({ dataDir: fresh("t"), databaseUrl: "postgres://u@127.0.0.1:1/db" }, "unset CLIPYARD_DATABASE_URL");
  refused({ dataDir: fresh("t"), secretKey: randomBytes(32).toString("base64") }, "not the key the backup was made with");

  const truncated = fresh("copy");
  backup({ dataDir }, truncated);
  writeFileSync(join(truncated, "files", "uploads", "upl_1"), "short");
  const target = fresh("t");
  refused({ dataDir: target }, "not the size the manifest says", truncated);
  expect(existsSync(target)).toBe(false);

  const newer = fresh("copy");
  backup({ dataDir }, newer);
  const manifest = JSON.parse(readFileSync(join(newer, "manifest.json"), "utf8"));
  writeFileSync(join(newer, "manifest.json"), JSON.stringify({ ...manifest, database: { ...manifest.database, schema_version: migrations.length + 1 } }));
  refused({ dataDir: fresh("t") }, "newer than this clipyard's", newer);
  expect(() => restore(join(work, "nothing-here"), { dataDir: fresh("t") })).toThrow("not a clipyard backup");
});

test("a file that vanishes while the tree is copied is skipped, not an error", () => {
  const from = fresh("tree");
  mkdirSync(join(from, "a"), { recursive: true });
  writeFileSync(join(from, "a", "keep"), "x");
  writeFileSync(join(from, "a", "gone"), "y");
  const to = fresh("copy");
  const copied = copyTree(from, to, (path) => {
    if (path === "a/gone") rmSync(join(from, "a", "gone"));
    return true;
  });
  expect(copied.map((f) => f.path)).toEqual(["a/keep"]);
  expect(readdirSync(join(to, "a"))).toEqual(["keep"]);
});
