import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { addressRefusal, type NetworkPolicy } from "./ip-policy.ts";

/**
 * The one way the appliance makes outbound HTTP requests (webhooks, media downloads). The URL's host
 * is checked before connecting when it is an IP literal (the WHATWG parser has already turned
 * decimal, hex and octal spellings into dotted form), and through a custom DNS lookup AT CONNECT
 * TIME otherwise: every resolved address must pass, so DNS rebinding between a check and the
 * connection cannot sneak a private address in. Redirects are never followed implicitly.
 */
export class OutboundRefused extends Error {}

export interface SafeRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function checkUrl(raw: string, policy: NetworkPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused(`not a URL: ${raw}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowHttp)) {
    throw new OutboundRefused(`${url.protocol} URLs are not allowed${url.protocol === "http:" ? " (set CLIPYARD_ALLOW_HTTP=1)" : ""}`);
  }
  if (url.username || url.password) throw new OutboundRefused("URLs with credentials are not allowed");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    const why = addressRefusal(host, policy);
    if (why) throw new OutboundRefused(why);
  }
  return url;
}

function vettedLookup(policy: NetworkPolicy) {
  return (hostname: string, options: any, callback: (...args: any[]) => void) => {
    dnsLookup(hostname, { all: true, family: options?.family }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      for (const a of addresses) {
        const why = addressRefusal(a.address, policy);
        if (why) return callback(new OutboundRefused(`${hostname} resolves to ${why}`));
      }
      if (options?.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Opens a request and resolves with the response head; the caller consumes the body stream. */
export async function openRequest(raw: string, req: SafeRequest, policy: NetworkPolicy): Promise<IncomingMessage> {
  const url = checkUrl(raw, policy);
  const mod = url.protocol === "https:" ? https : http;
  // The body goes out whole with its length declared: written in pieces it would be sent chunked,
  // which some webhook receivers refuse.
  const body = req.body === undefined ? undefined : typeof req.body === "string" ? Buffer.from(req.body) : Buffer.from(req.body);
  const headers = body ? { ...req.headers, "content-length": String(body.length) } : req.headers;
  return new Promise((resolve, reject) => {
    const r = mod.request(
      url,
      {
        method: req.method ?? "GET",
        headers,
        lookup: vettedLookup(policy) as any,
        timeout: req.timeoutMs,
        signal: req.signal,
      },
      (res) => {
        clearTimeout(overall);
        resolve(res);
      },
    );
    // `timeout` above is idle time on the socket; this bounds time to the response head.
    const overall = setTimeout(() => r.destroy(new Error(`timed out after ${req.timeoutMs} ms`)), req.timeoutMs);
    r.on("error", (e) => {
      clearTimeout(overall);
      reject(e);
    });
    r.on("timeout", () => r.destroy(new Error(`timed out after ${req.timeoutMs} ms`)));
    r.end(body);
  });
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A whole request: at most `maxBytes` of the response body are kept (the rest is drained, or with `stopAtMax` not read). */
export async function safeRequest(raw: string, req: SafeRequest & { maxBytes?: number; stopAtMax?: boolean }, policy: NetworkPolicy): Promise<SafeResponse> {
  const res = await openRequest(raw, req, policy);
  const max = req.maxBytes ?? 64 * 1024;
  const chunks: Buffer[] = [];
  let kept = 0;
  const deadline = setTimeout(() => res.destroy(new Error(`timed out after ${req.timeoutMs} ms`)), req.timeoutMs);
  try {
    for await (const chunk of res) {
      if (kept < max) {
        const part = (chunk as Buffer).subarray(0, max - kept);
        chunks.push(part);
        kept += part.length;
      }
      // A caller that refuses an over-long body need not wait for the rest of it.
      if (req.stopAtMax && kept >= max) {
        res.destroy();
        break;
      }
    }
  } finally {
    clearTimeout(deadline);
  }
  return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) };
}
