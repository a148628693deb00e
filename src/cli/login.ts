import { findOrgByName } from "../accounts/orgs.ts";
import { systemClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { openDb } from "../db/client.ts";
import { issueLoginToken, loginUrl, LOGIN_TOKEN_TTL_MS } from "../web/dashboard/session.ts";
import { parseArgs } from "./args.ts";

/** `clipyard login --org NAME`: prints a one-time dashboard sign-in link (alone on stdout). */
export default async function login(argv: string[]): Promise<number> {
  const { opts } = parseArgs(argv);
  if (typeof opts.org !== "string" || !opts.org.trim()) {
    process.stderr.write("usage: clipyard login --org NAME   print a one-time sign-in link for the dashboard\n");
    return 2;
  }
  const config = loadConfig();
  const db = openDb(config);
  try {
    const org = findOrgByName(db, opts.org.trim());
    if (!org) {
      process.stderr.write(`clipyard: no organisation ${opts.org} (create one with: clipyard keys create --org NAME)\n`);
      return 1;
    }
    const { token } = issueLoginToken(db, systemClock, org.id);
    process.stdout.write(loginUrl(config.publicUrl, token) + "\n");
    process.stderr.write(`single use, valid for ${LOGIN_TOKEN_TTL_MS / 60000} minutes\n`);
    return 0;
  } finally {
    db.$client.close();
  }
}
