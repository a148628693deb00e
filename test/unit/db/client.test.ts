import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDbFile, readTx } from "../../../src/db/client.ts";

function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-readtx-"));
  const a = openDbFile(join(dir, "db.sqlite"));
  const b = openDbFile(join(dir, "db.sqlite"));
  a.$client.exec("CREATE TABLE t (v INTEGER)");
  a.$client.exec("INSERT INTO t VALUES (1)");
  const count = () => (a.$client.query("SELECT count(*) AS n FROM t").get() as { n: number }).n;
  return { a, b, count, done: () => (a.$client.close(), b.$client.close(), rmSync(dir, { recursive: true, force: true })) };
}

test("readTx reads one snapshot: a commit by another connection meanwhile is not seen until it ends", () => {
  const { a, b, count, done } = twoConnections();
  const seen = readTx(a, () => {
    const before = count();
    b.$client.exec("INSERT INTO t VALUES (2)");
    return [before, count()];
  });
  expect(seen).toEqual([1, 1]);
  expect(count()).toBe(2);
  expect(a.$client.inTransaction).toBe(false);
  done();
});

test("readTx ends its transaction when fn throws, and nests inside an open transaction", () => {
  const { a, count, done } = twoConnections();
  expect(() => readTx(a, () => { count(); throw new Error("boom"); })).toThrow("boom");
  expect(a.$client.inTransaction).toBe(false);
  a.$client.transaction(() => {
    a.$client.exec("INSERT INTO t VALUES (3)");
    expect(readTx(a, count)).toBe(2);
    expect(a.$client.inTransaction).toBe(true);
  })();
  expect(count()).toBe(2);
  done();
});
