import { openDb, type Db, type DbLocation } from "../../src/db/client.ts";
import { sha256Hex } from "../../src/ids.ts";

/**
 * The storage back end the tests run on. Unset: SQLite in each test's data folder (the default).
 * `CLIPYARD_TEST_DATABASE_URL=postgres://…` (scripts/test-postgres.sh sets it): every data folder
 * gets its own schema in that database, named after the folder, so the same tests run on PostgreSQL
 * and a test that reopens a folder's database reopens the same schema.
 */
export const TEST_DATABASE_URL = process.env.CLIPYARD_TEST_DATABASE_URL || undefined;

export function testDbLocation(dataDir: string): DbLocation {
  if (!TEST_DATABASE_URL) return { dataDir };
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("schema", `t_${sha256Hex(dataDir).slice(0, 24)}`);
  return { dataDir, databaseUrl: url.toString() };
}

/** Settings naming the test back end, for an appliance or a CLI command on dataDir. */
export function testDbEnv(dataDir: string): Record<string, string> {
  const { databaseUrl } = testDbLocation(dataDir);
  return databaseUrl ? { CLIPYARD_DATABASE_URL: databaseUrl } : {};
}

export const openTestDb = (dataDir: string): Db => openDb(testDbLocation(dataDir));
