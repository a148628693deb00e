import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { ManualClock } from "../../src/clock.ts";
import { feedItems } from "../../src/db/schema.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { episodes, pollDueFeeds, rss, startFeedFileHost, startFeedServer } from "../helpers/feed-server.ts";

/**
 * The bounds on feeds (issue 36): a back catalogue of tens of thousands of items is parsed off the
 * main thread and only its newest CLIPYARD_FEED_MAX_ITEMS episodes are considered, so /healthz keeps
 * answering during every poll and feed_items grows by at most that many rows; an organisation's
 * feeds and a feed's size are bounded by settings. A real podcast host on 127.0.0.1 serves the
 * documents; the poller is driven tick by tick with a manual clock.
 */

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" };
const MAX_ITEMS = 300;
const clock = new ManualClock(Date.UTC(2026, 10, 20));
let app: TestAppliance;

beforeAll(async () => {
  app = await startAppliance({ clock, env: { ...LAN, CLIPYARD_FEED_MAX_ITEMS: String(MAX_ITEMS), CLIPYARD_MAX_FEEDS_PER_ORG: "2", CLIPYARD_FEED_MAX_BYTES: "12000000" }, scheduler: false });
});
afterAll(() => app.stop());

const rowsOf = (feedId: string) => app.ctx.db.select({ n: count() }).from(feedItems).where(eq(feedItems.feedId, feedId)).get()!.n;

/** Runs `work` while asking /healthz over and over: the latency of every probe, and how long the work took. */
async function probeDuring(work: Promise<unknown>): Promise<{ latencies: number[]; workMs: number }> {
  let done = false;
  const started = performance.now();
  let workMs = 0;
  void work.finally(() => ((done = true), (workMs = performance.now() - started)));
  const latencies: number[] = [];
  while (!done) {
    const t = performance.now();
    const res = await fetch(`${app.baseUrl}/healthz`);
    await res.arrayBuffer();
    latencies.push(performance.now() - t);
    expect(res.status).toBe(200);
  }
  await work;
  return { latencies, workMs };
}

/**
 * The event loop was never held. Before the fix one poll held /healthz for its whole parse (20-58 s):
 * the slowest probe then takes most of the poll. Now the slowest takes under a third of it (or a
 * second, on a poll that fast), and the median stays under 200 ms. The bounds are relative because
 * CI runs on a loaded machine, where a probe can wait seconds for a core while the parse thread and
 * other test files run: that is the machine being busy, not the loop being blocked.
 */
function answersThroughout({ latencies, workMs }: { latencies: number[]; workMs: number }): void {
  const sorted = [...latencies].sort((a, b) => a - b);
  expect(sorted.at(-1)!).toBeLessThan(Math.max(1000, workMs / 3));
  expect(sorted[Math.floor(sorted.length / 2)]!).toBeLessThan(200);
  expect(latencies.length).toBeGreaterThan(20);
}

test("a 40 000-item feed: /healthz answers throughout each poll, and only the newest items are recorded", async () => {
  const all = episodes(40_000);
  const dir = mkdtempSync(join(tmpdir(), "clipyard-feed-"));
  const file = join(dir, "feed.xml");
  writeFileSync(file, rss(all));
  expect(statSync(file).size).toBeGreaterThan(8_000_000);
  const host = await startFeedFileHost(file);
  try {
    const key = app.key("feeds-big");
    // The newest 30 episodes are after `since`: 30 jobs; the other 270 candidates are skipped for good.
    const since = all.at(-31)!.published!;
    const created = await app.api("POST", "/v1/feeds", { key, body: { url: host.url(), since } });
    expect(created.status).toBe(201);
    const id = created.json.id;

    // The poll took long enough (fetch, parse, ingest) to be probed many times, and the server kept
    // answering throughout (see answersThroughout).
    answersThroughout(await probeDuring(pollDueFeeds(app, clock)));
    const feed = (await app.api("GET", "/v1/feeds", { key })).json.data[0];
    expect(feed).toMatchObject({ id, last_status: "ok", last_error: null, items_seen: MAX_ITEMS, jobs_created: 30 });
    expect(rowsOf(id)).toBe(MAX_ITEMS);
    const jobs = (await app.api("GET", "/v1/jobs?limit=100", { key })).json.data.map((j: any) => j.source.url);
    expect(jobs).toHaveLength(30);
    expect(jobs).toContain(all.at(-1)!.url);
    expect(jobs).not.toContain(all.at(-31)!.url);

    // Two new episodes under a new ETag: the whole document is fetched and parsed again, the two
    // newest become jobs, and the rows grow by two only.
    writeFileSync(file, rss(episodes(40_002)));
    clock.advance(app.ctx.config.feedPollSeconds * 1000 * app.ctx.config.timeScale);
    answersThroughout(await probeDuring(pollDueFeeds(app, clock)));
    expect(await host.statuses()).toEqual([200, 200]);
    expect((await app.api("GET", "/v1/feeds", { key })).json.data[0]).toMatchObject({ last_status: "ok", jobs_created: 32 });
    expect(rowsOf(id)).toBe(MAX_ITEMS + 2);
  } finally {
    host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);

test("an organisation may register CLIPYARD_MAX_FEEDS_PER_ORG feeds, both worlds together; another organisation is unaffected", async () => {
  const host = startFeedServer(episodes(1));
  const test_ = app.key("feeds-many", "test");
  const live = app.key("feeds-many", "live");
  expect((await app.api("POST", "/v1/feeds", { key: test_, body: { url: host.url("/a.xml") } })).status).toBe(201);
  const second = await app.api("POST", "/v1/feeds", { key: live, body: { url: host.url("/b.xml") } });
  expect(second.status).toBe(201);
  const third = await app.api("POST", "/v1/feeds", { key: test_, body: { url: host.url("/c.xml") } });
  expect(third.status).toBe(409);
  expect(third.json.error).toMatchObject({ type: "invalid_request_error", code: "feed_limit_reached", param: "url" });
  expect(third.json.error.message).toContain("2 feeds");
  expect((await app.api("POST", "/v1/feeds", { key: app.key("feeds-other"), body: { url: host.url("/c.xml") } })).status).toBe(201);
  // Deleting one makes room again.
  expect((await app.api("DELETE", `/v1/feeds/${second.json.id}`, { key: live })).status).toBe(200);
  expect((await app.api("POST", "/v1/feeds", { key: test_, body: { url: host.url("/c.xml") } })).status).toBe(201);
  host.stop();
});

test("a feed over CLIPYARD_FEED_MAX_BYTES is refused at the poll without reading it all", async () => {
  const host = startFeedServer();
  host.setBody(rss(episodes(70_000)));
  const key = app.key("feeds-huge");
  const created = await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } });
  await pollDueFeeds(app, clock);
  const feed = (await app.api("GET", "/v1/feeds", { key })).json.data.find((f: any) => f.id === created.json.id);
  expect(feed).toMatchObject({ last_status: "error", last_error: "feed larger than 12000000 bytes (CLIPYARD_FEED_MAX_BYTES)", items_seen: 0 });
  expect(rowsOf(created.json.id)).toBe(0);
  host.stop();
}, 60_000);
