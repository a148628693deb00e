import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Db } from "./handle.ts";
import { migrations } from "./migrations.ts";
import { preparedOnce } from "./prepared.ts";
import * as schema from "./schema.ts";

export type { Db };

/**
 * Opens (creating if needed) the appliance database in WAL mode with full fsync on commit, so a
 * `kill -9` never loses a committed state change, and brings its schema up to date.
 */
export function openDb(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true });
  return openDbFile(join(dataDir, "clipyard.sqlite"));
}

export function openDbFile(path: string): Db {
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  // CLI commands (keys create) may write while the server runs: wait for the lock instead of failing.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  migrate(sqlite);
  return drizzle(sqlite, { schema }) as Db;
}

function migrate(sqlite: Database): void {
  const current = (sqlite.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  for (let i = current; i < migrations.length; i++) {
    sqlite.transaction(() => {
      sqlite.exec(migrations[i]!);
      sqlite.exec(`PRAGMA user_version = ${i + 1}`);
    }).immediate();
  }
}

/** Runs fn in one IMMEDIATE transaction (write lock taken up front, so check-then-write is atomic). */
export function tx<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn).immediate();
}

/**
 * Runs read-only fn in one deferred transaction: one consistent snapshot, and one WAL read lock
 * (a pair of fcntl calls) for all its statements instead of a pair per statement.
 */
export function readTx<T>(db: Db, fn: () => T): T {
  if (db.$client.inTransaction) return fn();
  const { begin, end } = txStatements(db);
  begin.run();
  try {
    return fn();
  } finally {
    // Nothing was written: ending the transaction only releases the snapshot.
    end.run();
  }
}

// bun:sqlite's transaction() prepares BEGIN/COMMIT on every call.
const txStatements = preparedOnce((db) => ({ begin: db.$client.prepare("BEGIN DEFERRED"), end: db.$client.prepare("COMMIT") }));
