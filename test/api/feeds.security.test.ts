import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { episodes, pollDueFeeds, startFeedServer } from "../helpers/feed-server.ts";

/**
 * An appliance with the default outbound policy (https only, no private addresses): a feed URL is a
 * request the appliance makes on a caller's behalf, so it gets the same SSRF checks as webhooks and
 * media, at registration and at every fetch.
 */
const clock = new ManualClock(Date.UTC(2026, 10, 20));
let app: TestAppliance;
let keyA: string;
let keyB: string;
beforeAll(async () => {
  app = await startAppliance({ clock, scheduler: false });
  keyA = app.key("feed-sec-a");
  keyB = app.key("feed-sec-b");
});
afterAll(() => app.stop());

const code = (r: { json: any }) => r.json?.error?.code;

test("every feed route needs a valid key", async () => {
  for (const [method, path] of [["POST", "/v1/feeds"], ["GET", "/v1/feeds"], ["DELETE", "/v1/feeds/feed_x"]] as const) {
    expect(code(await app.api(method, path, { body: method === "POST" ? { url: "https://feeds.example.com/a.xml" } : undefined }))).toBe("missing_authorization");
    expect(code(await app.api(method, path, { key: keyA + "x" }))).toBe("invalid_api_key");
  }
  expect(app.ctx.db.$client.query("SELECT count(*) AS n FROM feeds").get()).toEqual({ n: 0 });
});

test("another organisation's feed is invisible and cannot be deleted", async () => {
  const feed = (await app.api("POST", "/v1/feeds", { key: keyA, body: { url: "https://feeds.example.com/a.xml" } })).json;
  expect((await app.api("GET", "/v1/feeds", { key: keyB })).json.data).toEqual([]);
  const res = await app.api("DELETE", `/v1/feeds/${feed.id}`, { key: keyB });
  expect(res.status).toBe(404);
  expect(res.json.error).toMatchObject({ code: "not_found", param: "id" });
  expect((await app.api("GET", "/v1/feeds", { key: keyA })).json.data.map((f: any) => f.id)).toEqual([feed.id]);
  // The same URL in another organisation is that organisation's own feed, no conflict.
  expect((await app.api("POST", "/v1/feeds", { key: keyB, body: { url: "https://feeds.example.com/a.xml" } })).status).toBe(201);
});

test("private, loopback and metadata addresses and plain http are refused at registration", async () => {
  for (const url of ["https://127.0.0.1/feed.xml", "https://169.254.169.254/latest/meta-data", "https://[::1]/feed.xml", "https://10.0.0.8/feed.xml", "https://2130706433/feed.xml"]) {
    const res = await app.api("POST", "/v1/feeds", { key: keyA, body: { url } });
    expect({ url, status: res.status, code: code(res), param: res.json.error.param }).toEqual({ url, status: 400, code: "invalid_feed_url", param: "url" });
  }
  const http = await app.api("POST", "/v1/feeds", { key: keyA, body: { url: "http://feeds.example.com/feed.xml" } });
  expect(http.json.error).toMatchObject({ code: "invalid_feed_url", message: "url: http: URLs are not allowed (set CLIPYARD_ALLOW_HTTP=1)" });
});

test("a host name that resolves to a private address is refused at fetch time, before any connection", async () => {
  const host = startFeedServer(episodes(2));
  const port = new URL(host.url()).port;
  const feed = (await app.api("POST", "/v1/feeds", { key: keyA, body: { url: `https://localhost:${port}/feed.xml` } })).json;
  await pollDueFeeds(app, clock);
  const seen = (await app.api("GET", "/v1/feeds", { key: keyA })).json.data.find((f: any) => f.id === feed.id);
  expect(seen.last_status).toBe("error");
  expect(seen.last_error).toMatch(/^fetch failed: localhost resolves to .*(loopback|private)/);
  expect(seen.jobs_created).toBe(0);
  expect(host.requests).toEqual([]);
  host.stop();
});
