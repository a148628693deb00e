import { hmacHex, sha256Hex } from "../ids.ts";

/**
 * Guest share tokens: 192 bits derived from a per-installation secret and the job id, so the raw token
 * never needs storing. The database keeps only its SHA-256, for lookup.
 */
export function shareToken(secret: string, jobId: string): string {
  return Buffer.from(hmacHex(secret, `share:${jobId}`), "hex").subarray(0, 24).toString("base64url");
}

export const shareTokenHash = (token: string): string => sha256Hex(`share:${token}`);
