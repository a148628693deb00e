/**
 * Consistent copies of the appliance database taken while it serves, and their restore
 * (`clipyard backup` / `clipyard restore`). SQLite: `VACUUM INTO` reads one snapshot of the WAL
 * database into a compact file, without blocking the server's writers. PostgreSQL: `pg_dump` reads
 * one MVCC snapshot of the appliance's schema, and `pg_restore` brings it back in a single transaction.
 */
import { Database } from "bun:sqlite";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const SQLITE_FILE = "clipyard.sqlite";

/** A copy of the SQLite database at one instant, in `dest` (which must not exist). */
export function snapshotSqlite(dataDir: string, dest: string): { schemaVersion: number } {
  const db = new Database(join(dataDir, SQLITE_FILE), { readonly: true, strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(dest);
  } finally {
    db.close();
  }
  return { schemaVersion: sqliteSchemaVersion(dest) };
}

export function sqliteSchemaVersion(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
}

/** Puts a snapshot in place as the data directory's database (which must not exist yet). */
export function restoreSqlite(snapshot: string, dataDir: string): void {
  const target = join(dataDir, SQLITE_FILE);
  if (existsSync(target)) throw new RestoreRefused(`${target} exists: restore into an empty data directory`);
  copyFileSync(snapshot, target);
  // The check a restore owes its operator: the copy opens and is whole.
  const db = new Database(target, { strict: true });
  try {
    const ok = (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    if (ok !== "ok") throw new Error(`the restored database fails its integrity check: ${ok}`);
  } finally {
    db.close();
  }
}

/** A PostgreSQL client tool: on PATH, else Debian's versioned folder (the newest). */
export function pgTool(name: "pg_dump" | "pg_restore" | "psql"): string {
  const onPath = Bun.which(name);
  if (onPath) return onPath;
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, "bin", name))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions[0]) throw new Error(`${name} not found: install the PostgreSQL client tools (apt-get install postgresql-client)`);
  return join(base, versions[0], "bin", name);
}

/** The connection URL the PostgreSQL tools take, and the schema the appliance keeps its tables in. */
export function pgTarget(databaseUrl: string): { url: string; schema: string } {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema") ?? "public";
  url.searchParams.delete("schema");
  return { url: url.toString(), schema };
}

function run(tool: string, args: string[]): string {
  const r = spawnSync(tool, args, { encoding: "utf8", env: { ...process.env, PGCONNECT_TIMEOUT: "10" } });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${tool.split("/").pop()} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

function psql(url: string, sql: string): string {
  return run(pgTool("psql"), ["--no-psqlrc", "-v", "ON_ERROR_STOP=1", "-tA", "-d", url, "-c", sql]).trim();
}

const tablesIn = (url: string, schema: string) =>
  Number(psql(url, `SELECT count(*) FROM information_schema.tables WHERE table_schema = ${literal(schema)}`));
const schemaExists = (url: string, schema: string) => psql(url, `SELECT count(*) FROM pg_namespace WHERE nspname = ${literal(schema)}`) !== "0";

/** pg_dump of the appliance's schema (custom format) into `dest`. */
export function dumpPostgres(databaseUrl: string, dest: string): { schema: string; schemaVersion: number } {
  const { url, schema } = pgTarget(databaseUrl);
  run(pgTool("pg_dump"), ["--format=custom", "--no-owner", "--no-privileges", `--schema=${schema}`, `--file=${dest}`, `--dbname=${url}`]);
  const version = Number(psql(url, `SELECT coalesce(max(version), 0) FROM ${ident(schema)}.clipyard_migrations`));
  return { schema, schemaVersion: version };
}

/**
 * pg_restore of a dump into the database at databaseUrl, whose schema must hold no tables. The dump
 * comes back under its own schema name and is then renamed to the target's, so a backup of
 * `?schema=a` restores as `?schema=b`; the dump's schema must therefore not exist in the target
 * database already (another database, or another server, is where a restore normally goes).
 */
export function restorePostgres(dump: string, dumpedSchema: string, databaseUrl: string): void {
  const { url, schema } = pgTarget(databaseUrl);
  if (schemaExists(url, schema) && tablesIn(url, schema) > 0) throw new RestoreRefused(`schema ${schema} already holds tables: restore into an empty schema or database`);
  if (dumpedSchema !== schema && schemaExists(url, dumpedSchema) && (dumpedSchema !== "public" || tablesIn(url, "public") > 0)) {
    throw new RestoreRefused(`the backup's schema ${dumpedSchema} already exists in that database: restore into another database, or drop it first`);
  }
  // The dump creates its schema itself (public too), so an empty one in its way goes first; a
  // schema with anything in it stops the drop (no CASCADE), so nothing of the target's is lost.
  if (schemaExists(url, dumpedSchema)) psql(url, `DROP SCHEMA ${ident(dumpedSchema)}`);
  if (dumpedSchema !== schema && schemaExists(url, schema)) psql(url, `DROP SCHEMA ${ident(schema)}`);
  run(pgTool("pg_restore"), ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", `--dbname=${url}`, dump]);
  if (dumpedSchema !== schema) {
    psql(url, `ALTER SCHEMA ${ident(dumpedSchema)} RENAME TO ${ident(schema)}${dumpedSchema === "public" ? "; CREATE SCHEMA public" : ""}`);
  }
  if (schema !== "public" && !schemaExists(url, "public")) psql(url, "CREATE SCHEMA public");
}

/** A restore that would overwrite or mix with data already there: refused before anything is written. */
export class RestoreRefused extends Error {}
