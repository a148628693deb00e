import { expect, test } from "bun:test";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { openDbFile } from "../../../src/db/client.ts";
import * as schema from "../../../src/db/schema.ts";

test("the drizzle schema mirrors the migrated database column for column", () => {
  const db = openDbFile(":memory:");
  const tables = Object.values(schema).filter((t): t is any => typeof t === "object" && t !== null && Symbol.for("drizzle:IsDrizzleTable") in t);
  expect(tables.length).toBeGreaterThan(3);
  for (const table of tables) {
    const cfg = getTableConfig(table);
    const actual = (db.$client.query(`PRAGMA table_info(${cfg.name})`).all() as { name: string; notnull: number; pk: number }[])
      .map((c) => c.name)
      .sort();
    expect(actual.length).toBeGreaterThan(0);
    expect(cfg.columns.map((c) => c.name).sort()).toEqual(actual);
  }
});

test("migrations are idempotent: reopening an up-to-date database changes nothing", () => {
  const dir = `${require("node:os").tmpdir()}/clipyard-mig-${Date.now()}`;
  const a = openDbFile(`${dir}.sqlite`);
  const version = a.$client.query("PRAGMA user_version").get();
  a.$client.close();
  const b = openDbFile(`${dir}.sqlite`);
  expect(b.$client.query("PRAGMA user_version").get()).toEqual(version);
  expect((b.$client.query("PRAGMA journal_mode").get() as any).journal_mode).toBe("wal");
  b.$client.close();
});
