import { authenticKey, KNOWN_KEYS_MAX, parseKey, type ApiKey, type RevocationReader } from "../accounts/keys.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors.ts";

export interface Principal {
  key: Readonly<ApiKey>;
  orgId: string;
  env: "live" | "test";
}

/**
 * Spec §5: bearer keys, checked in the order the error table lists them. `revokedAtNow` reads a
 * remembered key's revocation (see RevocationReader); by default its own statement.
 */
export function authenticate(db: Db, header: string | null, revokedAtNow?: RevocationReader): Principal {
  if (header === null || header.trim() === "") {
    throw new ApiError("missing_authorization", "Send your API key as 'Authorization: Bearer <key>'.");
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  if (!m) throw new ApiError("invalid_api_key_format", "The Authorization header must be 'Bearer <key>'.");
  const parsed = parseKey(m[1]!);
  if (!parsed || parsed.secret.length === 0) {
    throw new ApiError("invalid_api_key_format", "API keys start with svc_live_ or svc_test_.");
  }
  const key = authenticKey(db, parsed.secret, KNOWN_KEYS_MAX, revokedAtNow);
  if (!key) throw new ApiError("invalid_api_key", "No such API key.");
  if (key.env !== parsed.env) {
    throw new ApiError(
      "api_key_environment_mismatch",
      `This key belongs to the ${key.env === "live" ? "live (svc_live_)" : "sandbox (svc_test_)"} environment; send it with that prefix.`,
    );
  }
  if (key.revokedAt !== null) throw new ApiError("api_key_revoked", "This API key has been revoked.");
  return { key, orgId: key.orgId, env: key.env };
}
