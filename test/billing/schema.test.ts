import { expect, test } from "bun:test";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { openDbFile } from "../../src/db/client.ts";
import * as schema from "../../src/db/schema.ts";

/** The drizzle view of the billing tables matches what the billing migration creates, column by column. */
const BILLING_TABLES = [
  schema.billingProfiles, schema.topups, schema.creditLots, schema.billingHolds, schema.jobCharges,
  schema.ledgerEntries, schema.receipts, schema.stripeEvents, schema.dashboardLoginTokens, schema.dashboardSessions,
] as SQLiteTable[];

test("billing tables: migration and drizzle schema agree", () => {
  const db = openDbFile(":memory:");
  for (const table of BILLING_TABLES) {
    const name = getTableName(table);
    const actual = (db.$client.query(`PRAGMA table_info(${name})`).all() as { name: string; notnull: number; pk: number }[])
      .map((c) => `${c.name}${c.notnull || c.pk ? "!" : ""}`)
      .sort();
    const declared = Object.values(getTableColumns(table))
      .map((c) => `${c.name}${c.notNull ? "!" : ""}`)
      .sort();
    expect({ name, columns: declared }).toEqual({ name, columns: actual });
  }
  db.$client.close();
});
