import { ApiError } from "../errors.ts";

/**
 * Bun refuses a body over Bun.serve's maxRequestBodySize with a bare 413: no envelope, no
 * X-Request-Id, before any application code runs. So Bun's own cap is set out of reach and the app
 * applies the real one here, from Content-Length, before a route reads a byte. A body sent without
 * Content-Length (chunked) is bounded by whoever reads it: body.ts's readLimited, the uploads'
 * streaming count, readBodyLimited for forms and provider webhooks.
 */
export const PARSER_BODY_BYTES = Number.MAX_SAFE_INTEGER;

export function checkDeclaredBodySize(request: Request, limit: number): void {
  const declared = request.headers.get("content-length");
  if (declared === null) return;
  const bytes = Number(declared);
  if (!Number.isFinite(bytes) || bytes > limit) {
    throw new ApiError("body_too_large", `The request body declares ${declared.slice(0, 40)} bytes; the most this appliance accepts is ${limit} bytes.`);
  }
}
