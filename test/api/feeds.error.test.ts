import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { MAX_FEED_BYTES } from "../../src/feeds/fetch.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { episodes, pollDueFeeds, startFeedServer } from "../helpers/feed-server.ts";

const clock = new ManualClock(Date.UTC(2026, 10, 20));
let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance({ clock, scheduler: false, env: { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" } });
  key = app.key("feed-errors");
});
afterAll(() => app.stop());

const register = (body: unknown) => app.api("POST", "/v1/feeds", { key, body });

function expectError(res: { status: number; json: any; headers: Headers }, status: number, code: string, param: string | null, message?: string) {
  expect(res.status).toBe(status);
  expect(res.json.error).toMatchObject({ type: "invalid_request_error", code, param, ...(message ? { message } : {}) });
  expect(res.json.error.request_id).toBe(res.headers.get("x-request-id"));
}

test("the feed url: required, a string, bounded like every URL, http(s) only, no credentials", async () => {
  expectError(await register({}), 400, "invalid_feed_url", "url", "url is required.");
  expectError(await register({ url: 5 }), 400, "invalid_feed_url", "url", "url: must be a string, not 5");
  expectError(await register({ url: `https://feeds.example.com/${"a".repeat(2030)}` }), 400, "invalid_feed_url", "url", "url: must be at most 2048 characters");
  expectError(await register({ url: "https://feeds.example.com/a b" }), 400, "invalid_feed_url", "url");
  expectError(await register({ url: "ftp://feeds.example.com/feed.xml" }), 400, "invalid_feed_url", "url", "url: ftp: URLs are not allowed");
  expectError(await register({ url: "https://user:pw@feeds.example.com/feed.xml" }), 400, "invalid_feed_url", "url", "url: URLs with credentials are not allowed");
  expectError(await register({ url: "not a url" }), 400, "invalid_feed_url", "url");
});

test("since must be an ISO 8601 date or date-time; options are the job options; unknown fields are refused", async () => {
  const url = "https://feeds.example.com/since.xml";
  const message = "since: must be an ISO 8601 date (2026-11-01) or date-time with offset (2026-11-01T09:00:00Z)";
  expectError(await register({ url, since: "yesterday" }), 400, "invalid_body", "since", message);
  expectError(await register({ url, since: "2026-13-45" }), 400, "invalid_body", "since", message);
  expectError(await register({ url, since: "2026-11-01T09:00:00" }), 400, "invalid_body", "since", message);
  expectError(await register({ url, since: 1700000000 }), 400, "invalid_body", "since", "since: must be a string, not 1700000000");
  expectError(await register({ url, options: { clip_count: 50 } }), 400, "invalid_body", "options.clip_count", "options.clip_count: must be at most 10");
  expectError(await register({ url, options: { colour: "red" } }), 400, "invalid_body", "options.colour", "Unknown field options.colour.");
  expectError(await register({ url, every: "hour" }), 400, "invalid_body", "every", "Unknown field every.");
  expect((await register({ url, since: "2026-11-01T09:00:00+02:00" })).json.since).toBe("2026-11-01T07:00:00.000Z");
});

test("bodies that are not a JSON object", async () => {
  expectError(await app.api("POST", "/v1/feeds", { key, raw: "{" }), 400, "invalid_json", null);
  expectError(await app.api("POST", "/v1/feeds", { key, raw: "[]" }), 400, "invalid_body", null);
});

test("the same feed twice in one world is a conflict naming the existing feed", async () => {
  const url = "https://feeds.example.com/twice.xml";
  const first = await register({ url });
  expect(first.status).toBe(201);
  expectError(await register({ url }), 409, "feed_already_registered", "url", `This feed is already registered as ${first.json.id}.`);
});

test("unknown ids, deleted feeds and unsupported methods", async () => {
  expectError(await app.api("DELETE", "/v1/feeds/feed_nope", { key }), 404, "not_found", "id", "No feed feed_nope.");
  const feed = (await register({ url: "https://feeds.example.com/gone.xml" })).json;
  expect((await app.api("DELETE", `/v1/feeds/${feed.id}`, { key })).status).toBe(200);
  expectError(await app.api("DELETE", `/v1/feeds/${feed.id}`, { key }), 404, "not_found", "id");
  const put = await app.api("PUT", "/v1/feeds", { key, body: {} });
  expectError(put, 405, "method_not_allowed", null);
  expect(put.headers.get("allow")).toBe("POST, GET");
  expectError(await app.api("GET", `/v1/feeds/${feed.id}`, { key }), 405, "method_not_allowed", null);
});

test("a poll that fails says why on the feed and tries again at the next interval", async () => {
  const host = startFeedServer(episodes(2));
  const cases: Array<[string, () => void, string]> = [
    ["HTTP 500", () => host.setStatus(500), "HTTP 500"],
    ["a page, not a feed", () => (host.setStatus(undefined), host.setBody("<html><body>Moved to our new site</body></html>")), "not an RSS or Atom feed"],
    ["a feed over the size cap", () => host.setBody(`<rss version="2.0"><channel><title>${"x".repeat(MAX_FEED_BYTES)}</title></channel></rss>`), `feed larger than ${MAX_FEED_BYTES} bytes`],
  ];
  const feed = (await register({ url: host.url() })).json;
  for (const [what, arrange, error] of cases) {
    arrange();
    clock.advance(3_600_000);
    await pollDueFeeds(app, clock);
    const seen = (await app.api("GET", "/v1/feeds", { key })).json.data.find((f: any) => f.id === feed.id);
    expect({ what, status: seen.last_status, error: seen.last_error?.slice(0, error.length) }).toEqual({ what, status: "error", error });
    expect(Date.parse(seen.next_poll_at)).toBeGreaterThan(clock.now());
  }
  // Recovered: the episodes arrive.
  host.setBody(undefined);
  clock.advance(3_600_000);
  await pollDueFeeds(app, clock);
  expect((await app.api("GET", "/v1/feeds", { key })).json.data.find((f: any) => f.id === feed.id)).toMatchObject({ last_status: "ok", last_error: null, jobs_created: 2 });

  const unreachable = (await register({ url: "http://127.0.0.1:9/feed.xml" })).json;
  await pollDueFeeds(app, clock);
  const down = (await app.api("GET", "/v1/feeds", { key })).json.data.find((f: any) => f.id === unreachable.id);
  expect(down.last_status).toBe("error");
  expect(down.last_error).toStartWith("fetch failed: ");
  host.stop();
});

test("a feed that repeats a GUID gets one job for it; an oversized GUID is kept by its hash", async () => {
  const longGuid = "g".repeat(5000);
  const host = startFeedServer([
    { guid: "same", url: "https://media.example.com/first.mp3", published: "2026-10-01T00:00:00Z" },
    { guid: "same", url: "https://media.example.com/repost.mp3", published: "2026-10-02T00:00:00Z" },
    { guid: longGuid, url: "https://media.example.com/long.mp3", published: "2026-10-03T00:00:00Z" },
  ]);
  const k = app.key("feed-repeats");
  const feed = (await app.api("POST", "/v1/feeds", { key: k, body: { url: host.url() } })).json;
  await pollDueFeeds(app, clock);
  expect((await app.api("GET", "/v1/jobs", { key: k })).json.data.map((j: any) => j.source.url).sort()).toEqual([
    "https://media.example.com/first.mp3",
    "https://media.example.com/long.mp3",
  ]);
  expect((await app.api("GET", "/v1/feeds", { key: k })).json.data[0]).toMatchObject({ id: feed.id, last_error: null, items_seen: 2, jobs_created: 2 });
  const keys = app.ctx.db.$client.query("SELECT item_key FROM feed_items WHERE feed_id = ? ORDER BY item_key DESC").all(feed.id) as { item_key: string }[];
  expect(keys.map((r) => r.item_key)).toEqual(["sha256:" + new Bun.CryptoHasher("sha256").update(longGuid).digest("hex"), "same"]);
  host.stop();
});

test("an episode whose enclosure is no acceptable media URL is seen but makes no job", async () => {
  const host = startFeedServer([
    { guid: "ftp", url: "ftp://media.example.com/a.mp3", published: "2026-10-01T00:00:00Z" },
    { guid: "fine", url: "https://media.example.com/b.mp3", published: "2026-10-02T00:00:00Z" },
  ]);
  const k = app.key("feed-enclosures");
  const feed = (await app.api("POST", "/v1/feeds", { key: k, body: { url: host.url() } })).json;
  await pollDueFeeds(app, clock);
  expect((await app.api("GET", "/v1/feeds", { key: k })).json.data[0]).toMatchObject({ id: feed.id, items_seen: 2, jobs_created: 1 });
  expect((await app.api("GET", "/v1/jobs", { key: k })).json.data.map((j: any) => j.source.url)).toEqual(["https://media.example.com/b.mp3"]);
  const skipped = app.ctx.db.$client.query("SELECT skipped_reason FROM feed_items WHERE feed_id = ? AND item_key = 'ftp'").get(feed.id);
  expect(skipped).toEqual({ skipped_reason: "source.url must use http or https" });
  host.stop();
});
