import { systemClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import { openDb } from "./db/client.ts";
import { installationSecret } from "./db/settings.ts";
import { SlidingWindowLimiter } from "./api/rate-limit.ts";
import { buildApi } from "./api/app.ts";
import { StagedLiveRunner } from "./jobs/live-runner.ts";
import { SandboxRunner } from "./jobs/sandbox-runner.ts";
import { Scheduler } from "./jobs/scheduler.ts";
import { JobTransitions } from "./jobs/transitions.ts";
import { livePipeline } from "./pipeline/live.ts";
import { Billing } from "./billing/service.ts";
import { loadBillingConfig } from "./billing/config.ts";

export interface Appliance {
  ctx: AppContext;
  scheduler: Scheduler;
  api: ReturnType<typeof buildApi>;
}

/** The composition root: builds every service once and wires them together. */
export function buildAppliance(config: Config, clock: Clock = systemClock): Appliance {
  const db = openDb(config.dataDir);
  const shareSecret = installationSecret(db, "share_secret");
  const transitions = new JobTransitions(db, clock, shareSecret);
  const billing = new Billing(db, clock, loadBillingConfig());
  let scheduler: Scheduler | undefined;
  const ctx: AppContext = {
    config,
    db,
    clock,
    limiter: new SlidingWindowLimiter(clock),
    present: { publicUrl: config.publicUrl, shareSecret },
    transitions,
    submitEffects: [],
    billing,
    wakeScheduler: () => scheduler?.wake(),
  };
  billing.install(transitions, ctx.submitEffects);
  const sandbox = new SandboxRunner(db, clock, transitions, config.timeScale);
  const live = new StagedLiveRunner(config, transitions, livePipeline(config));
  scheduler = new Scheduler(db, clock, transitions, sandbox, live, { workers: config.workers, timeScale: config.timeScale });
  return { ctx, scheduler, api: buildApi(ctx) };
}
