/**
 * A podcast host in its own process (test/helpers/feed-server.ts's startFeedFileHost starts it):
 * serves the file named by argv[2] at /feed.xml with an ETag taken from its size and mtime, answers
 * If-None-Match with 304, and lists the statuses it answered at /requests. Its own process, so that
 * sending a document of several MiB costs the appliance under test nothing, as a real host would.
 */
import { statSync } from "node:fs";

const path = process.argv[2]!;
const statuses: number[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/requests") return Response.json(statuses);
    if (url.pathname !== "/feed.xml") return new Response("no such feed", { status: 404 });
    const st = statSync(path);
    const etag = `"${st.size}-${st.mtimeMs}"`;
    if (req.headers.get("if-none-match") === etag) {
      statuses.push(304);
      return new Response(null, { status: 304, headers: { etag } });
    }
    statuses.push(200);
    return new Response(Bun.file(path), { headers: { "content-type": "application/rss+xml", etag } });
  },
});
console.log(server.port);
