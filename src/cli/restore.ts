import { loadConfig } from "../config.ts";
import { RestoreRefused } from "../db/snapshot.ts";
import { restore } from "../storage/backup.ts";

const USAGE = `usage: clipyard restore DIR
  Brings a \`clipyard backup\` back into CLIPYARD_DATA_DIR (new or empty) and, for a PostgreSQL
  backup, into the empty database CLIPYARD_DATABASE_URL names. Run it with the appliance stopped,
  then start it: jobs that were running when the backup was taken resume from their checkpoints.
`;

export default async function restoreCommand(argv: string[]): Promise<number> {
  const [dir, ...extra] = argv;
  if (!dir || dir.startsWith("-") || extra.length) {
    process.stderr.write(USAGE);
    return dir === "--help" || dir === "-h" ? 0 : 2;
  }
  const config = loadConfig();
  try {
    const m = restore(dir, config);
    process.stdout.write(`restored ${m.created_at} backup into ${config.dataDir}: ${m.database.kind} database, ${m.files.length} files\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`clipyard restore: ${(err as Error).message}\n`);
    return err instanceof RestoreRefused ? 2 : 1;
  }
}
