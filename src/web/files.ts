import { existsSync, statSync } from "node:fs";
import { contentTypeFor } from "../storage/content-type.ts";

/**
 * Serves a local file with single-range support (RFC 9110 §14): players seek with Range requests.
 * Multi-range requests are answered with the whole file, which the RFC allows.
 */
export function serveFile(path: string, request: Request, extraHeaders: Record<string, string> = {}): Response {
  if (!existsSync(path)) return new Response("not found", { status: 404 });
  return serveBlob(Bun.file(path), statSync(path).size, path, request, extraHeaders);
}

/**
 * serveFile's answer for any Blob whose slices are read lazily: a file on disk, or an object in the
 * bucket (CLIPYARD_STORAGE_PROXY), where each slice is one ranged GET. `name` gives the content type.
 * `stream`: hand the body over as a stream (Bun's Response refuses an S3 file with a status and headers).
 */
export function serveBlob(file: Blob, size: number, name: string, request: Request, extraHeaders: Record<string, string> = {}, opts: { stream?: boolean } = {}): Response {
  // Bun 1.4 sends a stream chunked and drops our Content-Length (oven-sh/bun#10507): a proxied GET
  // has no length header; HEAD, and Content-Range on a 206, still carry the size.
  const body = (b: Blob) => (opts.stream ? b.stream() : b);
  const headers: Record<string, string> = {
    "content-type": contentTypeFor(name),
    "accept-ranges": "bytes",
    "cache-control": "private, max-age=3600",
    ...extraHeaders,
  };
  const range = request.headers.get("range");
  const m = range ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
  if (range && m && (m[1] !== "" || m[2] !== "")) {
    let start: number;
    let end: number;
    if (m[1] === "") {
      const suffix = Number(m[2]);
      start = Math.max(0, size - suffix);
      end = size - 1;
    } else {
      start = Number(m[1]);
      end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    }
    if (start > end || start >= size) {
      return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
    }
    return new Response(request.method === "HEAD" ? null : body(file.slice(start, end + 1)), {
      status: 206,
      headers: { ...headers, "content-range": `bytes ${start}-${end}/${size}`, "content-length": String(end - start + 1) },
    });
  }
  return new Response(request.method === "HEAD" ? null : body(file), {
    status: 200,
    headers: { ...headers, "content-length": String(size) },
  });
}
