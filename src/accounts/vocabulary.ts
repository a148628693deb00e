import { and, eq } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { orgVocabulary } from "../db/schema.ts";
import type { Scope } from "./scope.ts";

/** An organisation's stored vocabulary in one world; never set reads as an empty list. */
export interface StoredVocabulary {
  entries: string[];
  updatedAt: number | null;
}

export function getVocabulary(db: Db, scope: Scope): StoredVocabulary {
  const row = db.select().from(orgVocabulary).where(and(eq(orgVocabulary.orgId, scope.orgId), eq(orgVocabulary.env, scope.env))).get();
  return row ? { entries: JSON.parse(row.entries) as string[], updatedAt: row.updatedAt } : { entries: [], updatedAt: null };
}

/** Replaces the list (a PUT): what was sent is what is stored, so a GET answers it back unchanged. */
export function setVocabulary(db: Db, clock: Clock, scope: Scope, entries: string[]): StoredVocabulary {
  const updatedAt = clock.now();
  db.insert(orgVocabulary)
    .values({ orgId: scope.orgId, env: scope.env, entries: JSON.stringify(entries), updatedAt })
    .onConflictDoUpdate({ target: [orgVocabulary.orgId, orgVocabulary.env], set: { entries: JSON.stringify(entries), updatedAt } })
    .run();
  return { entries, updatedAt };
}
