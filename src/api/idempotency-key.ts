import { ApiError } from "../errors.ts";

/** The request's Idempotency-Key header, if any; every create route that honours one reads it here. */
export function idempotencyKey(request: Request): string | undefined {
  const key = request.headers.get("idempotency-key");
  if (key === null) return undefined;
  if (key.length < 8 || key.length > 255) {
    throw new ApiError("invalid_idempotency_key", "Idempotency-Key must be 8-255 characters.", "Idempotency-Key");
  }
  return key;
}
