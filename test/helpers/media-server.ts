import { resolve } from "node:path";
import { serveFile } from "../../src/web/files.ts";
import { SHARED_MEDIA } from "./paths.ts";

export { SHARED_MEDIA };

/** Serves files of a folder on 127.0.0.1 (Range supported), like a studio NAS or CDN would. */
export function startMediaServer(dir = SHARED_MEDIA) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const name = decodeURIComponent(new URL(req.url).pathname.slice(1));
      if (name.includes("/") || name.startsWith(".")) return new Response("no", { status: 404 });
      return serveFile(resolve(dir, name), req);
    },
  });
  return { url: (name: string) => `http://127.0.0.1:${server.port}/${name}`, stop: () => server.stop(true) };
}
