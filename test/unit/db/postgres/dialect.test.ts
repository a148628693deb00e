import { expect, test } from "bun:test";
import { numberPlaceholders, toPostgresMigration, toPostgresStatement } from "../../../../src/db/postgres/dialect.ts";

test("placeholders are numbered outside quotes and comments; ?N keeps its number", () => {
  expect(numberPlaceholders(`SELECT "a?" FROM t WHERE x = ? AND y = '?' AND z = ? -- why?\nLIMIT ?`)).toBe(`SELECT "a?" FROM t WHERE x = $1 AND y = '?' AND z = $2 -- why?\nLIMIT $3`);
  expect(numberPlaceholders("UPDATE t SET a = ?1 WHERE b <= ?3 AND (c IS NULL OR c < ?3) LIMIT ?4")).toBe("UPDATE t SET a = $1 WHERE b <= $3 AND (c IS NULL OR c < $3) LIMIT $4");
  // A doubled quote is an escaped one, not the end of the text.
  expect(numberPlaceholders("SELECT 'it''s ?', ?")).toBe("SELECT 'it''s ?', $1");
  expect(() => numberPlaceholders("SELECT 'open")).toThrow(/unterminated/);
});

test("an upsert's conflict target loses drizzle's table qualifier", () => {
  expect(toPostgresStatement(`insert into "p" ("org_id", "e") values (?, ?) on conflict ("p"."org_id") do update set "e" = ?`)).toBe(
    `insert into "p" ("org_id", "e") values ($1, $2) on conflict ("org_id") do update set "e" = $3`,
  );
});

test("a migration in PostgreSQL's words: BIGINT, byte-wise text, an explicit rowid, NULL-drawn sequences", () => {
  const pg = toPostgresMigration(`
  CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX jobs_id ON jobs(id);`);
  expect(pg).toContain("CREATE TABLE jobs (\n    rowid BIGSERIAL NOT NULL,");
  expect(pg).toContain("seq BIGSERIAL PRIMARY KEY,");
  expect(pg).toContain('id TEXT COLLATE "C" NOT NULL UNIQUE,');
  expect(pg).toContain("created_at BIGINT NOT NULL");
  expect(pg).not.toContain("INTEGER");
  // drizzle's SQLite builder inserts NULL into seq; the trigger draws the next value as SQLite does.
  expect(pg).toMatch(/CREATE TRIGGER jobs_seq_default BEFORE INSERT ON jobs/);
  expect(pg).toContain("IF NEW.seq IS NULL THEN NEW.seq := nextval(pg_get_serial_sequence('jobs', 'seq'))");
});
