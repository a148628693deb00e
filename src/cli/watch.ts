import { mkdirSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ensureOrg } from "../accounts/orgs.ts";
import { buildAppliance } from "../appliance.ts";
import { loadConfig } from "../config.ts";
import { log, setLogLevel } from "../log.ts";
import { sweepDeadScratch } from "../scratch.ts";
import { FolderWatcher } from "../watch/watcher.ts";
import { parseArgs } from "./args.ts";
import { JOB_OPTION_FLAGS, jobOptionsFromArgs } from "./job-options.ts";

const USAGE = `usage: clipyard watch DIR [--org NAME] ${JOB_OPTION_FLAGS}

Turns every media file copied into DIR into a live job of organisation NAME (default "local",
created if missing), billed like any live job, and writes each job's results to
DIR/clipyard/<file name>/ (clips, trailer, notes.md, transcript files, job.json). Runs the
scheduler and workers itself on the data directory \`serve\` uses, so the jobs also show in the
API and dashboard. Stop with Ctrl-C; a restart neither loses nor repeats files.
`;

/** `clipyard watch`: the appliance without HTTP, fed by a folder. Resolves when stopped by a signal. */
export default async function watchCommand(argv: string[]): Promise<number> {
  const { opts, rest } = parseArgs(argv, ["trailer", "help"]);
  if (opts.help || rest.length !== 1) {
    process.stderr.write(USAGE);
    return opts.help ? 0 : 2;
  }
  const dir = resolve(rest[0]!);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`clipyard: ${dir} is not a folder\n`);
    return 2;
  }
  const options = jobOptionsFromArgs(opts);
  if (typeof options === "string") {
    process.stderr.write(`clipyard: ${options}\n`);
    return 2;
  }
  // The stop signals are taken before anything starts: a SIGTERM that arrives as soon as the
  // "watching" line is out must stop the watcher cleanly, not kill it (Bun may install a handler
  // only after the current tick, and a supervisor can signal that early).
  const stopped = new Promise<string>((done) => {
    process.once("SIGTERM", () => done("SIGTERM"));
    process.once("SIGINT", () => done("SIGINT"));
  });
  const config = loadConfig();
  setLogLevel(config.logLevel);
  mkdirSync(config.dataDir, { recursive: true });
  sweepDeadScratch();
  const { scheduler, deliveries, ctx } = buildAppliance(config);
  const org = ensureOrg(ctx.db, typeof opts.org === "string" ? opts.org : "local", ctx.clock);
  const watcher = new FolderWatcher({
    db: ctx.db,
    clock: ctx.clock,
    dataDir: config.dataDir,
    uploads: ctx.uploads,
    timeScale: config.timeScale,
    liveEffects: ctx.submitEffects,
    folder: realpathSync(dir),
    scope: { orgId: org.id, env: "live" },
    options,
    present: ctx.present,
    settleMs: config.watchSettleSeconds * 1000,
    onJobs: () => scheduler.wake(),
  });
  scheduler.start();
  deliveries.start();
  watcher.start();
  log.info("clipyard watching", { folder: dir, org: org.name, dataDir: config.dataDir, settleSeconds: config.watchSettleSeconds });
  const signal = await stopped;
  log.info("shutting down", { signal });
  await watcher.stop();
  await scheduler.stop();
  await deliveries.stop();
  ctx.db.$client.close();
  return 0;
}
