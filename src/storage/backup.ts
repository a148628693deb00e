/**
 * A backup of one appliance: its database at one instant (src/db/snapshot.ts) and then the files of
 * its data directory (uploads, job sources, checkpoints and outputs, the key that seals webhook
 * secrets), with a manifest a restore checks before it writes anything. The database is copied
 * first: every file a row of the snapshot names was on disk before the snapshot, so it is in the
 * copy; a job still running in the snapshot restores as a job whose lease has lapsed, and the
 * restored appliance resumes it from its checkpoint like after a crash.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SecretBox } from "../secrets.ts";
import { migrations } from "../db/migrations.ts";
import { dumpPostgres, pgTarget, RestoreRefused, restorePostgres, restoreSqlite, snapshotSqlite, SQLITE_FILE } from "../db/snapshot.ts";
import { copyTree, type CopiedFile } from "./copy-tree.ts";

export const BACKUP_FORMAT = "clipyard-backup";
export const BACKUP_VERSION = 1;
const MANIFEST = "manifest.json";
const FILES = "files";
const PG_DUMP_FILE = "database.pgdump";

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  created_at: string;
  database: { kind: "sqlite"; file: string; schema_version: number } | { kind: "postgres"; file: string; schema: string; schema_version: number };
  /** Where the key sealing webhook secrets comes from, and its fingerprint (never the key). */
  secret_key: { source: "file" | "env"; fingerprint: string } | { source: "none" };
  files: CopiedFile[];
}

export interface BackupSettings {
  dataDir: string;
  databaseUrl?: string;
  secretKey?: string;
}

/** Not part of a backup: the live database files (the snapshot stands for them). */
const isLiveDatabase = (path: string) => path === SQLITE_FILE || path.startsWith(`${SQLITE_FILE}-`);

/** Writes a backup of the appliance into `dir`, which must be missing or empty. */
export function backup(settings: BackupSettings, dir: string): BackupManifest {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new BackupError(`${dir} is not empty: back up into a new folder`);
  if (!settings.databaseUrl && !existsSync(join(settings.dataDir, SQLITE_FILE))) throw new BackupError(`no appliance database in ${settings.dataDir}`);
  const keyFile = join(settings.dataDir, "secrets", "master.key");
  // No key yet: the appliance never sealed a secret (it makes the key with the first webhook).
  const secret_key: BackupManifest["secret_key"] = settings.secretKey
    ? { source: "env", fingerprint: SecretBox.forConfig(settings).fingerprint() }
    : existsSync(keyFile)
      ? { source: "file", fingerprint: SecretBox.forDataDir(settings.dataDir).fingerprint() }
      : { source: "none" };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // It holds the key that opens the webhook secrets: only its owner may read it.
  chmodSync(dir, 0o700);

  const database: BackupManifest["database"] = settings.databaseUrl
    ? (({ schema, schemaVersion }) => ({ kind: "postgres" as const, file: PG_DUMP_FILE, schema, schema_version: schemaVersion }))(dumpPostgres(settings.databaseUrl, join(dir, PG_DUMP_FILE)))
    : { kind: "sqlite", file: SQLITE_FILE, schema_version: snapshotSqlite(settings.dataDir, join(dir, SQLITE_FILE)).schemaVersion };
  const files = copyTree(settings.dataDir, join(dir, FILES), (path) => !isLiveDatabase(path));
  const manifest: BackupManifest = { format: BACKUP_FORMAT, version: BACKUP_VERSION, created_at: new Date().toISOString(), database, secret_key, files };
  writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 });
  return manifest;
}

/** A backup or restore refused before it wrote anything (exit code 2). */
export class BackupError extends RestoreRefused {}

export function readManifest(dir: string): BackupManifest {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) throw new BackupError(`${dir} is not a clipyard backup (no ${MANIFEST})`);
  const m = JSON.parse(readFileSync(path, "utf8")) as BackupManifest;
  if (m.format !== BACKUP_FORMAT) throw new BackupError(`${path} is not a clipyard backup manifest`);
  if (m.version !== BACKUP_VERSION) throw new BackupError(`backup format version ${m.version}; this clipyard reads version ${BACKUP_VERSION}`);
  if (m.database.schema_version > migrations.length) {
    throw new BackupError(`the backup's database is at schema ${m.database.schema_version}, newer than this clipyard's ${migrations.length}: restore with the version that made it, or a later one`);
  }
  return m;
}

/**
 * Brings a backup back into settings.dataDir (missing or empty) and the database the settings name
 * (SQLite in that folder, or an empty PostgreSQL schema). Everything is checked before anything is
 * written: the back end, the key, every file's presence and size.
 */
export function restore(dir: string, settings: BackupSettings): BackupManifest {
  const m = readManifest(dir);
  if (existsSync(settings.dataDir) && readdirSync(settings.dataDir).length > 0) throw new BackupError(`${settings.dataDir} is not empty: restore into a new data directory`);
  if (m.database.kind === "sqlite" && settings.databaseUrl) throw new BackupError("this backup holds a SQLite database: unset CLIPYARD_DATABASE_URL to restore it");
  if (m.database.kind === "postgres" && !settings.databaseUrl) throw new BackupError("this backup holds a PostgreSQL dump: set CLIPYARD_DATABASE_URL to the (empty) database to restore it into");
  if (settings.databaseUrl) pgTarget(settings.databaseUrl);
  if (m.secret_key.source === "env" && !settings.secretKey) throw new BackupError("the backup was made with CLIPYARD_SECRET_KEY: set it to the same key to restore");
  if (settings.secretKey && m.secret_key.source !== "none" && SecretBox.forConfig(settings).fingerprint() !== m.secret_key.fingerprint) {
    throw new BackupError("CLIPYARD_SECRET_KEY is not the key the backup was made with: webhook secrets would not open");
  }
  if (m.secret_key.source === "file" && !settings.secretKey && !m.files.some((f) => f.path === "secrets/master.key")) throw new BackupError("the backup lacks its secret key file");
  if (!existsSync(join(dir, m.database.file))) throw new BackupError(`the backup lacks its database file ${m.database.file}`);
  for (const f of m.files) {
    const path = join(dir, FILES, f.path);
    if (!existsSync(path) || statSync(path).size !== f.size) throw new BackupError(`the backup's file ${f.path} is missing or not the size the manifest says`);
  }

  mkdirSync(settings.dataDir, { recursive: true });
  try {
    copyTree(join(dir, FILES), settings.dataDir);
    const keyFile = join(settings.dataDir, "secrets", "master.key");
    if (existsSync(keyFile)) chmodSync(keyFile, 0o600);
    if (m.database.kind === "sqlite") restoreSqlite(join(dir, m.database.file), settings.dataDir);
    else restorePostgres(join(dir, m.database.file), m.database.schema, settings.databaseUrl!);
  } catch (err) {
    // A half-restored folder must not be mistaken for an appliance: it goes, the database's restore
    // was one transaction (PostgreSQL) or one file (SQLite).
    for (const name of readdirSync(settings.dataDir)) rmSync(join(settings.dataDir, name), { recursive: true, force: true });
    throw err;
  }
  if (m.secret_key.source !== "none" && SecretBox.forConfig(settings).fingerprint() !== m.secret_key.fingerprint) throw new BackupError("the restored secret key does not match the backup's fingerprint");
  return m;
}
