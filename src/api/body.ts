import { ApiError } from "../errors.ts";

/** Largest request body accepted, in bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads and parses a JSON object body ourselves (not the framework), so every failure maps to the
 * spec's codes: invalid_json for unparseable text, invalid_body for JSON that is not an object.
 */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const buf = await readLimited(request);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid UTF-8 JSON.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError("invalid_json", `The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError("invalid_body", "The request body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

function tooLarge(): ApiError {
  return new ApiError("body_too_large", `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
}

/** Reads the body but stops as soon as it passes the limit, so a huge upload never sits in memory. */
function readLimited(request: Request): Promise<Uint8Array> {
  return readBodyLimited(request, MAX_BODY_BYTES, tooLarge);
}

/**
 * The whole body, refused with `tooLarge()` as soon as it passes `max` bytes, whether or not it
 * declared a Content-Length (a chunked body declares nothing).
 */
export async function readBodyLimited(request: Request, max: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
