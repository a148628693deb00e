import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { NetworkPolicy } from "../net/ip-policy.ts";
import { openRequest } from "../net/safe-fetch.ts";

export class DownloadError extends Error {}

/** Progress, for the stall check: at least this many bytes within each stall period. */
export const STALL_MIN_BYTES = 64 * 1024;

export interface DownloadOptions {
  policy: NetworkPolicy;
  maxBytes: number;
  /** Time allowed to receive the response head, and the longest silence while streaming. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** What the size limit is called in errors (the setting a user would raise). */
  limitName?: string;
  /**
   * A body that brings less than STALL_MIN_BYTES in this long is given up: a source dripping a byte
   * now and then keeps the socket's idle timer happy and would hold a worker until the watchdog.
   */
  stallMs?: number;
  /** The setting that names stallMs, for the error. */
  stallName?: string;
  signal?: AbortSignal;
  onProgress?(bytes: number, total: number | undefined): void;
}

/**
 * Streams a URL (media, model files) to `dest` through the SSRF-safe fetcher. Redirects are followed by hand (at most
 * five), each hop checked like the first; the size limit is enforced from Content-Length up front and
 * again while streaming. The file appears at `dest` only when complete (written to a temp name first).
 */
export async function downloadToFile(url: string, dest: string, opts: DownloadOptions): Promise<{ bytes: number; contentType?: string; finalUrl: string }> {
  let current = url;
  for (let hop = 0; hop <= (opts.maxRedirects ?? 5); hop++) {
    const res = await openRequest(current, { timeoutMs: opts.timeoutMs ?? 30_000, signal: opts.signal, headers: { "user-agent": "clipyard/1", accept: "*/*" } }, opts.policy).catch((err) => {
      throw new DownloadError(`could not fetch ${current}: ${(err as Error).message}`);
    });
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      current = new URL(res.headers.location, current).toString();
      continue;
    }
    if (status !== 200) {
      res.resume();
      throw new DownloadError(`fetching ${current} answered HTTP ${status}`);
    }
    const declared = Number(res.headers["content-length"] ?? NaN);
    if (Number.isFinite(declared) && declared > opts.maxBytes) {
      res.destroy();
      throw new DownloadError(`the file is ${declared} bytes, over the ${opts.maxBytes}-byte limit (${opts.limitName ?? "CLIPYARD_MAX_MEDIA_BYTES"})`);
    }
    const tmp = `${dest}.part`;
    const out = createWriteStream(tmp);
    // Errors of the file stream (disk full, or a write raced by destroy() after a refusal) are
    // collected here instead of surfacing as unhandled events.
    let writeError: Error | undefined;
    out.on("error", (e) => (writeError ??= e));
    let bytes = 0;
    let stalled: DownloadError | undefined;
    let mark = { bytes: 0, at: Date.now() };
    const stallMs = opts.stallMs;
    const watch =
      stallMs === undefined
        ? undefined
        : setInterval(() => {
            if (Date.now() - mark.at <= stallMs) return;
            stalled = new DownloadError(
              `the source sent ${bytes - mark.bytes} bytes in ${Math.round(stallMs / 100) / 10} s, under ${STALL_MIN_BYTES} bytes: the download stalled (${opts.stallName ?? "CLIPYARD_DOWNLOAD_STALL_SECONDS"})`,
            );
            res.destroy(stalled);
          }, Math.max(50, stallMs / 8));
    try {
      for await (const chunk of res) {
        if (writeError) throw writeError;
        bytes += (chunk as Buffer).length;
        if (bytes - mark.bytes >= STALL_MIN_BYTES) mark = { bytes, at: Date.now() };
        if (bytes > opts.maxBytes) throw new DownloadError(`the file passed the ${opts.maxBytes}-byte limit (${opts.limitName ?? "CLIPYARD_MAX_MEDIA_BYTES"})`);
        // A stream that failed (ENOSPC) never drains: wait for whichever comes first.
        if (!out.write(chunk)) await drainedOrFailed(out);
        opts.onProgress?.(bytes, Number.isFinite(declared) ? declared : undefined);
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } catch (err) {
      res.destroy();
      out.destroy();
      await rm(tmp, { force: true });
      if (stalled) throw stalled;
      throw err instanceof DownloadError ? err : new DownloadError(`download of ${current} broke off: ${(err as Error).message}`);
    } finally {
      clearInterval(watch);
    }
    await rename(tmp, dest);
    return { bytes, contentType: res.headers["content-type"], finalUrl: current };
  }
  throw new DownloadError(`too many redirects fetching ${url}`);
}

/** Resolves once the stream drains or fails, leaving no listener behind either way. */
function drainedOrFailed(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("error", done);
      resolve();
    };
    out.on("drain", done);
    out.on("error", done);
  });
}
