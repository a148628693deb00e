import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import type { Db } from "../../src/db/client.ts";
import { openTestDb } from "../helpers/db.ts";
import { FEED_LEASE_MS, FeedPoller } from "../../src/feeds/poller.ts";
import { recordItem } from "../../src/feeds/store.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { episodes, startFeedServer } from "../helpers/feed-server.ts";

/**
 * Two pollers on one database file (as two appliance processes would be), driven tick by tick. A slow
 * host keeps the first poller's fetch in flight while the test moves the clock past its lease.
 */
const clock = new ManualClock(Date.UTC(2026, 10, 20));
let app: TestAppliance;
let otherDb: Db;
let other: FeedPoller;
beforeAll(async () => {
  app = await startAppliance({ clock, scheduler: false, env: { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" } });
  otherDb = openTestDb(app.dataDir);
  other = new FeedPoller({
    db: otherDb,
    clock,
    policy: { allowPrivateNetwork: true, allowHttp: true },
    timeScale: 1,
    allowHttp: true,
    liveEffects: [],
    intervalMs: 60_000,
    onJobs: () => {},
  });
});
afterAll(async () => {
  otherDb.$client.close();
  await app.stop();
});

const count = (sql: string, ...args: string[]) => (app.ctx.db.$client.query(sql).get(...args) as { n: number }).n;

test("a poll whose lease lapsed is taken over; the late first poller makes no second job and cannot overwrite the state", async () => {
  const host = startFeedServer(episodes(3));
  const key = app.key("two-pollers");
  const feed = (await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } })).json;
  const release = host.holdNext();
  const first = app.feeds.tick();
  expect(app.ctx.db.$client.query("SELECT lease_owner FROM feeds WHERE id = ?").get(feed.id)).toEqual({ lease_owner: app.feeds.owner });

  // Within the lease, the second poller leaves the feed alone.
  await other.tick();
  expect(host.requests.length).toBe(0);

  clock.advance(FEED_LEASE_MS + 1);
  await other.tick();
  expect(count("SELECT count(*) AS n FROM jobs WHERE org_id = (SELECT org_id FROM feeds WHERE id = ?)", feed.id)).toBe(3);

  release();
  await first;
  expect(host.requests.map((r) => r.status)).toEqual([200, 200]);
  expect(count("SELECT count(*) AS n FROM jobs WHERE org_id = (SELECT org_id FROM feeds WHERE id = ?)", feed.id)).toBe(3);
  expect(count("SELECT count(*) AS n FROM feed_items WHERE feed_id = ?", feed.id)).toBe(3);
  const state = (await app.api("GET", "/v1/feeds", { key })).json.data[0];
  expect(state).toMatchObject({ items_seen: 3, jobs_created: 3, last_status: "ok" });
  // The state is the second poller's: its next poll time, not one the late poller computed.
  expect(Date.parse(state.next_poll_at)).toBe(clock.now() + 60_000);
  host.stop();
});

test("a feed deleted while its poll is in flight makes no job", async () => {
  const host = startFeedServer(episodes(2));
  const key = app.key("deleted-mid-poll");
  const feed = (await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } })).json;
  const release = host.holdNext();
  const poll = app.feeds.tick();
  expect((await app.api("DELETE", `/v1/feeds/${feed.id}`, { key })).status).toBe(200);
  release();
  await poll;
  expect(host.requests.length).toBe(1);
  expect((await app.api("GET", "/v1/jobs", { key })).json.data).toEqual([]);
  expect(count("SELECT count(*) AS n FROM feed_items WHERE feed_id = ?", feed.id)).toBe(0);
  host.stop();
});

test("the once-only record is the database's: a second record of an episode is refused whoever writes it", async () => {
  const key = app.key("record-once");
  const feed = (await app.api("POST", "/v1/feeds", { key, body: { url: "https://feeds.example.com/once.xml" } })).json;
  const row = { feedId: feed.id, itemKey: "guid-1", enclosureUrl: "https://m.example.com/1.mp3", publishedAt: null, jobId: null, skippedReason: "test", createdAt: clock.now() };
  expect(recordItem(app.ctx.db, row)).toBe(true);
  expect(recordItem(otherDb, row)).toBe(false);
  expect(() => otherDb.$client.query("INSERT INTO feed_items (feed_id, item_key, enclosure_url, skipped_reason, created_at) VALUES (?, 'guid-1', 'x', 'again', 0)").run(feed.id)).toThrow(/UNIQUE|unique constraint/);
  expect((await app.api("GET", "/v1/feeds", { key })).json.data[0].items_seen).toBe(1);
});
