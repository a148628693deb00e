import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { findOrgByName } from "../../src/accounts/orgs.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { episodes, pollDueFeeds, startFeedServer } from "../helpers/feed-server.ts";

/**
 * Feeds through the HTTP API against a real podcast host on 127.0.0.1. The poller is driven tick by
 * tick with a manual clock (no timers), so every poll in these tests is one the test asked for.
 */

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" };
const clock = new ManualClock(Date.UTC(2026, 10, 20));
let app: TestAppliance;
let intervalMs: number;

beforeAll(async () => {
  app = await startAppliance({ clock, env: LAN, scheduler: false });
  intervalMs = app.ctx.config.feedPollSeconds * 1000 * app.ctx.config.timeScale;
});
afterAll(() => app.stop());

const pollDue = () => pollDueFeeds(app, clock);

async function nextPoll() {
  clock.advance(intervalMs);
  await pollDue();
}

async function feedOf(key: string, id: string) {
  const list = await app.api("GET", "/v1/feeds", { key });
  return list.json.data.find((f: any) => f.id === id);
}

/** Every job's source URL, oldest first (the list is newest first, 100 a page). */
async function jobUrls(key: string): Promise<string[]> {
  const urls: string[] = [];
  for (let after = ""; ; ) {
    const page = (await app.api("GET", `/v1/jobs?limit=100${after}`, { key })).json;
    urls.push(...page.data.map((j: any) => j.source.url));
    if (!page.has_more) return urls.reverse();
    after = `&starting_after=${page.data.at(-1).id}`;
  }
}

test("three episodes make three jobs once; a 304 makes none; a fourth episode makes a fourth job", async () => {
  const host = startFeedServer(episodes(3));
  const key = app.key("feeds-happy");
  const created = await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } });
  expect(created.status).toBe(201);
  expect(created.json).toMatchObject({
    object: "feed",
    url: host.url(),
    since: null,
    options: {},
    last_polled_at: null,
    last_status: "pending",
    last_error: null,
    items_seen: 0,
    jobs_created: 0,
    livemode: false,
  });
  expect(created.json.id).toStartWith("feed_");

  await pollDue();
  expect(await jobUrls(key)).toEqual(episodes(3).map((e) => e.url));
  const polled = await feedOf(key, created.json.id);
  expect(polled).toMatchObject({ last_status: "ok", last_error: null, items_seen: 3, jobs_created: 3, last_polled_at: new Date(clock.now()).toISOString() });
  expect(Date.parse(polled.next_poll_at)).toBe(clock.now() + intervalMs);
  const jobs = (await app.api("GET", "/v1/jobs", { key })).json.data;
  expect(jobs.every((j: any) => j.status === "queued" && j.livemode === false && j.source.type === "video_url")).toBe(true);

  // Not due yet: no request at all.
  await app.feeds.tick();
  expect(host.requests.length).toBe(1);

  await nextPoll();
  expect(host.requests[1]).toMatchObject({ ifNoneMatch: '"v1"', status: 304 });
  expect(await feedOf(key, created.json.id)).toMatchObject({ last_status: "not_modified", items_seen: 3, jobs_created: 3 });
  expect((await jobUrls(key)).length).toBe(3);

  host.setEpisodes(episodes(4));
  await nextPoll();
  expect(host.requests[2]).toMatchObject({ ifNoneMatch: '"v1"', status: 200 });
  expect(await jobUrls(key)).toEqual(episodes(4).map((e) => e.url));
  expect(await feedOf(key, created.json.id)).toMatchObject({ last_status: "ok", items_seen: 4, jobs_created: 4 });

  // The same document without its ETag's help (a host that lost its cache): still four.
  host.changeEtag();
  await nextPoll();
  expect(host.requests[3]!.status).toBe(200);
  expect((await jobUrls(key)).length).toBe(4);
  host.stop();
});

test("a host that dates its feed instead of tagging it gets If-Modified-Since, and answers 304", async () => {
  const host = startFeedServer(episodes(2), { validator: "last-modified" });
  const key = app.key("feeds-last-modified");
  await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } });
  await pollDue();
  await nextPoll();
  host.setEpisodes(episodes(3));
  await nextPoll();
  const sent = host.requests.map((r) => ({ ifNoneMatch: r.ifNoneMatch, ifModifiedSince: r.ifModifiedSince, status: r.status }));
  const v1 = new Date(Date.UTC(2026, 0, 1) + 60_000).toUTCString();
  expect(sent).toEqual([
    { ifNoneMatch: null, ifModifiedSince: null, status: 200 },
    { ifNoneMatch: null, ifModifiedSince: v1, status: 304 },
    { ifNoneMatch: null, ifModifiedSince: v1, status: 200 },
  ]);
  expect(await jobUrls(key)).toEqual(episodes(3).map((e) => e.url));
  host.stop();
});

test("a long back catalogue arrives 50 jobs a poll, oldest first; the feed is read in full until it is all in", async () => {
  const host = startFeedServer(episodes(120));
  const key = app.key("feeds-backlog");
  const feed = (await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } })).json;
  await pollDue();
  expect(await jobUrls(key)).toEqual(episodes(50).map((e) => e.url));
  expect((await feedOf(key, feed.id)).last_error).toBe("more than 50 new episodes: the rest follow at the next polls");
  await nextPoll();
  await nextPoll();
  expect(await jobUrls(key)).toEqual(episodes(120).map((e) => e.url));
  expect(await feedOf(key, feed.id)).toMatchObject({ last_error: null, items_seen: 120, jobs_created: 120 });
  await nextPoll();
  expect(host.requests.map((r) => [r.ifNoneMatch, r.status])).toEqual([[null, 200], [null, 200], [null, 200], ['"v1"', 304]]);
  host.stop();
});

test("since: only episodes published after it make jobs; the older ones count as seen", async () => {
  const host = startFeedServer(episodes(3));
  const key = app.key("feeds-since");
  const created = await app.api("POST", "/v1/feeds", { key, body: { url: host.url(), since: "2026-10-02" } });
  expect(created.json.since).toBe("2026-10-02T00:00:00.000Z");
  await pollDue();
  // Strictly after: the episode published at the very instant of since is not taken.
  expect(await jobUrls(key)).toEqual([episodes(3)[2]!.url]);
  expect(await feedOf(key, created.json.id)).toMatchObject({ items_seen: 3, jobs_created: 1 });
  host.stop();
});

test("an Atom feed behind a redirect; options reach every episode's job; an item without a GUID is keyed by its enclosure", async () => {
  const host = startFeedServer();
  host.setBody(`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom show</title><id>urn:show</id><updated>2026-11-01T00:00:00Z</updated>
<entry><title>Two</title><id>urn:ep:2</id><published>2026-11-02T00:00:00Z</published><link rel="enclosure" type="video/mp4" href="https://cdn.example.com/two.mp4"/></entry>
<entry><title>One</title><id>urn:ep:1</id><published>2026-11-01T00:00:00Z</published><link rel="enclosure" type="audio/mpeg" href="https://cdn.example.com/one.mp3"/></entry>
<entry><title>Notes only</title><id>urn:post</id><published>2026-11-03T00:00:00Z</published><link href="https://show.example.com/post"/></entry>
</feed>`);
  const key = app.key("feeds-atom");
  const created = await app.api("POST", "/v1/feeds", { key, body: { url: host.url("/moved.xml"), options: { include_trailer: true, clip_count: 2 } } });
  expect(created.status).toBe(201);
  await pollDue();
  expect(host.requests.map((r) => r.status)).toEqual([301, 200]);
  expect(await jobUrls(key)).toEqual(["https://cdn.example.com/one.mp3", "https://cdn.example.com/two.mp4"]);
  const jobs = (await app.api("GET", "/v1/jobs", { key })).json.data;
  expect(jobs.every((j: any) => j.options.include_trailer === true && j.options.clip_count === 2)).toBe(true);
  expect(await feedOf(key, created.json.id)).toMatchObject({ items_seen: 2, jobs_created: 2 });

  const rssNoGuid = startFeedServer([{ url: "https://cdn.example.com/a.mp3" }]);
  const other = (await app.api("POST", "/v1/feeds", { key, body: { url: rssNoGuid.url() } })).json;
  await pollDue();
  rssNoGuid.changeEtag();
  await nextPoll();
  expect(app.ctx.db.$client.query("SELECT item_key FROM feed_items WHERE feed_id = ?").all(other.id)).toEqual([{ item_key: "https://cdn.example.com/a.mp3" }]);
  host.stop();
  rssNoGuid.stop();
});

test("a live feed is billed like any submission: past the free tier with an empty wallet the episode waits, and is made once credit arrives", async () => {
  const host = startFeedServer(episodes(4));
  const key = app.key("feeds-live", "live");
  const created = await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } });
  expect(created.json.livemode).toBe(true);
  await pollDue();
  expect(await jobUrls(key)).toEqual(episodes(3).map((e) => e.url));
  const waiting = await feedOf(key, created.json.id);
  expect(waiting).toMatchObject({ last_status: "ok", items_seen: 3, jobs_created: 3 });
  expect(waiting.last_error).toStartWith("insufficient_balance: ");
  expect(waiting.last_error).toEndWith("1 episode(s) wait for the next poll.");

  // Still refused: the next poll asks again in full (no conditional GET, so no 304 can hide the episode).
  await nextPoll();
  expect(host.requests[1]).toMatchObject({ ifNoneMatch: null, status: 200 });
  expect((await jobUrls(key)).length).toBe(3);

  app.ctx.billing.grant(findOrgByName(app.ctx.db, "feeds-live")!.id, 2000);
  await nextPoll();
  expect(await jobUrls(key)).toEqual(episodes(4).map((e) => e.url));
  expect(await feedOf(key, created.json.id)).toMatchObject({ last_error: null, items_seen: 4, jobs_created: 4 });
  await nextPoll();
  expect(host.requests.at(-1)).toMatchObject({ ifNoneMatch: '"v1"', status: 304 });
  host.stop();
});

test("the OpenAPI document describes the feed endpoints from their schemas", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  expect(Object.keys(doc.paths["/v1/feeds"]).sort()).toEqual(["get", "post"]);
  expect(Object.keys(doc.paths["/v1/feeds/{id}"])).toEqual(["delete"]);
  expect(doc.components.schemas.FeedCreate.required).toEqual(["url"]);
  expect(Object.keys(doc.components.schemas.FeedCreate.properties)).toEqual(["url", "since", "options"]);
  expect(doc.components.schemas.Feed.properties.last_status.enum).toEqual(["pending", "ok", "not_modified", "error"]);
  expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain("invalid_feed_url");
});

test("GET lists the key's feeds newest first; DELETE stops polling and keeps the jobs", async () => {
  const host = startFeedServer(episodes(1));
  const key = app.key("feeds-list");
  const first = (await app.api("POST", "/v1/feeds", { key, body: { url: host.url() } })).json;
  clock.advance(1);
  const second = (await app.api("POST", "/v1/feeds", { key, body: { url: host.url("/moved.xml") } })).json;
  const list = await app.api("GET", "/v1/feeds", { key });
  expect(list.status).toBe(200);
  expect(list.json).toMatchObject({ object: "list", has_more: false });
  expect(list.json.data.map((f: any) => f.id)).toEqual([second.id, first.id]);

  await pollDue();
  const deleted = await app.api("DELETE", `/v1/feeds/${second.id}`, { key });
  expect(deleted.status).toBe(200);
  expect(deleted.json).toEqual({ id: second.id, object: "feed", deleted: true });
  expect((await app.api("GET", "/v1/feeds", { key })).json.data.map((f: any) => f.id)).toEqual([first.id]);
  const before = host.requests.length;
  host.setEpisodes(episodes(2));
  await nextPoll();
  // Only the remaining feed was polled; the deleted one's URL was not asked again.
  expect(host.requests.slice(before).map((r) => r.path)).toEqual(["/feed.xml"]);
  // A URL freed by DELETE can be registered again.
  expect((await app.api("POST", "/v1/feeds", { key, body: { url: host.url("/moved.xml") } })).status).toBe(201);
  host.stop();
});
