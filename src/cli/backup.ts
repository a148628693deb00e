import { loadConfig } from "../config.ts";
import { backup, BackupError } from "../storage/backup.ts";

const USAGE = `usage: clipyard backup DIR
  A consistent copy of the appliance while it keeps serving: the database at one instant (SQLite's
  VACUUM INTO, or pg_dump with CLIPYARD_DATABASE_URL), then the uploads, job files and outputs, and
  the secret key file that opens webhook secrets. DIR must be new or empty; keep it private.
  Restore it with \`clipyard restore DIR\`.
`;

export default async function backupCommand(argv: string[]): Promise<number> {
  const [dir, ...extra] = argv;
  if (!dir || dir.startsWith("-") || extra.length) {
    process.stderr.write(USAGE);
    return dir === "--help" || dir === "-h" ? 0 : 2;
  }
  const config = loadConfig();
  if (config.storage) process.stderr.write("clipyard: job outputs and uploads live in the object store (CLIPYARD_STORAGE_URL): back the bucket up with its own tools\n");
  try {
    const m = backup(config, dir);
    const bytes = m.files.reduce((n, f) => n + f.size, 0);
    process.stdout.write(`backup in ${dir}: ${m.database.kind} database (schema ${m.database.schema_version}), ${m.files.length} files (${(bytes / 1e6).toFixed(1)} MB)\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`clipyard backup: ${(err as Error).message}\n`);
    return err instanceof BackupError ? 2 : 1;
  }
}
