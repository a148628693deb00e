import { z } from "zod";

/** Longest URL accepted anywhere in the API (the common browser and CDN limit). */
export const MAX_URL_LENGTH = 2048;

// C0 controls (NUL included), DEL, C1 controls, and any whitespace: the WHATWG parser silently drops
// or re-encodes some of these, so the URL stored and echoed would not be the URL that is fetched.
const FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\s]/u;

/**
 * The one bound on URL strings the API takes in (source.url, the webhook url): its length and
 * characters. Which schemes and hosts are allowed is decided after parsing, where the operator's
 * settings are known (src/jobs/source-url.ts, src/net/safe-fetch.ts).
 */
export const BoundedUrlSchema = z
  .string()
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .superRefine((url, ctx) => {
    const at = url.search(FORBIDDEN);
    if (at < 0) return;
    const char = `U+${url.codePointAt(at)!.toString(16).toUpperCase().padStart(4, "0")}`;
    ctx.addIssue({ code: "custom", message: `must not contain whitespace or control characters (found ${char} at index ${at})` });
  });
