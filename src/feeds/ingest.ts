import { ApiError } from "../errors.ts";
import { BoundedUrlSchema } from "../net/url-bounds.ts";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { FeedItemRow, FeedRow } from "../db/schema.ts";
import { checkSourceUrl } from "../jobs/source-url.ts";
import { submitJob, type SubmitEffect } from "../jobs/submit.ts";
import { log } from "../log.ts";
import type { Episode } from "./parse.ts";
import { getFeedById, recordItem, recordSkippedItems, settledAmong } from "./store.ts";

/** New jobs one poll makes at most; a longer back catalogue continues at the next polls. */
export const MAX_JOBS_PER_POLL = 50;

export interface IngestDeps {
  db: Db;
  clock: Clock;
  timeScale: number;
  allowHttp: boolean;
  /** Effects committed with every new live job (the billing hold), as for POST /v1/jobs. */
  liveEffects: SubmitEffect[];
}

export interface IngestResult {
  jobsCreated: number;
  /** Episodes left for the next poll (refused by billing, over the per-poll cap, or errored). */
  unsettled: number;
  problem: string | null;
}

/** Thrown inside a job's transaction to undo it: the episode was settled elsewhere meanwhile. */
class AlreadySettled extends Error {}
class FeedDeleted extends Error {}

function enclosureProblem(url: string, allowHttp: boolean): string | null {
  const bounded = BoundedUrlSchema.safeParse(url);
  if (!bounded.success) return `enclosure URL ${bounded.error.issues[0]!.message}`;
  return checkSourceUrl("video_url", url, { allowHttp });
}

/** Skipped episodes written per statement. */
const SKIP_BATCH = 50;
/** Longest stretch of synchronous database work before the ingest lets the event loop serve requests. */
const SLICE_MS = 10;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Turns a feed's episodes (the newest few the poll keeps) into jobs, each at most once. An episode's
 * job and its feed_items row commit in one transaction, and the row's primary key refuses a second
 * one, so a repeated poll (a restart, a lapsed lease, two pollers) never makes a second job. An
 * episode refused by billing is not recorded: it is tried again at the next poll. Episodes skipped
 * for good are written in batches, and the work yields to the event loop every few milliseconds, so
 * requests are served throughout.
 */
export async function ingestEpisodes(deps: IngestDeps, feed: FeedRow, episodes: Episode[], requestId: string): Promise<IngestResult> {
  const settled = settledAmong(deps.db, feed.id, episodes.map((e) => e.key));
  const scope = { orgId: feed.orgId, env: feed.env };
  const options = JSON.parse(feed.options);
  const result: IngestResult = { jobsCreated: 0, unsettled: 0, problem: null };
  const fresh = episodes.filter((e) => !settled.has(e.key));
  let skipped: FeedItemRow[] = [];
  const flushSkipped = () => {
    const batch = skipped;
    skipped = [];
    tx(deps.db, () => recordSkippedItems(deps.db, batch));
  };
  let sliceStart = performance.now();
  const maybeYield = async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await yieldToLoop();
    sliceStart = performance.now();
  };
  for (const [i, ep] of fresh.entries()) {
    await maybeYield();
    const now = deps.clock.now();
    const base = { feedId: feed.id, itemKey: ep.key, enclosureUrl: ep.enclosureUrl, publishedAt: ep.publishedAt, createdAt: now };
    // An undated episode counts as published when first seen.
    const skipReason =
      feed.since !== null && (ep.publishedAt ?? now) <= feed.since ? "published before since" : enclosureProblem(ep.enclosureUrl, deps.allowHttp);
    if (skipReason !== null) {
      skipped.push({ ...base, jobId: null, skippedReason: skipReason });
      if (skipped.length >= SKIP_BATCH) flushSkipped();
      continue;
    }
    if (result.jobsCreated >= MAX_JOBS_PER_POLL) {
      result.unsettled = fresh.length - i;
      result.problem ??= `more than ${MAX_JOBS_PER_POLL} new episodes: the rest follow at the next polls`;
      break;
    }
    const recordEpisode: SubmitEffect = (job) => {
      if (getFeedById(deps.db, feed.id)?.deletedAt !== null) throw new FeedDeleted();
      if (!recordItem(deps.db, { ...base, jobId: job.id, skippedReason: null })) throw new AlreadySettled();
    };
    try {
      submitJob(deps.db, deps.clock, scope, { source: { type: "video_url", url: ep.enclosureUrl }, options }, {
        requestId,
        timeScale: deps.timeScale,
        effects: [recordEpisode, ...(feed.env === "live" ? deps.liveEffects : [])],
      });
      result.jobsCreated++;
    } catch (err) {
      if (err instanceof AlreadySettled) continue;
      if (err instanceof FeedDeleted) {
        skipped = [];
        break;
      }
      result.unsettled = fresh.length - i;
      if (err instanceof ApiError) {
        // Billing refuses every later episode the same way: leave them all for the next poll.
        result.problem = `${err.code}: ${err.message} ${result.unsettled} episode(s) wait for the next poll.`;
      } else {
        log.error("feed episode failed", { feed: feed.id, episode: ep.key, error: String(err) });
        result.problem = `internal error on episode ${ep.key}; ${result.unsettled} episode(s) wait for the next poll.`;
      }
      break;
    }
  }
  flushSkipped();
  return result;
}
