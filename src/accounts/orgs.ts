import { eq } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import { orgs } from "../db/schema.ts";
import { newId } from "../ids.ts";

export type Org = typeof orgs.$inferSelect;

export function findOrgByName(db: Db, name: string): Org | undefined {
  return db.select().from(orgs).where(eq(orgs.name, name)).get();
}

/** Returns the organisation called `name`, creating it if needed (atomic: two callers get one org). */
export function ensureOrg(db: Db, name: string, clock: Clock): Org {
  return tx(db, () => {
    const existing = findOrgByName(db, name);
    if (existing) return existing;
    const org: Org = { id: newId("org"), name, createdAt: clock.now() };
    db.insert(orgs).values(org).run();
    return org;
  });
}
