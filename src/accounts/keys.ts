import { and, desc, eq, isNull } from "drizzle-orm";
import { camelColumns, preparedOnce } from "../db/prepared.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { commitEpoch } from "../db/commit-epoch.ts";
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

const KEY_ENVS = ["live", "test"] as const;

export function parseKey(key: string): ParsedKey {
  for (const env of KEY_ENVS) {
    if (key.startsWith(KEY_PREFIX[env])) return { env, secret: key.slice(KEY_PREFIX[env].length) };
  }
  return null;
}

const keyByHash = preparedOnce((db) =>
  db.$client.query(`SELECT ${camelColumns(apiKeys)} FROM api_keys WHERE secret_hash = ?`),
);

export function findKeyBySecret(db: Db, secret: string): ApiKey | undefined {
  return findKeyByHash(db, sha256Hex(secret));
}

function findKeyByHash(db: Db, hash: string): ApiKey | undefined {
  const row = (keyByHash(db).get(hash) as ApiKey | null) ?? undefined;
  // The index lookup already matched; the constant-time compare keeps that true if lookup ever changes.
  return row && safeEqual(row.secretHash, hash) ? row : undefined;
}

/** Keys a process remembers by secret hash (beyond this the oldest is forgotten and read again when used). */
export const KNOWN_KEYS_MAX = 10_000;
/** A remembered key, and the commit epoch (src/db/commit-epoch.ts) at which it was last read live. */
interface KnownKey {
  key: Readonly<ApiKey>;
  liveAt: number | undefined;
}
const knownKeys = preparedOnce((_db) => new Map<string, KnownKey>());
const revokedAtById = preparedOnce((db) => db.$client.query(`SELECT revoked_at AS "revokedAt" FROM api_keys WHERE id = ?`));

/**
 * A remembered key's revoked_at as the database holds it now: null while it is live, undefined when
 * the key is gone. A caller that reads something else on every request may pass its own reader, which
 * reads this beside its own value in one statement (one read transaction, one round trip).
 */
export type RevocationReader = (key: Readonly<ApiKey>) => number | null | undefined;

const readRevokedAt = preparedOnce((db): RevocationReader => {
  const statement = revokedAtById(db);
  return (key) => {
    const row = statement.get(key.id) as { revokedAt: number | null } | null;
    return row ? row.revokedAt : undefined;
  };
});

/**
 * The key for a secret, for authenticating a request. Everything about a key but its revocation is
 * fixed when it is created, so a key seen once is remembered by its secret's hash and only its
 * revoked_at is read again, by primary key, and only when something has been committed to the
 * database since it was last read live (commitEpoch: on SQLite, a look at the WAL-index header in
 * shared memory; on PostgreSQL there is none, and it is read on every request). So a revocation by
 * any process or cluster node counts from the next request. Revocation is final, so a key seen
 * revoked is answered from memory. Unknown secrets are never remembered, so a client sending
 * made-up keys cannot grow the map.
 */
export function authenticKey(db: Db, secret: string, max = KNOWN_KEYS_MAX, revokedAtNow: RevocationReader = readRevokedAt(db)): Readonly<ApiKey> | undefined {
  const hash = sha256Hex(secret);
  const known = knownKeys(db);
  const cached = known.get(hash);
  // Before any read: what is read after it is labelled with it.
  const epoch = commitEpoch(db);
  if (cached) {
    if (cached.key.revokedAt !== null) return cached.key;
    if (epoch !== undefined && cached.liveAt === epoch) return cached.key;
    const revokedAt = revokedAtNow(cached.key);
    if (revokedAt === undefined) {
      // Keys are never deleted today; if one ever is, it stops working at once all the same.
      known.delete(hash);
      return undefined;
    }
    if (revokedAt === null) {
      cached.liveAt = epoch;
      return cached.key;
    }
    cached.key = Object.freeze({ ...cached.key, revokedAt });
    return cached.key;
  }
  const key = findKeyByHash(db, hash);
  if (!key) return undefined;
  if (known.size >= max) known.delete(known.keys().next().value!);
  known.set(hash, { key: Object.freeze(key), liveAt: epoch });
  return key;
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
