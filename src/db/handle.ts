import type { Database } from "bun:sqlite";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type * as schema from "./schema.ts";

/** The database handle every store takes; its own module so helpers beside client.ts need not import it. */
export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
