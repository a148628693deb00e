import { and, desc, eq, isNull } from "drizzle-orm";
import { camelColumns, preparedOnce } from "../db/prepared.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { apiKeys } from "../db/schema.ts";
import { newId, randomBase62, safeEqual, sha256Hex } from "../ids.ts";

export type KeyEnv = "live" | "test";
export const KEY_PREFIX: Record<KeyEnv, string> = { live: "svc_live_", test: "svc_test_" };
/** Random part of a key: 190 bits of base62. */
const SECRET_BITS = 190;

export type ApiKey = typeof apiKeys.$inferSelect;

/**
 * Creates a key and returns the full key text, which is never stored: only a SHA-256 of its secret
 * part is (a fast hash is right here: the secret has 190 bits of entropy, nothing to brute-force).
 * Hashing the part after the prefix lets authentication tell "unknown key" from "right key, wrong
 * environment prefix".
 */
export function createKey(db: Db, orgId: string, env: KeyEnv, clock: Clock): { key: string; record: ApiKey } {
  const secret = randomBase62(SECRET_BITS);
  const record: ApiKey = {
    id: newId("key"),
    orgId,
    env,
    secretHash: sha256Hex(secret),
    hint: `${KEY_PREFIX[env]}${secret.slice(0, 4)}…${secret.slice(-4)}`,
    createdAt: clock.now(),
    revokedAt: null,
  };
  db.insert(apiKeys).values(record).run();
  return { key: KEY_PREFIX[env] + secret, record };
}

export type ParsedKey = { env: KeyEnv; secret: string } | null;

export function parseKey(key: string): ParsedKey {
  for (const env of ["live", "test"] as const) {
    if (key.startsWith(KEY_PREFIX[env])) return { env, secret: key.slice(KEY_PREFIX[env].length) };
  }
  return null;
}

const keyByHash = preparedOnce((db) =>
  db.$client.query(`SELECT ${camelColumns(apiKeys)} FROM api_keys WHERE secret_hash = ?`),
);

export function findKeyBySecret(db: Db, secret: string): ApiKey | undefined {
  const hash = sha256Hex(secret);
  const row = (keyByHash(db).get(hash) as ApiKey | null) ?? undefined;
  // The index lookup already matched; the constant-time compare keeps that true if lookup ever changes.
  return row && safeEqual(row.secretHash, hash) ? row : undefined;
}

/** Revokes the key given in full; returns false when no such key exists. Idempotent. */
export function revokeKey(db: Db, key: string, clock: Clock): boolean {
  const parsed = parseKey(key);
  if (!parsed) return false;
  const row = findKeyBySecret(db, parsed.secret);
  if (!row || row.env !== parsed.env) return false;
  db.update(apiKeys)
    .set({ revokedAt: clock.now() })
    .where(and(eq(apiKeys.id, row.id), isNull(apiKeys.revokedAt)))
    .run();
  return true;
}

export function revokeKeyById(db: Db, orgId: string, id: string, clock: Clock): boolean {
  const res = db
    .update(apiKeys)
    .set({ revokedAt: clock.now() })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .all();
  return res.length > 0;
}

export function listKeys(db: Db, orgId: string): ApiKey[] {
  return db.select().from(apiKeys).where(eq(apiKeys.orgId, orgId)).orderBy(desc(apiKeys.createdAt)).all();
}
