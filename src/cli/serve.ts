import { buildAppliance } from "../app.ts";
import { loadConfig } from "../config.ts";
import { log, setLogLevel } from "../log.ts";
import { sweepDeadScratch } from "../scratch.ts";

/** `clipyard serve`: the HTTP API, scheduler and workers in one process. */
export default async function serve(_argv: string[]): Promise<number> {
  const config = loadConfig();
  setLogLevel(config.logLevel);
  // A previous run killed mid-job (kill -9, power loss) never removed its work folders.
  sweepDeadScratch();
  const { api, scheduler, deliveries, feeds, renders, ctx } = buildAppliance(config);
  api.listen({ hostname: config.host, port: config.port });
  scheduler.start();
  deliveries.start();
  renders.start();
  feeds.start();
  const sweep = setInterval(() => ctx.limiter.sweep(), 60_000);
  log.info("clipyard listening", { url: `http://${config.host}:${config.port}`, publicUrl: config.publicUrl, dataDir: config.dataDir });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info("shutting down", { signal });
    clearInterval(sweep);
    await api.stop();
    await scheduler.stop();
    await deliveries.stop();
    await renders.stop();
    await feeds.stop();
    ctx.db.$client.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  return 0;
}
