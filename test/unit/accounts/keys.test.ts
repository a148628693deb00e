import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { authenticKey, createKey, KNOWN_KEYS_MAX, parseKey, revokeKey, revokeKeyById } from "../../../src/accounts/keys.ts";
import { ensureOrg } from "../../../src/accounts/orgs.ts";
import { commitEpoch } from "../../../src/db/commit-epoch.ts";
import { ManualClock } from "../../../src/clock.ts";
import { openTestDb } from "../../helpers/db.ts";

// authenticKey remembers keys by secret hash and reads only revoked_at again: these pin what that
// memory must never change (the HTTP side, with a revocation from another process, is in
// test/api/jobs.security.test.ts).
const dir = mkdtempSync(join(tmpdir(), "clipyard-keycache-"));
const db = openTestDb(dir);
const other = openTestDb(dir); // a second connection: another process or cluster node
const clock = new ManualClock();
const org = ensureOrg(db, "cache", clock);
afterAll(() => {
  db.$client.close();
  other.$client.close();
  rmSync(dir, { recursive: true, force: true });
});
const secretOf = (key: string) => parseKey(key)!.secret;

test("a remembered key revoked through another connection is refused on the next lookup", () => {
  const { key, record } = createKey(db, org.id, "test", clock);
  expect(authenticKey(db, secretOf(key))?.id).toBe(record.id);
  expect(authenticKey(db, secretOf(key))?.revokedAt).toBeNull();
  clock.advance(1000);
  expect(revokeKey(other, key, clock)).toBe(true);
  expect(authenticKey(db, secretOf(key))?.revokedAt).toBe(clock.now());
  // Revocation is final: later lookups keep answering revoked.
  expect(authenticKey(db, secretOf(key))?.revokedAt).toBe(clock.now());
});

test("a key revoked through the same handle (the dashboard) is refused at once", () => {
  const { key, record } = createKey(db, org.id, "live", clock);
  expect(authenticKey(db, secretOf(key))?.revokedAt).toBeNull();
  expect(revokeKeyById(db, org.id, record.id, clock)).toBe(true);
  expect(authenticKey(db, secretOf(key))?.revokedAt).not.toBeNull();
});

test("unknown secrets are not found, and the same secret with one character changed is unknown", () => {
  const { key } = createKey(db, org.id, "test", clock);
  expect(authenticKey(db, secretOf(key))).toBeDefined();
  expect(authenticKey(db, secretOf(key).slice(0, -1) + (key.endsWith("a") ? "b" : "a"))).toBeUndefined();
  expect(authenticKey(db, "nope")).toBeUndefined();
});

test("past the memory's size keys are read again: still found, revocations still seen", () => {
  const made = Array.from({ length: 5 }, () => createKey(db, org.id, "test", clock));
  for (const m of made) expect(authenticKey(db, secretOf(m.key), 2)?.id).toBe(m.record.id);
  expect(revokeKey(other, made[0]!.key, clock)).toBe(true);
  for (const m of made) expect(authenticKey(db, secretOf(m.key), 2)?.id).toBe(m.record.id);
  expect(authenticKey(db, secretOf(made[0]!.key), 2)?.revokedAt).not.toBeNull();
  expect(authenticKey(db, secretOf(made[1]!.key), 2)?.revokedAt).toBeNull();
});

test("remembered keys cannot be changed by a caller", () => {
  const { key } = createKey(db, org.id, "test", clock);
  const found = authenticKey(db, secretOf(key))!;
  expect(() => {
    (found as { orgId: string }).orgId = "org_other";
  }).toThrow();
  expect(authenticKey(db, secretOf(key))!.orgId).toBe(org.id);
});

test("a remembered key's revocation is read again only after a commit; a revocation by another connection is that commit", () => {
  // PostgreSQL has no commit epoch: there the revocation is read on every lookup.
  const watched = commitEpoch(db) !== undefined;
  const { key } = createKey(db, org.id, "test", clock);
  let reads = 0;
  const reader = (k: { id: string }) => {
    reads++;
    return (db.$client.query("SELECT revoked_at AS r FROM api_keys WHERE id = ?").get(k.id) as { r: number | null } | null)?.r;
  };
  expect(authenticKey(db, secretOf(key), KNOWN_KEYS_MAX, reader)?.revokedAt).toBeNull(); // read whole, not through the reader
  for (let i = 0; i < 3; i++) expect(authenticKey(db, secretOf(key), KNOWN_KEYS_MAX, reader)?.revokedAt).toBeNull();
  expect(reads).toBe(watched ? 0 : 3);
  // Any commit (here an unrelated one) makes the next lookup read the revocation once.
  createKey(other, org.id, "test", clock);
  expect(authenticKey(db, secretOf(key), KNOWN_KEYS_MAX, reader)?.revokedAt).toBeNull();
  expect(authenticKey(db, secretOf(key), KNOWN_KEYS_MAX, reader)?.revokedAt).toBeNull();
  expect(reads).toBe(watched ? 1 : 5);
  clock.advance(1000);
  expect(revokeKey(other, key, clock)).toBe(true);
  expect(authenticKey(db, secretOf(key), KNOWN_KEYS_MAX, reader)?.revokedAt).toBe(clock.now());
  expect(reads).toBe(watched ? 2 : 6);
});
