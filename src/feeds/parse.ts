import { parseFeed } from "@rowanmanning/feed-parser";
import { sha256Hex } from "../ids.ts";

// GUIDs are usually short; a feed that stuffs a whole document into one is stored by its hash.
const MAX_KEY_LENGTH = 512;
const keyOf = (raw: string): string => (raw.length > MAX_KEY_LENGTH ? `sha256:${sha256Hex(raw)}` : raw);

/** One podcast episode as the poller needs it: what identifies it, what to fetch, when it came out. */
export interface Episode {
  /** The item's GUID (RSS) or id (Atom); the enclosure URL when the item has neither. */
  key: string;
  enclosureUrl: string;
  /** Milliseconds since the epoch; null when the item carries no usable date. */
  publishedAt: number | null;
  title: string | null;
}

export class NotAFeed extends Error {}

/**
 * Parses RSS 2.0 or Atom text (fetched by the caller: the parser never touches the network) into its
 * episodes, oldest first. Items without an audio or video enclosure are not episodes and are left out.
 */
export function parseEpisodes(xml: string): Episode[] {
  let feed;
  try {
    feed = parseFeed(xml);
  } catch (err) {
    throw new NotAFeed(`not an RSS or Atom feed (${(err as Error).message})`);
  }
  const episodes: Episode[] = [];
  for (const item of feed.items) {
    // An enclosure without a MIME type is taken (many feeds omit it); images (artwork) never are.
    const enclosure = item.media.find((m) => m.type === "audio" || m.type === "video") ?? item.media.find((m) => m.type === null);
    if (!enclosure) continue;
    const published = item.published ?? item.updated;
    episodes.push({
      key: keyOf(item.id?.trim() || enclosure.url),
      enclosureUrl: enclosure.url,
      publishedAt: published && !Number.isNaN(published.getTime()) ? published.getTime() : null,
      title: item.title,
    });
  }
  // Feeds list newest first; jobs are made oldest first. Undated items keep their relative order, last.
  return episodes
    .reverse()
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.publishedAt ?? Infinity) - (b.e.publishedAt ?? Infinity) || a.i - b.i)
    .map(({ e }) => e);
}

/** The newest `max` episodes of a feed, oldest first: only they become candidates at a poll. */
export function newestEpisodes(xml: string, max: number): Episode[] {
  const all = parseEpisodes(xml);
  return all.slice(Math.max(0, all.length - max));
}
