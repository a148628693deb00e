import type { Clock } from "../../src/clock.ts";
import { nextFeedDueAt } from "../../src/feeds/store.ts";
import type { TestAppliance } from "./appliance.ts";

export interface FeedEpisode {
  guid?: string;
  url: string;
  published?: string;
  title?: string;
}

export interface FeedRequest {
  path: string;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  status: number;
  /** When the request arrived (epoch ms). */
  at: number;
}

/** An RSS 2.0 document listing the episodes newest first, as hosts do. */
export function rss(episodes: FeedEpisode[]): string {
  const items = episodes
    .map(
      (e) => `<item><title>${e.title ?? e.guid ?? e.url}</title>${e.guid ? `<guid isPermaLink="false">${e.guid}</guid>` : ""}${
        e.published ? `<pubDate>${new Date(e.published).toUTCString()}</pubDate>` : ""
      }<enclosure url="${e.url}" length="1000" type="audio/mpeg"/></item>`,
    )
    .reverse()
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Test show</title><link>https://show.example.com</link>
<description>A podcast served on 127.0.0.1 for tests</description>
${items}
</channel></rss>`;
}

/**
 * A podcast host on 127.0.0.1: serves an RSS 2.0 document at /feed.xml with an ETag and honours
 * If-None-Match with 304 (or, with validator "last-modified", Last-Modified and If-Modified-Since), like real hosts; remembers every request and the status it got. `body`
 * overrides the document (an Atom feed, or something that is no feed at all); `status` forces an answer.
 */
export function startFeedServer(episodes: FeedEpisode[] = [], opts: { validator?: "etag" | "last-modified" } = {}) {
  const state = { episodes, body: undefined as string | undefined, status: undefined as number | undefined, version: 1, etagSalt: "" };
  const byDate = opts.validator === "last-modified";
  // A host without ETags dates each version of the document instead.
  const lastModified = () => new Date(Date.UTC(2026, 0, 1) + state.version * 60_000).toUTCString();
  const requests: FeedRequest[] = [];
  let held: Promise<void> | undefined;
  const etag = () => `"v${state.version}${state.etagSalt}"`;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (held) {
        const wait = held;
        held = undefined;
        await wait;
      }
      const path = new URL(req.url).pathname;
      const ifNoneMatch = req.headers.get("if-none-match");
      const seen = (status: number) => requests.push({ path, ifNoneMatch, ifModifiedSince: req.headers.get("if-modified-since"), status, at: Date.now() });
      if (path === "/moved.xml") {
        seen(301);
        return new Response(null, { status: 301, headers: { location: "/feed.xml" } });
      }
      if (path !== "/feed.xml") {
        seen(404);
        return new Response("no such feed", { status: 404 });
      }
      if (state.status !== undefined) {
        seen(state.status);
        return new Response("forced", { status: state.status });
      }
      const validator: Record<string, string> = byDate ? { "last-modified": lastModified() } : { etag: etag() };
      const ifModifiedSince = req.headers.get("if-modified-since");
      if (byDate ? ifModifiedSince !== null && Date.parse(ifModifiedSince) >= Date.parse(lastModified()) : ifNoneMatch === etag()) {
        seen(304);
        return new Response(null, { status: 304, headers: validator });
      }
      seen(200);
      return new Response(state.body ?? rss(state.episodes), { headers: { "content-type": "application/rss+xml", ...validator } });
    },
  });
  return {
    url: (path = "/feed.xml") => `http://127.0.0.1:${server.port}${path}`,
    requests,
    /** Replaces the episode list; the document changes, so does its ETag. */
    setEpisodes(list: FeedEpisode[]) {
      state.episodes = list;
      state.version++;
    },
    setBody(body: string | undefined) {
      state.body = body;
      state.version++;
    },
    setStatus(status: number | undefined) {
      state.status = status;
    },
    /** The next request waits for the returned release(), as a slow host would keep a poll in flight. */
    holdNext(): () => void {
      let release!: () => void;
      held = new Promise<void>((r) => (release = r));
      return release;
    },
    /** Same document, new ETag: the next poll gets a full 200 (a host that lost its cache). */
    changeEtag() {
      state.etagSalt += "x";
    },
    stop: () => server.stop(true),
  };
}

export const episodes = (n: number, base = "https://media.example.com/ep"): FeedEpisode[] =>
  Array.from({ length: n }, (_, i) => ({
    guid: `episode-${i + 1}`,
    url: `${base}${i + 1}.mp3`,
    published: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
  }));

/**
 * Polls every feed due by the appliance's clock, tick by tick (a tick claims a few feeds at a time),
 * for tests that drive the poller with a manual clock instead of its timers.
 */
export async function pollDueFeeds(app: TestAppliance, clock: Clock): Promise<void> {
  while ((nextFeedDueAt(app.ctx.db) ?? Infinity) <= clock.now()) await app.feeds.tick();
}

/**
 * A host in a child process serving the RSS file at `path` (test/helpers/feed-file-host.ts); rewrite
 * the file to change the document (its ETag follows the file's size and mtime).
 */
export async function startFeedFileHost(path: string) {
  const child = Bun.spawn([process.execPath, `${import.meta.dir}/feed-file-host.ts`, path], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the feed host exited before it listened");
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const base = `http://127.0.0.1:${Number(out.trim())}`;
  return {
    url: () => `${base}/feed.xml`,
    /** The statuses the host answered /feed.xml with, in order. */
    statuses: async (): Promise<number[]> => (await fetch(`${base}/requests`)).json() as Promise<number[]>,
    stop: () => child.kill(),
  };
}
