import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Db } from "./handle.ts";
import { migrations } from "./migrations.ts";
import { openPgClient, type PgClient } from "./postgres/client.ts";
import { preparedOnce } from "./prepared.ts";
import * as schema from "./schema.ts";

export type { Db };

/** Where the appliance keeps its state: SQLite in the data folder, or the PostgreSQL at databaseUrl. */
export interface DbLocation {
  dataDir: string;
  databaseUrl?: string;
}

/**
 * Opens (creating if needed) the appliance database and brings its schema up to date. SQLite runs in
 * WAL mode with full fsync on commit, so a `kill -9` never loses a committed state change;
 * PostgreSQL commits durably by default. Both run the same stores (docs/scale-out.md).
 */
export function openDb(where: DbLocation): Db {
  if (where.databaseUrl) return openPostgres(where.databaseUrl);
  mkdirSync(where.dataDir, { recursive: true });
  return openDbFile(join(where.dataDir, "clipyard.sqlite"));
}

function openPostgres(url: string): Db {
  const client = openPgClient(url);
  try {
    client.migrate(migrations);
  } catch (err) {
    client.close();
    throw err;
  }
  // drizzle's SQLite builder over a client shaped like bun:sqlite's: one set of stores for both.
  return drizzle({ client: client as unknown as Database, schema }) as Db;
}

/** The PostgreSQL client behind db, or undefined on SQLite. */
export function postgresOf(db: Db): PgClient | undefined {
  const client = db.$client as unknown as PgClient | Database;
  return "dialect" in client && client.dialect === "postgres" ? client : undefined;
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

/**
 * Runs fn in one IMMEDIATE transaction (write lock taken up front, so check-then-write is atomic).
 * On PostgreSQL the lock is an advisory lock every node takes: the same guarantee across a cluster.
 */
export function tx<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn).immediate();
}

/**
 * The row-lock clause a claim's inner SELECT ends with: on PostgreSQL, rows another node is claiming
 * right now are skipped instead of waited for (or lost to the other's guarded UPDATE); SQLite has one
 * writer at a time and needs none. `of` names the table alias to lock when the SELECT joins.
 */
export function skipLocked(db: Db, of?: string): string {
  return postgresOf(db) ? ` FOR UPDATE${of ? ` OF ${of}` : ""} SKIP LOCKED` : "";
}

/**
 * Like tx, but on PostgreSQL serialised only with other transactions on the same key (a per-key
 * advisory lock): for hot, independent state such as one API key's rate-limit window.
 */
export function keyedTx<T>(db: Db, key: string, fn: () => T): T {
  const pg = postgresOf(db);
  return pg ? pg.locked(key, fn) : tx(db, fn);
}

/**
 * Runs read-only fn in one deferred transaction: one consistent snapshot, and one WAL read lock
 * (a pair of fcntl calls) for all its statements instead of a pair per statement.
 */
export function readTx<T>(db: Db, fn: () => T): T {
  if (db.$client.inTransaction) return fn();
  // On PostgreSQL the read routes' fn also charges the key's rate limit, a write in its own per-key
  // transaction (DbSlidingWindowLimiter): inside a READ ONLY snapshot it failed ("cannot execute
  // INSERT in a read-only transaction", every GET /v1/jobs[/{id}] a 500), and inside a writable one it
  // would count hits in a snapshot taken before its lock. There is no WAL read lock to save there:
  // each statement runs on its own, as the routes' reads need no snapshot (a job's seq never changes).
  if (postgresOf(db)) return fn();
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
