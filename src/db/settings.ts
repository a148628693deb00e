import { eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { settings } from "./schema.ts";
import { randomBase62 } from "../ids.ts";
import { tx } from "./client.ts";

/** A per-installation random secret, created on first use and kept in the database. */
export function installationSecret(db: Db, name: string): string {
  return tx(db, () => {
    const row = db.select().from(settings).where(eq(settings.name, name)).get();
    if (row) return row.value;
    const value = randomBase62(256);
    db.insert(settings).values({ name, value }).run();
    return value;
  });
}

/**
 * The value every process on this database agrees on for `name`: the first to ask records its own,
 * later ones get that one back (to compare with theirs).
 */
export function agreedSetting(db: Db, name: string, mine: string): string {
  return tx(db, () => {
    const row = db.select().from(settings).where(eq(settings.name, name)).get();
    if (row) return row.value;
    db.insert(settings).values({ name, value: mine }).run();
    return mine;
  });
}
