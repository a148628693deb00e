import { brandSnapshot } from "./accounts/brand.ts";
import { systemClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { AppContext } from "./api/context.ts";
import { openDb } from "./db/client.ts";
import { agreedSetting, installationSecret } from "./db/settings.ts";
import { DbSlidingWindowLimiter, SlidingWindowLimiter } from "./api/rate-limit.ts";
import { buildApi } from "./api/app.ts";
import { StagedLiveRunner } from "./jobs/live-runner.ts";
import { SandboxRunner } from "./jobs/sandbox-runner.ts";
import { Scheduler } from "./jobs/scheduler.ts";
import { JobTransitions } from "./jobs/transitions.ts";
import { livePipeline } from "./pipeline/live.ts";
import { getVocabulary } from "./accounts/vocabulary.ts";
import { SecretBox } from "./secrets.ts";
import { clipReviewedOutbox, jobEventOutbox } from "./webhooks/events.ts";
import { EditorClips } from "./jobs/editor-clips.ts";
import { TranscriptCorrections } from "./jobs/corrections.ts";
import { RenderRequests } from "./renders/requests.ts";
import { ClipRenderWorker } from "./renders/worker.ts";
import { rerenderLiveClip, rerenderLiveTrailer } from "./pipeline/render/rerender.ts";
import { DeliveryWorker } from "./webhooks/worker.ts";
import { Billing } from "./billing/service.ts";
import { loadBillingConfig } from "./billing/config.ts";
import { UploadService } from "./uploads/service.ts";
import { DiskReserve } from "./storage/disk-space.ts";
import { sweepExpiredUploads } from "./uploads/store.ts";
import { FeedPoller } from "./feeds/poller.ts";
import { openStore } from "./storage/index.ts";

export interface Appliance {
  ctx: AppContext;
  scheduler: Scheduler;
  api: ReturnType<typeof buildApi>;
  deliveries: DeliveryWorker;
  feeds: FeedPoller;
  renders: ClipRenderWorker;
}

/** The composition root: builds every service once and wires them together. */
export function buildAppliance(config: Config, clock: Clock = systemClock): Appliance {
  const db = openDb(config);
  // Chosen once: the data directory (the embedded default), or a bucket every node shares.
  const storage = openStore(config.dataDir, config.storage);
  const shareSecret = installationSecret(db, "share_secret");
  const transitions = new JobTransitions(db, clock, shareSecret);
  const billing = new Billing(db, clock, loadBillingConfig());
  let scheduler: Scheduler | undefined;
  const policy = { allowPrivateNetwork: config.allowPrivateNetwork, allowHttp: config.allowHttp };
  const present = { publicUrl: config.publicUrl, shareSecret };
  const box = SecretBox.forConfig(config);
  // A node with another key would seal webhook secrets the others cannot open (and fail to open
  // theirs): refuse to start instead of failing deliveries later.
  if (agreedSetting(db, "secret_box_fingerprint", box.fingerprint()) !== box.fingerprint()) {
    throw new Error(
      "CLIPYARD_SECRET_KEY: this node's secret key is not the one this database's webhook secrets are sealed with; give every node of a cluster the same CLIPYARD_SECRET_KEY (docs/scale-out.md)",
    );
  }
  const deliveries = new DeliveryWorker(db, clock, box, policy, config.timeScale);
  transitions.onTerminal(jobEventOutbox(db, clock, present, () => deliveries.wake()));
  const disk = new DiskReserve(config.dataDir, config.diskReserveBytes);
  const ctx: AppContext = {
    config,
    db,
    clock,
    // One window per key across a cluster's API nodes (PostgreSQL); in memory on a single appliance.
    limiter: config.databaseUrl ? new DbSlidingWindowLimiter(db, clock) : new SlidingWindowLimiter(clock),
    present,
    transitions,
    submitEffects: [],
    reviewEffects: [clipReviewedOutbox(db, clock, present, () => deliveries.wake())],
    renders: new RenderRequests(db, clock, config.dataDir, () => renders.wake(), storage, config.maxQueuedRendersPerOrg),
    editorClips: new EditorClips(db, clock, config.dataDir, () => renders.wake(), storage, config.maxQueuedRendersPerOrg),
    corrections: new TranscriptCorrections(db, clock, config.dataDir, () => renders.wake(), storage),
    billing,
    storage,
    uploads: new UploadService(db, clock, config.dataDir, config.maxMediaBytes, { disk, quotaBytes: config.uploadQuotaBytes }, storage),
    disk,
    wakeScheduler: () => scheduler?.wake(),
    webhooks: { db, clock, box, policy, present, wake: () => deliveries.wake() },
    feeds: { db, clock, policy, maxFeedsPerOrg: config.maxFeedsPerOrg, wake: () => feeds.wake() },
  };
  billing.install(transitions, ctx.submitEffects);
  const feeds = new FeedPoller({
    db,
    clock,
    policy,
    timeScale: config.timeScale,
    allowHttp: config.allowHttp,
    liveEffects: ctx.submitEffects,
    intervalMs: config.feedPollSeconds * 1000 * config.timeScale,
    maxBytes: config.feedMaxBytes,
    maxItems: config.feedMaxItems,
    onJobs: () => scheduler?.wake(),
  });
  const sandbox = new SandboxRunner(db, clock, transitions, config.timeScale);
  const live = new StagedLiveRunner(config, transitions, livePipeline(config, { store: storage, orgVocabulary: (job) => getVocabulary(db, { orgId: job.orgId, env: job.env }).entries, orgBrand: (job) => brandSnapshot(db, { orgId: job.orgId, env: job.env }) }), storage);
  scheduler = new Scheduler(db, clock, transitions, sandbox, live, {
    workers: config.workers,
    perOrgLimit: config.maxLiveJobsPerOrg,
    leaseMs: config.leaseSeconds * 1000,
    timeScale: config.timeScale,
    housekeeping: [() => sweepExpiredUploads(db, clock, config.dataDir, storage)],
  });
  const renders = new ClipRenderWorker(db, clock, config.dataDir, rerenderLiveClip, storage, rerenderLiveTrailer);
  return { ctx, scheduler, deliveries, feeds, renders, api: buildApi(ctx) };
}
