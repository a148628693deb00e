import { PgBridge } from "./bridge.ts";
import { toPostgresMigration, toPostgresStatement } from "./dialect.ts";

/**
 * Advisory lock keys. WRITE_LOCK is what SQLite's IMMEDIATE transaction is: one writing transaction
 * at a time, so a transaction's check-then-write holds across every node. Single statements (a
 * guarded UPDATE, a claim with SKIP LOCKED) do not take it; PostgreSQL's row locks order them.
 */
const WRITE_LOCK = 0x636c6970; // "clip"
const MIGRATE_LOCK = 0x636c6971;

type Row = Record<string, unknown>;

/** bun:sqlite's Statement, as far as drizzle and the stores use it. */
class PgStatement {
  private readonly text: string;

  constructor(
    private readonly bridge: PgBridge,
    sqlText: string,
  ) {
    this.text = toPostgresStatement(sqlText);
  }

  run(...params: unknown[]): { changes: number; lastInsertRowid: number } {
    return { changes: this.bridge.query(this.text, params).count, lastInsertRowid: 0 };
  }

  values(...params: unknown[]): unknown[][] {
    return this.bridge.query(this.text, params).rows;
  }

  all(...params: unknown[]): Row[] {
    const { rows, fields } = this.bridge.query(this.text, params);
    return rows.map((r) => {
      const o: Row = {};
      for (let i = 0; i < fields.length; i++) o[fields[i]!] = r[i];
      return o;
    });
  }

  get(...params: unknown[]): Row | null {
    return this.all(...params)[0] ?? null;
  }

  finalize(): void {}
}

type TxFn<A extends unknown[], T> = ((...args: A) => T) & { deferred(...args: A): T; immediate(...args: A): T; exclusive(...args: A): T };

/**
 * The part of bun:sqlite's `Database` that drizzle's bun-sqlite driver and the stores call, over
 * PostgreSQL. drizzle builds SQLite-dialect text; `toPostgresStatement` numbers its placeholders.
 * A transaction is a synchronous function here too (see PgBridge), nested ones are savepoints.
 */
export class PgClient {
  readonly dialect = "postgres" as const;
  private depth = 0;
  private readonly cache = new Map<string, PgStatement>();

  constructor(private readonly bridge: PgBridge) {}

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  prepare(sqlText: string): PgStatement {
    return new PgStatement(this.bridge, sqlText);
  }

  /** Like bun:sqlite's query(): the statement is built once per text. */
  query(sqlText: string): PgStatement {
    let s = this.cache.get(sqlText);
    if (!s) this.cache.set(sqlText, (s = this.prepare(sqlText)));
    return s;
  }

  exec(sqlText: string): void {
    this.bridge.query(sqlText);
  }

  /**
   * Several statements without parameters (values inlined with sqlString) in one round trip: run as
   * one implicit transaction, each statement on a snapshot taken when it starts. The last one's rows.
   */
  batch(sqlText: string): unknown[][] {
    return this.bridge.query(sqlText).rows;
  }

  /** The statement locked() opens with: the advisory lock for a text key, held to the transaction's end. */
  static lockStatement(lockKey: string): string {
    return `SELECT pg_advisory_xact_lock(hashtextextended(${sqlString(lockKey)}, 0))`;
  }

  /** Runs fn in a transaction holding the advisory lock `lockKey` (a text key: a lock per key). */
  locked<T>(lockKey: string, fn: () => T): T {
    return this.run(fn, PgClient.lockStatement(lockKey));
  }

  transaction<A extends unknown[], T>(fn: (...args: A) => T): TxFn<A, T> {
    const plain = (...args: A) => this.run(() => fn(...args), undefined);
    const writing = (...args: A) => this.run(() => fn(...args), `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
    return Object.assign(plain, { deferred: plain, immediate: writing, exclusive: writing });
  }

  /** readTx: read-only fn on one consistent snapshot, as SQLite's deferred read transaction gives. */
  snapshot<T>(fn: () => T): T {
    return this.depth > 0 ? fn() : this.run(fn, undefined, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  }

  close(): void {
    this.bridge.close();
  }

  /**
   * fn inside BEGIN … COMMIT (a savepoint when nested), holding the advisory lock `lock` (a statement
   * without parameters) from the start. Nested too: a savepoint alone serialises nothing, and the lock
   * is held until the outermost transaction ends (advisory locks are re-entrant within a session).
   */
  private run<T>(fn: () => T, lock: string | undefined, begin = "BEGIN"): T {
    const savepoint = this.depth > 0 ? `clipyard_sp${this.depth}` : undefined;
    const open = savepoint ? `SAVEPOINT ${savepoint}` : begin;
    this.depth++;
    try {
      // One round trip for both: a simple query may hold several statements.
      this.bridge.query(lock ? `${open}; ${lock}` : open);
      const out = fn();
      this.bridge.query(savepoint ? `RELEASE SAVEPOINT ${savepoint}` : "COMMIT");
      return out;
    } catch (err) {
      try {
        this.bridge.query(savepoint ? `ROLLBACK TO SAVEPOINT ${savepoint}` : "ROLLBACK");
      } catch {
        // The connection is gone; the server rolled back with it.
      }
      throw err;
    } finally {
      this.depth--;
    }
  }

  /** Applies the migrations this database lacks, under a lock, so nodes starting together migrate once. */
  migrate(migrations: readonly string[]): void {
    this.run(() => {
      this.exec("CREATE TABLE IF NOT EXISTS clipyard_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)");
      const done = Number(this.bridge.query("SELECT coalesce(max(version), 0) FROM clipyard_migrations").rows[0]![0]);
      for (let i = done; i < migrations.length; i++) {
        this.exec(toPostgresMigration(migrations[i]!));
        this.bridge.query("INSERT INTO clipyard_migrations (version, applied_at) VALUES ($1, $2)", [i + 1, Date.now()]);
      }
    }, `SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`);
  }
}

/** A text as an SQL string literal (quotes doubled): for the few statements sent without parameters. */
export const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/**
 * Connects to `postgres://…`. A `schema=NAME` query parameter keeps this appliance's tables in their
 * own schema (created if missing): several appliances, or test runs, can share one database.
 */
export function openPgClient(databaseUrl: string): PgClient {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema") ?? undefined;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`CLIPYARD_DATABASE_URL: schema must be a lower-case SQL name, got ${JSON.stringify(schema)}`);
  url.searchParams.delete("schema");
  const client = new PgClient(new PgBridge(url.toString(), schema));
  try {
    client.exec("SELECT 1");
  } catch (err) {
    client.close();
    throw new Error(`cannot reach PostgreSQL at ${url.host}${url.pathname}: ${(err as Error).message}`);
  }
  return client;
}
