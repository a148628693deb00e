/**
 * SQLite → PostgreSQL text rewrites. The stores are written once, against drizzle's SQLite builder and
 * a few raw statements in the common subset of both dialects; only what cannot be common is rewritten
 * here. Kept small on purpose: anything a store needs beyond this list is written dialect-neutral in
 * the store, not patched here.
 */

/**
 * `?` placeholders → `$1, $2, …` (and `?3` → `$3`), skipping quoted text ('…', "…") and comments.
 * (PostgreSQL itself refuses a statement given another number of parameters than it names.)
 */
export function numberPlaceholders(sqlText: string): string {
  let out = "";
  let n = 0;
  for (let i = 0; i < sqlText.length; i++) {
    const ch = sqlText[i]!;
    if (ch === "'" || ch === '"') {
      const end = closingQuote(sqlText, i, ch);
      out += sqlText.slice(i, end + 1);
      i = end;
    } else if (ch === "-" && sqlText[i + 1] === "-") {
      const end = sqlText.indexOf("\n", i);
      const stop = end === -1 ? sqlText.length - 1 : end;
      out += sqlText.slice(i, stop + 1);
      i = stop;
    } else if (ch === "?") {
      // `?NNN` (SQLite's numbered form, used where a statement repeats a value) keeps its number.
      const numbered = /^\d+/.exec(sqlText.slice(i + 1));
      if (numbered) {
        out += `$${numbered[0]}`;
        n = Math.max(n, Number(numbered[0]));
        i += numbered[0].length;
      } else out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/** Index of the quote closing the one at `start` (a doubled quote is an escaped one). */
function closingQuote(s: string, start: number, q: string): number {
  let i = start + 1;
  for (;;) {
    const j = s.indexOf(q, i);
    if (j === -1) throw new Error(`unterminated ${q} in SQL: ${s.slice(start, start + 40)}`);
    if (s[j + 1] === q) i = j + 2;
    else return j;
  }
}

/** A statement as the application wrote it, in PostgreSQL's words. */
export function toPostgresStatement(sqlText: string): string {
  // drizzle's SQLite builder qualifies an upsert's conflict target ("t"."col"); PostgreSQL takes bare columns.
  const text = sqlText.replace(/on conflict \(([^)]*)\)/gi, (_, cols: string) => `on conflict (${cols.replace(/"[^"]+"\./g, "")})`);
  return numberPlaceholders(text);
}

/**
 * One shipped SQLite migration in PostgreSQL's words. Migrations are the one description of the
 * schema (src/db/schema.ts mirrors them for drizzle, checked by a test), so both dialects are
 * generated from the same text rather than kept as two lists that could drift:
 * - every INTEGER is a BIGINT (times are Unix milliseconds);
 * - `INTEGER PRIMARY KEY AUTOINCREMENT` becomes a sequence-backed BIGINT whose NULL insert draws the
 *   next value, as SQLite's rowid alias does (drizzle's SQLite builder writes NULL for it);
 * - every table gets SQLite's implicit `rowid` as a real column (insertion order: the wallet spends
 *   lots bought in the same millisecond in the order they were bought);
 * - text compares byte-wise (COLLATE "C"), as SQLite's BINARY collation does, so ordering by an id
 *   or a name gives the same rows on both;
 * - a row-version trigger (rowVersionTrigger) becomes PostgreSQL's BEFORE UPDATE equivalent.
 */
export function toPostgresMigration(sqliteSql: string): string {
  const seqColumns: Array<{ table: string; column: string }> = [];
  let table = "";
  const lines = sqliteSql.split("\n").map((line) => {
    const version = rowVersionTrigger(line);
    if (version) return version;
    const create = /^(\s*)CREATE TABLE (\w+) \($/i.exec(line);
    if (create) {
      table = create[2]!;
      return `${line}\n${create[1]}  rowid BIGSERIAL NOT NULL,`;
    }
    const auto = /^(\s*)(\w+) INTEGER PRIMARY KEY AUTOINCREMENT(,?)\s*$/i.exec(line);
    if (auto) {
      seqColumns.push({ table, column: auto[2]! });
      return `${auto[1]}${auto[2]} BIGSERIAL PRIMARY KEY${auto[3]}`;
    }
    return line.replace(/\bINTEGER\b/g, "BIGINT").replace(/\bTEXT\b(?!\s+COLLATE)/g, 'TEXT COLLATE "C"');
  });
  const triggers = seqColumns.map(({ table: t, column: c }) => {
    const fn = `${t}_${c}_default`;
    return `
  CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.${c} IS NULL THEN NEW.${c} := nextval(pg_get_serial_sequence('${t}', '${c}')); END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER ${fn} BEFORE INSERT ON ${t} FOR EACH ROW EXECUTE FUNCTION ${fn}();`;
  });
  return lines.join("\n") + triggers.join("\n");
}

/**
 * SQLite's row-version idiom, `CREATE TRIGGER t AFTER UPDATE ON tbl FOR EACH ROW WHEN NEW.v = OLD.v
 * BEGIN UPDATE tbl SET v = OLD.v + 1 WHERE key = NEW.key; END;` (on one line), as a PostgreSQL
 * function raising the version in the row being written; undefined for any other line.
 */
export function rowVersionTrigger(line: string): string | undefined {
  const m = /^(\s*)CREATE TRIGGER (\w+) AFTER UPDATE ON (\w+) FOR EACH ROW WHEN NEW\.(\w+) = OLD\.\4 BEGIN UPDATE \3 SET \4 = OLD\.\4 \+ 1 WHERE (\w+) = NEW\.\5; END;\s*$/i.exec(line);
  if (!m) return undefined;
  const [, indent, name, table, column] = m;
  return `${indent}CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
${indent}BEGIN
${indent}  IF NEW.${column} = OLD.${column} THEN NEW.${column} := OLD.${column} + 1; END IF;
${indent}  RETURN NEW;
${indent}END $$;
${indent}CREATE TRIGGER ${name} BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}();`;
}
