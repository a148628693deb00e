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

/**
 * A source that answers at once and then sends its body one byte every `everyMs` (a hostile or
 * broken host): it never goes quiet long enough for a socket idle timeout. Counts the downloads it
 * has open, and ends them all at stop().
 */
export function startDrippingServer(everyMs = 500) {
  const timers = new Set<ReturnType<typeof setInterval>>();
  let open = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: () => {
      let timer: ReturnType<typeof setInterval>;
      const body = new ReadableStream({
        start(controller) {
          open++;
          timer = setInterval(() => {
            try {
              controller.enqueue(new Uint8Array([0]));
            } catch {
              clearInterval(timer);
            }
          }, everyMs);
          timers.add(timer);
        },
        cancel() {
          open--;
          clearInterval(timer);
          timers.delete(timer);
        },
      });
      return new Response(body, { headers: { "content-type": "video/mp4", "content-length": String(50 * 1024 * 1024) } });
    },
  });
  return {
    url: (name: string) => `http://127.0.0.1:${server.port}/${name}`,
    /** Downloads in progress (the client has not hung up). */
    open: () => open,
    stop: () => {
      for (const t of timers) clearInterval(t);
      server.stop(true);
    },
  };
}
