import { createKey, listKeys, revokeKey } from "../accounts/keys.ts";
import { ensureOrg, findOrgByName } from "../accounts/orgs.ts";
import { systemClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { openDb } from "../db/client.ts";
import { parseArgs } from "./args.ts";

const USAGE = `usage:
  clipyard keys create --org NAME --env test|live   print a new key (alone on stdout); creates the org if needed
  clipyard keys revoke KEY                          revoke a key
  clipyard keys list --org NAME                     list an org's keys (hints only; keys are never stored)
`;

export default async function keys(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { opts, rest: positional } = parseArgs(rest);
  const db = openDb(loadConfig());
  try {
    switch (sub) {
      case "create": {
        const org = opts.org;
        const env = opts.env ?? "test";
        if (typeof org !== "string" || !org.trim() || (env !== "test" && env !== "live")) {
          process.stderr.write(USAGE);
          return 2;
        }
        const { key } = createKey(db, ensureOrg(db, org.trim(), systemClock).id, env, systemClock);
        process.stdout.write(key + "\n");
        return 0;
      }
      case "revoke": {
        const key = positional[0];
        if (!key) {
          process.stderr.write(USAGE);
          return 2;
        }
        if (!revokeKey(db, key, systemClock)) {
          process.stderr.write("clipyard: no such key\n");
          return 1;
        }
        process.stderr.write("revoked\n");
        return 0;
      }
      case "list": {
        const org = typeof opts.org === "string" ? findOrgByName(db, opts.org) : undefined;
        if (!org) {
          process.stderr.write(typeof opts.org === "string" ? `clipyard: no organisation ${opts.org}\n` : USAGE);
          return typeof opts.org === "string" ? 1 : 2;
        }
        for (const k of listKeys(db, org.id)) {
          const state = k.revokedAt ? `revoked ${new Date(k.revokedAt).toISOString()}` : "active";
          process.stdout.write(`${k.id}\t${k.env}\t${k.hint}\t${new Date(k.createdAt).toISOString()}\t${state}\n`);
        }
        return 0;
      }
      default:
        process.stderr.write(USAGE);
        return 2;
    }
  } finally {
    db.$client.close();
  }
}
