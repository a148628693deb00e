import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { RateLimiter } from "./rate-limit.ts";
import type { PresentContext } from "../jobs/present.ts";
import type { JobTransitions } from "../jobs/transitions.ts";
import type { SubmitEffect } from "../jobs/submit.ts";
import type { ReviewEffect } from "../jobs/review.ts";
import type { RenderRequests } from "../renders/requests.ts";
import type { EditorClips } from "../jobs/editor-clips.ts";
import type { TranscriptCorrections } from "../jobs/corrections.ts";
import type { WebhookDeps } from "../webhooks/service.ts";
import type { Billing } from "../billing/service.ts";
import type { UploadService } from "../uploads/service.ts";
import type { FeedDeps } from "../feeds/service.ts";
import type { ObjectStore } from "../storage/index.ts";
import type { DiskReserve } from "../storage/disk-space.ts";

/** Everything a request handler or worker needs, built once in src/appliance.ts (the composition root). */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  present: PresentContext;
  transitions: JobTransitions;
  /** Effects committed with every new job (billing holds for live jobs). */
  submitEffects: SubmitEffect[];
  webhooks: WebhookDeps;
  feeds: FeedDeps;
  /** Wallet, top-ups and receipts (src/billing/). */
  billing: Billing;
  /** Where job outputs live: the data directory, or the shared bucket (CLIPYARD_STORAGE_URL). */
  storage: ObjectStore;
  /** The data disk's free-space reserve: uploads and new jobs ask it first. */
  disk: DiskReserve;
  /** POST /v1/uploads: tus and raw-body uploads (src/uploads/). */
  uploads: UploadService;
  /** Effects committed with a guest's clip review (the clip.reviewed webhook outbox). */
  reviewEffects: ReviewEffect[];
  /** Clip re-renders: asked for over HTTP, run by the render worker. */
  renders: RenderRequests;
  /** Clips the producer adds or removes (POST/DELETE /v1/jobs/{id}/clips); their renders run on the render worker. */
  editorClips: EditorClips;
  /** Transcript corrections (POST /v1/jobs/{id}/transcript/corrections); the renders they need run on the render worker. */
  corrections: TranscriptCorrections;
  /** Nudges the scheduler after a submission so sandbox timing does not wait for the next poll. */
  wakeScheduler(): void;
}
