import type { NetworkPolicy } from "../net/ip-policy.ts";
import { safeRequest } from "../net/safe-fetch.ts";

export const FEED_TIMEOUT_MS = 20_000;
/** Largest feed document read by default (CLIPYARD_FEED_MAX_BYTES); big back catalogues run to a few MiB. */
export const MAX_FEED_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedFetch =
  | { kind: "not_modified" }
  /** The document's bytes, undecoded: the parser thread decodes them (src/feeds/parse-off-thread.ts). */
  | { kind: "ok"; body: Uint8Array; validators: Validators }
  | { kind: "error"; message: string };

const header = (h: Record<string, string | string[] | undefined>, name: string): string | null => {
  const v = h[name];
  return typeof v === "string" ? v : Array.isArray(v) ? (v[0] ?? null) : null;
};

/**
 * A conditional GET of a feed (If-None-Match / If-Modified-Since from the last 200). Feeds move
 * (http to https, hosting changes), so redirects are followed, a few hops at most, each hop a fresh
 * request through the SSRF-checked fetcher.
 */
export async function fetchFeed(url: string, last: Validators, policy: NetworkPolicy, maxBytes = MAX_FEED_BYTES): Promise<FeedFetch> {
  const headers: Record<string, string> = {
    accept: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
    "user-agent": "clipyard-feeds/1",
  };
  if (last.etag) headers["if-none-match"] = last.etag;
  if (last.lastModified) headers["if-modified-since"] = last.lastModified;
  let at = url;
  for (let hop = 0; ; hop++) {
    let res;
    try {
      // One byte over the cap tells a feed that is too large from one that is exactly the cap.
      res = await safeRequest(at, { headers, timeoutMs: FEED_TIMEOUT_MS, maxBytes: maxBytes + 1, stopAtMax: true }, policy);
    } catch (err) {
      return { kind: "error", message: `fetch failed: ${(err as Error).message || String(err)}` };
    }
    const location = header(res.headers, "location");
    if ([301, 302, 303, 307, 308].includes(res.status) && location) {
      if (hop >= MAX_REDIRECTS) return { kind: "error", message: `more than ${MAX_REDIRECTS} redirects` };
      at = new URL(location, at).toString();
      continue;
    }
    if (res.status === 304) return { kind: "not_modified" };
    if (res.status !== 200) return { kind: "error", message: `HTTP ${res.status}` };
    if (res.body.length > maxBytes) return { kind: "error", message: `feed larger than ${maxBytes} bytes (CLIPYARD_FEED_MAX_BYTES)` };
    return {
      kind: "ok",
      body: res.body,
      validators: { etag: header(res.headers, "etag"), lastModified: header(res.headers, "last-modified") },
    };
  }
}
