import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DownloadError, downloadToFile } from "../../../src/media/download.ts";

const lan = { allowPrivateNetwork: true, allowHttp: true };
let server: ReturnType<typeof Bun.serve>;
let base: string;
let steadySent = 0;
const dir = mkdtempSync(join(tmpdir(), "clipyard-dl-"));
const payload = new Uint8Array(300_000).map((_, i) => i % 251);

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/media.mp4") return new Response(payload, { headers: { "content-type": "video/mp4" } });
      if (p === "/redirect") return Response.redirect("/media.mp4", 302);
      if (p === "/loop") return Response.redirect("/loop", 302);
      if (p === "/to-metadata") return Response.redirect("http://169.254.169.254/latest", 302);
      // 64 KiB every 150 ms for 4.5 s: slow but steady. One byte every 100 ms: a drip.
      if (p === "/steady") return new Response(new ReadableStream({ async pull(c) { await Bun.sleep(150); c.enqueue(new Uint8Array(64 * 1024)); if (++steadySent === 30) c.close(); } }));
      if (p === "/drip") return new Response(new ReadableStream({ async pull(c) { await Bun.sleep(100); c.enqueue(new Uint8Array(1)); } }));
      if (p === "/chunked") return new Response(new ReadableStream({ start(c) { for (let i = 0; i < 10; i++) c.enqueue(payload); c.close(); } }));
      return new Response("nope", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

test("streams to the destination, following a redirect", async () => {
  const dest = join(dir, "a.mp4");
  const r = await downloadToFile(`${base}/redirect`, dest, { policy: lan, maxBytes: 10_000_000 });
  expect(r.bytes).toBe(payload.length);
  expect(r.finalUrl).toBe(`${base}/media.mp4`);
  expect(new Uint8Array(readFileSync(dest))).toEqual(payload);
});

test("size limits, from Content-Length and while streaming; nothing half-written is left", async () => {
  await expect(downloadToFile(`${base}/media.mp4`, join(dir, "b.mp4"), { policy: lan, maxBytes: 1000 })).rejects.toThrow(/limit/);
  await expect(downloadToFile(`${base}/chunked`, join(dir, "c.mp4"), { policy: lan, maxBytes: 1_000_000 })).rejects.toThrow(/limit/);
  expect(existsSync(join(dir, "b.mp4")) || existsSync(join(dir, "c.mp4")) || existsSync(join(dir, "c.mp4.part"))).toBe(false);
});

test("refusals: private targets without the LAN flag, redirects to metadata, loops, HTTP errors", async () => {
  const strictHttp = { allowPrivateNetwork: false, allowHttp: true };
  await expect(downloadToFile(`${base}/media.mp4`, join(dir, "d"), { policy: strictHttp, maxBytes: 1e9 })).rejects.toThrow(DownloadError);
  await expect(downloadToFile(`${base}/to-metadata`, join(dir, "e"), { policy: lan, maxBytes: 1e9 })).rejects.toThrow(/metadata/);
  await expect(downloadToFile(`${base}/loop`, join(dir, "f"), { policy: lan, maxBytes: 1e9 })).rejects.toThrow(/redirects/);
  await expect(downloadToFile(`${base}/missing`, join(dir, "g"), { policy: lan, maxBytes: 1e9 })).rejects.toThrow(/404/);
});

test("a body bringing under 64 KiB per stall period fails; a slow but steady one does not", async () => {
  // The steady body lasts three stall periods, each bringing ten times the 64 KiB asked for; the
  // period is ten of its 150 ms chunks, so a loaded machine (CI) delaying a chunk does not read as a
  // stall (at 0.6 s, four chunks, a steady body failed there once).
  const steady = await downloadToFile(`${base}/steady`, join(dir, "steady.mp4"), { policy: lan, maxBytes: 10_000_000, stallMs: 1500 });
  expect(steady.bytes).toBe(30 * 64 * 1024);
  const started = Date.now();
  const dest = join(dir, "drip.mp4");
  await expect(downloadToFile(`${base}/drip`, dest, { policy: lan, maxBytes: 10_000_000, stallMs: 600 })).rejects.toThrow(/the download stalled \(CLIPYARD_DOWNLOAD_STALL_SECONDS\)/);
  // Given up one stall period after the last progress (the start), not at a socket or watchdog timeout.
  expect(Date.now() - started).toBeLessThan(6000);
  expect(existsSync(dest) || existsSync(`${dest}.part`)).toBe(false);
}, 30_000);
