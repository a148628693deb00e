import type { Scope } from "../accounts/scope.ts";
import { ApiError } from "../errors.ts";
import type { JobOptions } from "../jobs/schema.ts";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { FeedRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import type { NetworkPolicy } from "../net/ip-policy.ts";
import { checkUrl, OutboundRefused } from "../net/safe-fetch.ts";
import { countOrgFeeds, findFeedByUrl, getFeed, insertFeed, markFeedDeleted } from "./store.ts";

export interface FeedDeps {
  db: Db;
  clock: Clock;
  policy: NetworkPolicy;
  /** Feeds an organisation may have registered at once, both worlds together (CLIPYARD_MAX_FEEDS_PER_ORG). */
  maxFeedsPerOrg?: number;
  /** Nudges the poller so a new feed is read now, not at the next idle tick. */
  wake(): void;
}

/**
 * Registers a feed in the caller's world; it is polled at once. The URL is checked against the
 * outbound policy now (scheme, credentials, literal addresses) and again, host names resolved, at
 * every fetch.
 */
export function registerFeed(deps: FeedDeps, scope: Scope, input: { url: string; since?: number; options?: JobOptions }): FeedRow {
  try {
    checkUrl(input.url, deps.policy);
  } catch (err) {
    if (err instanceof OutboundRefused) throw new ApiError("invalid_feed_url", `url: ${err.message}`, "url");
    throw err;
  }
  const row = tx(deps.db, () => {
    const existing = findFeedByUrl(deps.db, scope, input.url);
    if (existing) throw new ApiError("feed_already_registered", `This feed is already registered as ${existing.id}.`, "url");
    // Every feed is polled and parsed for ever: the bound keeps one organisation from filling the poller.
    const max = deps.maxFeedsPerOrg ?? Infinity;
    if (countOrgFeeds(deps.db, scope.orgId) >= max) {
      throw new ApiError("feed_limit_reached", `This organisation already has ${max} feeds registered (both environments); delete one before registering another.`, "url");
    }
    const now = deps.clock.now();
    const feed: FeedRow = {
      id: newId("feed"),
      orgId: scope.orgId,
      env: scope.env,
      url: input.url,
      since: input.since ?? null,
      options: JSON.stringify(input.options ?? {}),
      createdAt: now,
      deletedAt: null,
      nextPollAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
      etag: null,
      lastModified: null,
      lastPolledAt: null,
      lastStatus: "pending",
      lastError: null,
      itemsSeen: 0,
      jobsCreated: 0,
    };
    insertFeed(deps.db, feed);
    return feed;
  });
  deps.wake();
  return row;
}

/** Stops polling; jobs already made from the feed stay. */
export function deleteFeed(deps: Pick<FeedDeps, "db" | "clock">, scope: Scope, id: string): FeedRow {
  return tx(deps.db, () => {
    const feed = getFeed(deps.db, scope, id);
    if (!feed || !markFeedDeleted(deps.db, id, deps.clock.now())) throw new ApiError("not_found", `No feed ${id}.`, "id");
    return feed;
  });
}
