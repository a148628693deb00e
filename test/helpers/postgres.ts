import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBase62 } from "../../src/ids.ts";

const ROOT = resolve(import.meta.dir, "../..");
let own: { dir: string; url: string } | undefined;

/**
 * A PostgreSQL server for tests that need one whatever the back end of the run: the one `npm test`
 * started (CLIPYARD_TEST_POSTGRES_URL), else a throwaway server of this test file's own
 * (scripts/cluster/postgres.sh), stopped by stopOwnPostgres().
 */
export function testPostgresUrl(): string {
  const shared = process.env.CLIPYARD_TEST_POSTGRES_URL;
  if (shared) return shared;
  if (own) return own.url;
  const dir = mkdtempSync(join(tmpdir(), "clipyard-pg-"));
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const r = spawnSync("bash", [join(ROOT, "scripts/cluster/postgres.sh"), "start", dir, String(port)], { encoding: "utf8" });
    if (r.status === 0) {
      own = { dir, url: r.stdout.trim() };
      // A backstop for a run that ends before its afterAll (a hook timeout, an interrupted run):
      // the server must not outlive the test process.
      process.once("exit", stopOwnPostgres);
      return own.url;
    }
    if (attempt === 4) throw new Error(`could not start a test PostgreSQL: ${r.stderr}`);
  }
  throw new Error("unreachable");
}

export function stopOwnPostgres(): void {
  if (!own) return;
  spawnSync("bash", [join(ROOT, "scripts/cluster/postgres.sh"), "stop", own.dir]);
  rmSync(own.dir, { recursive: true, force: true });
  own = undefined;
}

/** The server's URL with a fresh schema of its own: an empty database for one test. */
export function freshSchemaUrl(prefix = "t"): string {
  const url = new URL(testPostgresUrl());
  url.searchParams.set("schema", `${prefix}_${randomBase62(64).toLowerCase()}`);
  return url.toString();
}
