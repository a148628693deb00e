import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, openDbFile, type Db } from "../../../src/db/client.ts";
import { commitEpoch } from "../../../src/db/commit-epoch.ts";
import { freshSchemaUrl, stopOwnPostgres } from "../../helpers/postgres.ts";

// GET /v1/jobs/{id} answers from memory while commitEpoch is unchanged: it must change after every
// commit, by this connection, another connection, another process, and across a WAL that starts
// over, and it must not pretend to work where it cannot see commits.
const dir = mkdtempSync(join(tmpdir(), "clipyard-epoch-"));
const file = join(dir, "clipyard.sqlite");
const db = openDbFile(file);
const other = openDbFile(file); // another connection of this process (a CLI command in-process, a test)
afterAll(() => {
  db.$client.close();
  other.$client.close();
  stopOwnPostgres();
  rmSync(dir, { recursive: true, force: true });
});
db.$client.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)");
db.$client.exec("INSERT INTO t VALUES (1, 0)");

/** Asserts `write` moves the epoch, and that it then holds still again. */
function changes(write: () => void): void {
  const before = commitEpoch(db);
  expect(before).toBeNumber();
  write();
  const after = commitEpoch(db);
  expect(after).not.toBe(before);
  expect(commitEpoch(db)).toBe(after!);
}

test("unchanged while nothing is committed: reads, and an update that changes no row, leave it", () => {
  const e = commitEpoch(db);
  expect(e).toBeNumber();
  for (let i = 0; i < 5; i++) db.$client.query("SELECT v FROM t WHERE id = 1").get();
  other.$client.query("SELECT v FROM t").all();
  db.$client.exec("UPDATE t SET v = 7 WHERE id = 999");
  expect(commitEpoch(db)).toBe(e!);
});

test("changes after a commit by this connection, by another one, and by another process", () => {
  changes(() => db.$client.exec("UPDATE t SET v = v + 1 WHERE id = 1"));
  changes(() => other.$client.exec("UPDATE t SET v = v + 1 WHERE id = 1"));
  changes(() => {
    const child = Bun.spawnSync(["bun", "-e", `const { Database } = require("bun:sqlite"); const d = new Database(${JSON.stringify(file)}); d.exec("PRAGMA busy_timeout = 5000"); d.exec("UPDATE t SET v = v + 1 WHERE id = 1"); d.close();`], { stderr: "pipe" });
    expect(child.stderr.toString()).toBe("");
    expect(child.exitCode).toBe(0);
  });
  // A transaction of several statements is one commit, and counts once it has committed.
  changes(() => other.$client.transaction(() => {
    other.$client.exec("UPDATE t SET v = v + 1 WHERE id = 1");
    other.$client.exec("INSERT INTO t VALUES (2, 0)");
  })());
});

test("changes when the WAL starts over after a checkpoint, though the frame count may come back to the same", () => {
  for (let round = 0; round < 3; round++) {
    const e = commitEpoch(db);
    db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    other.$client.exec("UPDATE t SET v = v + 1 WHERE id = 1");
    expect(commitEpoch(db)).not.toBe(e);
  }
});

test("no epoch inside a transaction of this connection, on a closed database, or on PostgreSQL", () => {
  db.$client.transaction(() => {
    expect(commitEpoch(db)).toBeUndefined();
  })();
  expect(commitEpoch(db)).toBeNumber();
  const closed = openDbFile(join(dir, "closed.sqlite"));
  expect(commitEpoch(closed)).toBeNumber();
  closed.$client.close();
  expect(commitEpoch(closed)).toBeUndefined();
  const pg: Db = openDb({ dataDir: dir, databaseUrl: freshSchemaUrl() });
  try {
    expect(commitEpoch(pg)).toBeUndefined();
  } finally {
    pg.$client.close();
  }
});
