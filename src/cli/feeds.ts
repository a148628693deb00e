import { findOrgByName } from "../accounts/orgs.ts";
import { ApiError } from "../errors.ts";
import { FeedCreateSchema } from "../feeds/schema.ts";
import { parseOrThrow } from "../validate.ts";
import { systemClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { openDb, type Db } from "../db/client.ts";
import { presentFeed } from "../feeds/present.ts";
import { registerFeed } from "../feeds/service.ts";
import { listOrgFeeds, markFeedDeleted } from "../feeds/store.ts";
import { parseArgs } from "./args.ts";

const USAGE = `usage:
  clipyard feeds add URL --org NAME [--env test|live] [--since DATE]   register a podcast feed (prints its id); default env test
  clipyard feeds list --org NAME                                      the organisation's feeds, both environments
  clipyard feeds remove ID                                            stop polling a feed (its jobs stay)
`;

function usage(): number {
  process.stderr.write(USAGE);
  return 2;
}

/**
 * Operator commands for podcast feeds, writing the database directly like `keys`: a running server's
 * poller picks a new feed up within a second. Input is checked by the API's own schema.
 */
export default async function feeds(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { opts, rest: positional } = parseArgs(rest);
  const config = loadConfig();
  const db = openDb(config);
  try {
    if (sub === "remove") {
      if (!positional[0]) return usage();
      if (!markFeedDeleted(db, positional[0], systemClock.now())) {
        process.stderr.write(`clipyard: no feed ${positional[0]}\n`);
        return 1;
      }
      process.stderr.write("removed\n");
      return 0;
    }
    if ((sub !== "add" && sub !== "list") || typeof opts.org !== "string") return usage();
    const org = findOrgByName(db, opts.org);
    if (!org) {
      process.stderr.write(`clipyard: no organisation ${opts.org} (create one with: clipyard keys create --org NAME)\n`);
      return 1;
    }
    if (sub === "list") return list(db, org.id);
    const env = opts.env ?? "test";
    if (!positional[0] || (env !== "test" && env !== "live")) return usage();
    const input = { url: positional[0], ...(typeof opts.since === "string" ? { since: opts.since } : {}) };
    try {
      const body = parseOrThrow(FeedCreateSchema, input, () => "invalid_body");
      const policy = { allowPrivateNetwork: config.allowPrivateNetwork, allowHttp: config.allowHttp };
      const feed = registerFeed({ db, clock: systemClock, policy, wake: () => {} }, { orgId: org.id, env }, body);
      process.stdout.write(`${feed.id}\n`);
      return 0;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      process.stderr.write(`clipyard: ${err.message}\n`);
      return 1;
    }
  } finally {
    db.$client.close();
  }
}

function list(db: Db, orgId: string): number {
  for (const row of listOrgFeeds(db, orgId)) {
    const f = presentFeed(row);
    const cells = [f.id, f.livemode ? "live" : "test", f.url, f.last_status, `${f.jobs_created}/${f.items_seen} jobs/seen`, f.last_polled_at ?? "never", f.last_error ?? ""];
    process.stdout.write(`${cells.join("\t")}\n`);
  }
  return 0;
}
