/**
 * What counts as a well-formed source.url for each source type. Pure: the reachability of the URL is
 * the fetcher's business at run time, not the validator's.
 */
export type SourceType = "video_url" | "youtube_url";
export const SOURCE_TYPES: readonly SourceType[] = ["video_url", "youtube_url"];

const YOUTUBE_HOSTS = new Set(["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"]);
const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;

// Length and characters are bounded before this runs (BoundedUrlSchema, src/net/url-bounds.ts).
function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** Returns null when the URL is acceptable, else the reason (used as the error message). */
export function checkSourceUrl(type: SourceType, raw: string, opts: { allowHttp: boolean }): string | null {
  const url = parseUrl(raw);
  if (!url || !url.hostname) return "source.url must be an absolute URL";
  const schemes = opts.allowHttp ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) return `source.url must use ${opts.allowHttp ? "http or https" : "https"}`;
  if (url.username || url.password) return "source.url must not carry credentials";
  if (type === "youtube_url") return youtubeId(url) ? null : "source.url is not a video watch, shorts or short-link URL";
  if (!url.hostname.includes(".") && !url.hostname.startsWith("[") && !opts.allowHttp) {
    return "source.url must name a public host";
  }
  return null;
}

/** The 11-character video id of a watch, shorts, live, embed or youtu.be URL; null otherwise. */
export function youtubeId(url: URL): string | null {
  const host = url.hostname.toLowerCase();
  if (host === "youtu.be") {
    const id = url.pathname.slice(1).split("/")[0] ?? "";
    return YOUTUBE_ID.test(id) ? id : null;
  }
  if (!YOUTUBE_HOSTS.has(host)) return null;
  if (url.pathname === "/watch") {
    const id = url.searchParams.get("v") ?? "";
    return YOUTUBE_ID.test(id) ? id : null;
  }
  const m = /^\/(shorts|live|embed)\/([^/]+)\/?$/.exec(url.pathname);
  return m && YOUTUBE_ID.test(m[2]!) ? m[2]! : null;
}
