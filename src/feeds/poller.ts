import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import type { FeedRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { Pacer } from "../jobs/pacer.ts";
import { log } from "../log.ts";
import type { NetworkPolicy } from "../net/ip-policy.ts";
import { FEED_TIMEOUT_MS, fetchFeed } from "./fetch.ts";
import { ingestEpisodes, type IngestDeps } from "./ingest.ts";
import { NotAFeed, type Episode } from "./parse.ts";
import { PARSE_TIMEOUT_MS, parseNewestEpisodes } from "./parse-off-thread.ts";
import { claimDueFeeds, finishPoll, nextFeedDueAt, type PollRecord } from "./store.ts";

export interface FeedPollerOptions extends IngestDeps {
  policy: NetworkPolicy;
  /** Time between two polls of a feed, already multiplied by the time scale. */
  intervalMs: number;
  /** Called when a poll made jobs, so the scheduler starts them without waiting for its next tick. */
  onJobs(): void;
  concurrency?: number;
  /** Largest feed document read (CLIPYARD_FEED_MAX_BYTES). */
  maxBytes?: number;
  /** Only the newest this-many episodes of a feed are candidates at a poll (CLIPYARD_FEED_MAX_ITEMS). */
  maxItems?: number;
}

export const DEFAULT_FEED_MAX_ITEMS = 200;

// Covers the fetch with its redirects, the parse and the ingest; a poll still running past it is repeated.
export const FEED_LEASE_MS = 6 * FEED_TIMEOUT_MS + PARSE_TIMEOUT_MS + 60_000;

/**
 * Polls due feeds: one leased poll per feed at a time, across processes sharing the database. Runs
 * on the same Pacer as the scheduler and the delivery worker.
 */
export class FeedPoller {
  readonly owner = newId("fpoller");
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pacer: Pacer;

  constructor(private readonly opts: FeedPollerOptions) {
    this.pacer = new Pacer("feed poll tick", opts.clock, () => this.tick(), () => nextFeedDueAt(opts.db));
  }

  private get db(): Db {
    return this.opts.db;
  }

  private get clock(): Clock {
    return this.opts.clock;
  }

  /** Claims the due feeds and polls them; resolves when those polls are recorded. */
  async tick(): Promise<void> {
    const free = (this.opts.concurrency ?? 4) - this.inFlight.size;
    // Idle ticks stay reads: the claim is an UPDATE, which would take the write lock every second.
    if (free <= 0 || (nextFeedDueAt(this.db) ?? Infinity) > this.clock.now()) return;
    const claimed = claimDueFeeds(this.db, this.owner, this.clock.now(), FEED_LEASE_MS, free);
    await Promise.all(
      claimed.map((feed) => {
        const p = this.poll(feed)
          .catch((err) => log.error("feed poll crashed", { feed: feed.id, error: String(err) }))
          .finally(() => {
            this.inFlight.delete(p);
            this.wake();
          });
        this.inFlight.add(p);
        return p;
      }),
    );
  }

  private async poll(feed: FeedRow): Promise<void> {
    const fetched = await fetchFeed(feed.url, { etag: feed.etag, lastModified: feed.lastModified }, this.opts.policy, this.opts.maxBytes);
    const now = this.clock.now();
    const record: PollRecord = { now, nextPollAt: now + this.opts.intervalMs, status: "error", error: null };
    if (fetched.kind === "not_modified") record.status = "not_modified";
    else if (fetched.kind === "error") record.error = fetched.message;
    else {
      let episodes: Episode[] | undefined;
      try {
        episodes = await parseNewestEpisodes(fetched.body, this.opts.maxItems ?? DEFAULT_FEED_MAX_ITEMS);
      } catch (err) {
        // A document that kills or stalls the parser thread is this feed's problem, not the poller's.
        record.error = err instanceof NotAFeed ? err.message : `the feed could not be parsed (${(err as Error).message})`;
      }
      if (episodes) {
        const result = await ingestEpisodes(this.opts, feed, episodes, newId("req"));
        if (result.jobsCreated > 0) {
          log.info("feed poll made jobs", { feed: feed.id, jobs: result.jobsCreated });
          this.opts.onJobs();
        }
        record.status = "ok";
        record.error = result.problem;
        // Keep the validators only when every episode is settled: otherwise a 304 would hide the
        // episodes still waiting (for credit, or past the per-poll cap) from the next poll.
        record.validators = result.unsettled === 0 ? fetched.validators : { etag: null, lastModified: null };
      }
    }
    if (!finishPoll(this.db, feed.id, this.owner, record)) log.warn("feed lease lost during poll", { feed: feed.id });
  }

  start(): void {
    this.pacer.start();
  }

  wake(): void {
    this.pacer.wake();
  }

  /** Stops claiming; lets polls in flight finish (bounded by the fetch timeout). */
  async stop(): Promise<void> {
    this.pacer.stop();
    await Promise.race([Promise.all(this.inFlight), Bun.sleep(FEED_TIMEOUT_MS)]);
  }
}
