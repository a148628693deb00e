import { isoUtc } from "../clock.ts";
import type { FeedRow } from "../db/schema.ts";
import type { Feed } from "./schema.ts";

export function presentFeed(f: FeedRow): Feed {
  return {
    id: f.id,
    object: "feed",
    url: f.url,
    since: f.since === null ? null : isoUtc(f.since),
    options: JSON.parse(f.options),
    created_at: isoUtc(f.createdAt),
    last_polled_at: f.lastPolledAt === null ? null : isoUtc(f.lastPolledAt),
    next_poll_at: isoUtc(f.nextPollAt),
    last_status: f.lastStatus,
    last_error: f.lastError,
    items_seen: f.itemsSeen,
    jobs_created: f.jobsCreated,
    livemode: f.env === "live",
  };
}
