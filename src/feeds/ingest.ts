import { ApiError } from "../errors.ts";
import { BoundedUrlSchema } from "../net/url-bounds.ts";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { FeedRow } from "../db/schema.ts";
import { checkSourceUrl } from "../jobs/source-url.ts";
import { submitJob, type SubmitEffect } from "../jobs/submit.ts";
import { log } from "../log.ts";
import type { Episode } from "./parse.ts";
import { getFeedById, recordItem, settledItemKeys } from "./store.ts";

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

/**
 * Turns a feed's episodes into jobs, each at most once. An episode's job and its feed_items row commit
 * in one transaction, and the row's primary key refuses a second one, so a repeated poll (a restart,
 * a lapsed lease, two pollers) never makes a second job. An episode refused by billing is not
 * recorded: it is tried again at the next poll.
 */
export function ingestEpisodes(deps: IngestDeps, feed: FeedRow, episodes: Episode[], requestId: string): IngestResult {
  const settled = settledItemKeys(deps.db, feed.id);
  const scope = { orgId: feed.orgId, env: feed.env };
  const options = JSON.parse(feed.options);
  const result: IngestResult = { jobsCreated: 0, unsettled: 0, problem: null };
  const fresh = episodes.filter((e) => !settled.has(e.key));
  for (const [i, ep] of fresh.entries()) {
    const now = deps.clock.now();
    const base = { feedId: feed.id, itemKey: ep.key, enclosureUrl: ep.enclosureUrl, publishedAt: ep.publishedAt, createdAt: now };
    // An undated episode counts as published when first seen.
    const skipReason =
      feed.since !== null && (ep.publishedAt ?? now) <= feed.since ? "published before since" : enclosureProblem(ep.enclosureUrl, deps.allowHttp);
    if (skipReason !== null) {
      tx(deps.db, () => recordItem(deps.db, { ...base, jobId: null, skippedReason: skipReason }));
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
      if (err instanceof FeedDeleted) break;
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
  return result;
}
