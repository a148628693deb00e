/** A real HTTP receiver on 127.0.0.1 that records requests and answers with a programmable status. */
export interface Received {
  at: number;
  path: string;
  headers: Headers;
  raw: string;
  json: any;
}

export async function startReceiver() {
  const requests: Received[] = [];
  let statuses: number[] = [];
  let fallback = 200;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const raw = await req.text();
      let json: any;
      try {
        json = JSON.parse(raw);
      } catch {}
      requests.push({ at: Date.now(), path: new URL(req.url).pathname, headers: req.headers, raw, json });
      return new Response("ok", { status: statuses.shift() ?? fallback });
    },
  });
  return {
    requests,
    url: (p = "/hook") => `http://127.0.0.1:${server.port}${p}`,
    /** Answer these statuses to the next requests, then `then`. */
    answer(next: number[], then = 200) {
      statuses = [...next];
      fallback = then;
    },
    async waitFor(n: number, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > end) throw new Error(`receiver got ${requests.length} of ${n} requests`);
        await Bun.sleep(10);
      }
      return requests[n - 1]!;
    },
    stop: () => server.stop(true),
  };
}
