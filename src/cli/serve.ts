import { buildAppliance } from "../appliance.ts";
import { loadConfig, ROLES, type Config } from "../config.ts";
import { log, setLogLevel } from "../log.ts";
import { sweepDeadScratch } from "../scratch.ts";
import { parseArgs } from "./args.ts";

/**
 * What one node runs. `all` (the default) is the single appliance. In a cluster on one PostgreSQL
 * (docs/scale-out.md), `api` nodes answer HTTP only and `worker` nodes run the scheduler, the
 * pipeline, re-renders, feed polls and webhook deliveries, claiming work from the shared database.
 */
export type Role = Config["role"];

/** `--role` wins over CLIPYARD_ROLE (the setting, for containers that cannot change the command). */
export function roleOf(argv: string[], config: Config): Role {
  const { opts } = parseArgs(argv);
  const role = opts.role ?? config.role;
  if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role)) throw new Error(`--role must be one of ${ROLES.join(", ")}, got ${String(role)}`);
  return role as Role;
}

/** `clipyard serve [--role all|api|worker]`: the HTTP API, the scheduler and workers, or one of the two. */
export default async function serve(argv: string[]): Promise<number> {
  const config = loadConfig();
  const role = roleOf(argv, config);
  setLogLevel(config.logLevel);
  const serveHttp = role !== "worker";
  const runWork = role !== "api";
  // A previous run killed mid-job (kill -9, power loss) never removed its work folders.
  if (runWork) sweepDeadScratch();
  const { api, scheduler, deliveries, feeds, renders, ctx } = buildAppliance(config);
  if (serveHttp) api.listen({ hostname: config.host, port: config.port });
  if (runWork) {
    scheduler.start();
    deliveries.start();
    renders.start();
    feeds.start();
  }
  const sweep = serveHttp ? setInterval(() => ctx.limiter.sweep(), 60_000) : undefined;
  let closing = false;
  // SIGTERM: stop taking requests and claims; a live job still running is aborted and handed back
  // (its lease released), so another worker resumes it at its last checkpoint at once.
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info("shutting down", { signal, role });
    if (sweep) clearInterval(sweep);
    if (serveHttp) await api.stop();
    if (runWork) {
      await scheduler.stop();
      await deliveries.stop();
      await renders.stop();
      await feeds.stop();
    }
    ctx.db.$client.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // Said once the signals are taken: whoever waits for this line may stop the node at once.
  log.info(serveHttp ? "clipyard listening" : "clipyard worker started", {
    role,
    ...(serveHttp ? { url: `http://${config.host}:${config.port}`, publicUrl: config.publicUrl } : { workers: config.workers, owner: scheduler.owner }),
    dataDir: config.dataDir,
    database: config.databaseUrl ? "postgresql" : "sqlite",
  });
  return 0;
}
