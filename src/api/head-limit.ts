import http from "node:http";
import { ApiError } from "../errors.ts";

/** Largest request head (request line plus header lines) the API accepts. */
export const MAX_HEAD_BYTES = 16 * 1024;

/**
 * Bun's HTTP parser refuses a head over its own cap (16 KiB by default) with a bare 431: no body, no
 * X-Request-Id, before any application code runs. Raising the cap lets heads up to 1 MiB (the body
 * limit, so no new memory exposure per request) reach the app, which refuses them with the error
 * envelope. Heads beyond 1 MiB still get Bun's bare 431: the parser gives the app no hook there.
 * The cap is process-wide; node:http's setter is how Bun exposes it at run time.
 */
export const PARSER_HEAD_BYTES = 1024 * 1024;

export function letOversizedHeadsReachTheApp(): void {
  if (http.maxHeaderSize < PARSER_HEAD_BYTES) (http as { maxHeaderSize: number }).maxHeaderSize = PARSER_HEAD_BYTES;
}

let headBytes = 0;
const addHeaderBytes = (value: string, name: string): void => {
  headBytes += name.length + value.length + 4; // "name: value\r\n"
};

/** Refuses a request whose head is over MAX_HEAD_BYTES, naming the part that is too large. */
export function checkHeadSize(request: Request): void {
  const url = request.url;
  // "METHOD " + origin-form target + " HTTP/1.1\r\n"; the target is the URL after scheme and host.
  const target = url.length - url.indexOf("/", url.indexOf("//") + 2);
  const lineBytes = request.method.length + target + 12;
  headBytes = 0;
  // forEach with a closure made once: this runs on every request, and it allocates nothing per header.
  request.headers.forEach(addHeaderBytes);
  const headerBytes = headBytes;
  if (lineBytes + headerBytes <= MAX_HEAD_BYTES) return;
  let largest = "";
  let largestBytes = 0;
  request.headers.forEach((value, name) => {
    const bytes = name.length + value.length + 4;
    if (bytes > largestBytes) [largest, largestBytes] = [name, bytes];
  });
  const part =
    lineBytes > MAX_HEAD_BYTES
      ? `The request line is ${lineBytes} bytes`
      : `The request head is ${lineBytes + headerBytes} bytes (largest header: ${largest}, ${largestBytes} bytes)`;
  throw new ApiError("request_header_too_large", `${part}; the limit for the request line and headers together is ${MAX_HEAD_BYTES} bytes.`);
}
