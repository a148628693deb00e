import { hmacHex } from "../ids.ts";

/**
 * Spec §6: `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256("<t>.<raw body>")>`, keyed with the
 * full secret string (whsec_ prefix included). The same scheme as Stripe's, so its SDK verifies it.
 */
export function signatureHeader(secret: string, unixSeconds: number, rawBody: string): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${rawBody}`)}`;
}
