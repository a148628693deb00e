import { afterAll, expect, test } from "bun:test";
import { spawn } from "bun";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { buildAppliance } from "../../../../src/appliance.ts";
import { loadConfig } from "../../../../src/config.ts";
import { openDb, tx } from "../../../../src/db/client.ts";
import { migrations } from "../../../../src/db/migrations.ts";
import * as schema from "../../../../src/db/schema.ts";
import { freshSchemaUrl, stopOwnPostgres } from "../../../helpers/postgres.ts";

// PostgreSQL whatever the run's back end: what only PostgreSQL has (its catalogue, its migration
// record, several processes migrating at once, the connection thread's error handling).
const ROOT = resolve(import.meta.dir, "../../../..");
const dataDir = mkdtempSync(join(tmpdir(), "clipyard-pg-unit-"));
afterAll(() => stopOwnPostgres());

test("the drizzle schema mirrors the migrated PostgreSQL tables column for column", () => {
  const db = openDb({ dataDir, databaseUrl: freshSchemaUrl() });
  try {
    const tables = Object.values(schema).filter((t): t is any => typeof t === "object" && t !== null && Symbol.for("drizzle:IsDrizzleTable") in t);
    for (const table of tables) {
      const cfg = getTableConfig(table);
      const actual = (db.$client.query("SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?").all(cfg.name) as { name: string }[])
        .map((c) => c.name)
        .filter((n) => n !== "rowid") // SQLite's implicit rowid, made explicit on PostgreSQL
        .sort();
      expect(cfg.columns.map((c) => c.name).sort()).toEqual(actual);
    }
    const recorded = db.$client.query("SELECT max(version) AS v FROM clipyard_migrations").get() as { v: number };
    expect(recorded.v).toBe(migrations.length);
  } finally {
    db.$client.close();
  }
});

test("nodes starting together on an empty schema migrate it once, and all of them work", async () => {
  const databaseUrl = freshSchemaUrl();
  const env = { ...process.env, CLIPYARD_DATA_DIR: dataDir, CLIPYARD_DATABASE_URL: databaseUrl };
  const runs = Array.from({ length: 4 }, (_, i) => spawn(["bun", "run", join(ROOT, "src/main.ts"), "keys", "create", "--org", `race-${i}`, "--env", "test"], { env, stdout: "pipe", stderr: "pipe" }));
  const codes = await Promise.all(runs.map((r) => r.exited));
  const errors = await Promise.all(runs.map((r) => new Response(r.stderr).text()));
  expect({ codes, errors: errors.filter(Boolean) }).toEqual({ codes: [0, 0, 0, 0], errors: [] });
  const db = openDb({ dataDir, databaseUrl });
  try {
    expect((db.$client.query("SELECT count(*) AS n FROM clipyard_migrations").get() as { n: number }).n).toBe(migrations.length);
    expect((db.$client.query("SELECT count(*) AS n FROM orgs").get() as { n: number }).n).toBe(4);
  } finally {
    db.$client.close();
  }
});

test("a failed statement rolls its transaction back and leaves the connection usable", () => {
  const db = openDb({ dataDir, databaseUrl: freshSchemaUrl() });
  try {
    expect(() =>
      tx(db, () => {
        db.$client.query("INSERT INTO settings (name, value) VALUES ('a', '1')").run();
        db.$client.query("INSERT INTO settings (name, value) VALUES ('a', '2')").run(); // duplicate key
      }),
    ).toThrow(/duplicate key/);
    expect(db.$client.inTransaction).toBe(false);
    expect(db.$client.query("SELECT count(*) AS n FROM settings").get()).toEqual({ n: 0 });
    tx(db, () => db.$client.query("INSERT INTO settings (name, value) VALUES ('b', '1')").run());
    expect(db.$client.query("SELECT name FROM settings").all()).toEqual([{ name: "b" }]);
  } finally {
    db.$client.close();
  }
});

test("an unreachable server is a clear start-up error, not a hang", () => {
  expect(() => openDb({ dataDir, databaseUrl: "postgres://clipyard@127.0.0.1:1/none" })).toThrow(/cannot reach PostgreSQL at 127\.0\.0\.1:1\/none/);
});

test("a database URL that is not PostgreSQL's, or a schema name that is not a plain SQL name, is refused at start", () => {
  expect(() => loadConfig({ CLIPYARD_DATABASE_URL: "mysql://db.example.com/clipyard" })).toThrow("invalid configuration: CLIPYARD_DATABASE_URL: must be a postgres:// URL");
  expect(() => openDb({ dataDir, databaseUrl: "postgres://clipyard@127.0.0.1:1/x?schema=Robert%27);DROP" })).toThrow(/schema must be a lower-case SQL name/);
});

test("a node whose secret key differs from the one its database's webhook secrets are sealed with refuses to start", () => {
  const databaseUrl = freshSchemaUrl();
  const key = (b: number) => Buffer.alloc(32, b).toString("base64");
  const first = buildAppliance(loadConfig({ CLIPYARD_DATA_DIR: dataDir, CLIPYARD_DATABASE_URL: databaseUrl, CLIPYARD_SECRET_KEY: key(1) }));
  first.ctx.db.$client.close();
  const same = buildAppliance(loadConfig({ CLIPYARD_DATA_DIR: mkdtempSync(join(tmpdir(), "clipyard-pg-unit-")), CLIPYARD_DATABASE_URL: databaseUrl, CLIPYARD_SECRET_KEY: key(1) }));
  same.ctx.db.$client.close();
  expect(() => buildAppliance(loadConfig({ CLIPYARD_DATA_DIR: dataDir, CLIPYARD_DATABASE_URL: databaseUrl, CLIPYARD_SECRET_KEY: key(2) }))).toThrow(
    /CLIPYARD_SECRET_KEY: this node's secret key is not the one/,
  );
  expect(() => loadConfig({ CLIPYARD_SECRET_KEY: "c2hvcnQ=" })).toThrow("CLIPYARD_SECRET_KEY: must be 32 random bytes in base64");
});
