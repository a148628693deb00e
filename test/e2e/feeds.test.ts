import { afterEach, expect, test } from "bun:test";
import { episodes, startFeedServer } from "../helpers/feed-server.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/wait.ts";

let server: ServerProcess | undefined;
afterEach(async () => {
  if (server?.proc && server.proc.exitCode === null) await server.kill9();
});

/**
 * The appliance as users run it (a separate process, its poller on its own timers, the default
 * 15-minute interval under CLIPYARD_TIME_SCALE) against a podcast host on 127.0.0.1.
 */
test("a local feed of three episodes makes three jobs once, a fourth when it grows, and a restart makes none again", async () => {
  const host = startFeedServer(episodes(3));
  server = new ServerProcess(freePort(), { CLIPYARD_TIME_SCALE: "0.002", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_ALLOW_PRIVATE_NETWORK: "1" });
  await server.start();
  const s = server;
  const key = await s.cli("keys", "create", "--org", "podcasts", "--env", "test");
  const feedId = await s.cli("feeds", "add", host.url(), "--org", "podcasts");
  expect(feedId).toStartWith("feed_");
  const jobUrls = async (p: ServerProcess) => ((await p.api("GET", "/v1/jobs?limit=100", key)).data as any[]).map((j) => j.source.url).reverse();

  // The second poll is conditional and answered 304; still three jobs.
  await eventually(() => host.requests.filter((r) => r.status === 304).length, (n) => n >= 1, { what: "a 304 for the second poll" });
  expect(host.requests[0]).toMatchObject({ ifNoneMatch: null, status: 200 });
  expect(host.requests[1]).toMatchObject({ ifNoneMatch: '"v1"', status: 304 });
  expect(await jobUrls(s)).toEqual(episodes(3).map((e) => e.url));

  host.setEpisodes(episodes(4));
  await eventually(() => jobUrls(s), (urls) => urls.length >= 4, { what: "the fourth episode's job" });
  const feed = (await s.api("GET", "/v1/feeds", key)).data[0];
  expect(feed).toMatchObject({ id: feedId, last_status: "ok", items_seen: 4, jobs_created: 4, livemode: false });

  // Kill between two polls, not during one: a poll cut off mid-way leaves its lease to lapse (minutes,
  // unscaled), which is tested on its own in test/feeds/poller.test.ts.
  const polls = host.requests.length;
  const finished = (l: any) => host.requests.length > polls && Date.parse(l.data[0].last_polled_at) >= host.requests.at(-1)!.at;
  await eventually(() => s.api("GET", "/v1/feeds", key), finished, { what: "a finished poll" });
  expect(await s.kill9()).not.toBe(0);
  // The host forgets its ETag: the restarted appliance reads the whole feed again.
  host.changeEtag();
  const before = host.requests.length;
  server = new ServerProcess(freePort(), s.env, s.dataDir);
  await server.start();
  const again = server;
  await eventually(() => host.requests.slice(before).filter((r) => r.status === 200).length, (n) => n >= 1, { what: "a full read after the restart" });
  await eventually(() => host.requests.slice(before).filter((r) => r.status === 304).length, (n) => n >= 1, { what: "the next poll after it" });
  expect(await jobUrls(again)).toEqual(episodes(4).map((e) => e.url));
  expect(await again.cli("feeds", "list", "--org", "podcasts")).toContain(`${feedId}\ttest\t${host.url()}\tnot_modified\t4/4 jobs/seen`);

  await again.cli("feeds", "remove", feedId);
  expect((await again.api("GET", "/v1/feeds", key)).data).toEqual([]);
  await expect(again.cli("feeds", "remove", feedId)).rejects.toThrow(`no feed ${feedId}`);
  expect((await jobUrls(again)).length).toBe(4);
  host.stop();
}, 300_000);
