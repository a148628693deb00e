import { existsSync, statSync } from "node:fs";
import { extname } from "node:path";

const TYPES: Record<string, string> = {
  ".mp4": "video/mp4",
  ".m4a": "audio/mp4",
  ".mp3": "audio/mpeg",
  ".md": "text/markdown; charset=utf-8",
  ".json": "application/json",
  ".vtt": "text/vtt; charset=utf-8",
  ".srt": "application/x-subrip; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".otio": "application/json",
  ".png": "image/png",
  ".jpg": "image/jpeg",
};

export const contentTypeFor = (path: string): string => TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";

/**
 * Serves a local file with single-range support (RFC 9110 §14): players seek with Range requests.
 * Multi-range requests are answered with the whole file, which the RFC allows.
 */
export function serveFile(path: string, request: Request, extraHeaders: Record<string, string> = {}): Response {
  if (!existsSync(path)) return new Response("not found", { status: 404 });
  const size = statSync(path).size;
  const file = Bun.file(path);
  const headers: Record<string, string> = {
    "content-type": contentTypeFor(path),
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
    const body = request.method === "HEAD" ? null : file.slice(start, end + 1);
    return new Response(body, {
      status: 206,
      headers: { ...headers, "content-range": `bytes ${start}-${end}/${size}`, "content-length": String(end - start + 1) },
    });
  }
  return new Response(request.method === "HEAD" ? null : file, {
    status: 200,
    headers: { ...headers, "content-length": String(size) },
  });
}
