import { afterAll, expect, test } from "bun:test";
import { spawn } from "bun";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DbSlidingWindowLimiter } from "../../../src/api/rate-limit.ts";
import { systemClock } from "../../../src/clock.ts";
import { openDb } from "../../../src/db/client.ts";
import { freshSchemaUrl, stopOwnPostgres } from "../../helpers/postgres.ts";

// A cluster's API nodes share each key's window in PostgreSQL; a hit is one round trip there
// (lock, count, insert in one simple query). Two processes hammering one key at once must between
// them be granted exactly the limit: never both the last slot.
const ROOT = resolve(import.meta.dir, "../../..");
afterAll(() => stopOwnPostgres());

test("two processes hitting one key at once on PostgreSQL are granted exactly the limit between them", async () => {
  const databaseUrl = freshSchemaUrl();
  const dataDir = mkdtempSync(join(tmpdir(), "clipyard-rate-pg-"));
  openDb({ dataDir, databaseUrl }).$client.close(); // migrate once, before both start
  const script = `
    const { DbSlidingWindowLimiter } = await import(${JSON.stringify(join(ROOT, "src/api/rate-limit.ts"))});
    const { openDb } = await import(${JSON.stringify(join(ROOT, "src/db/client.ts"))});
    const { systemClock } = await import(${JSON.stringify(join(ROOT, "src/clock.ts"))});
    const limiter = new DbSlidingWindowLimiter(openDb({ dataDir: process.env.D, databaseUrl: process.env.U }), systemClock);
    limiter.hit("warm", 1000);
    // Start together: each says it is ready, then waits for the word to go (a wall-clock instant
    // chosen in advance is missed by a process that starts late on a loaded machine).
    console.log("ready");
    for await (const _ of console) break;
    let granted = 0;
    for (let i = 0; i < 120; i++) if (limiter.hit("key_shared:write", 100).allowed) granted++;
    console.log(granted);
    process.exit(0);`;
  const nodes = [0, 1].map(() => spawn(["bun", "-e", script], { env: { ...process.env, D: dataDir, U: databaseUrl }, stdin: "pipe", stdout: "pipe", stderr: "inherit" }));
  const lines = nodes.map((p) => linesOf(p.stdout));
  for (const next of lines) expect(await next()).toBe("ready");
  for (const p of nodes) p.stdin.write("go\n"), void p.stdin.flush();
  const granted = await Promise.all(lines.map(async (next) => Number(await next())));
  expect(await Promise.all(nodes.map((p) => p.exited))).toEqual([0, 0]);
  expect(granted[0]! + granted[1]!).toBe(100);
  // Both took part (each asked for more than the whole limit).
  expect(Math.min(...granted)).toBeGreaterThan(0);

  // The window the two shared is the one this process sees too.
  const db = openDb({ dataDir, databaseUrl });
  try {
    const d = new DbSlidingWindowLimiter(db, systemClock).hit("key_shared:write", 100);
    expect(d.allowed).toBe(false);
    expect(d.remaining).toBe(0);
    expect(d.retryAfterSeconds).toBeGreaterThan(0);
  } finally {
    db.$client.close();
  }
}, 60_000);

test("a bucket name with quotes is counted as itself (values are inlined in the one round trip)", () => {
  const db = openDb({ dataDir: mkdtempSync(join(tmpdir(), "clipyard-rate-pg-")), databaseUrl: freshSchemaUrl() });
  try {
    const limiter = new DbSlidingWindowLimiter(db, systemClock);
    const odd = "key_'; DROP TABLE rate_hits; --:read";
    expect(limiter.hit(odd, 2).remaining).toBe(1);
    expect(limiter.hit(odd, 2).remaining).toBe(0);
    expect(limiter.hit(odd, 2).allowed).toBe(false);
    expect(limiter.hit("key_plain:read", 2).remaining).toBe(1);
    expect(Number((db.$client.query("SELECT count(*) AS n FROM rate_hits WHERE bucket = ?").get(odd) as { n: unknown }).n)).toBe(2);
  } finally {
    db.$client.close();
  }
});

test("a hit's commit without the WAL flush is its own: the connection's later statements commit durably again", () => {
  const db = openDb({ dataDir: mkdtempSync(join(tmpdir(), "clipyard-rate-pg-")), databaseUrl: freshSchemaUrl() });
  try {
    new DbSlidingWindowLimiter(db, systemClock).hit("key_async:read", 5);
    // The connection's other statements still commit durably.
    expect((db.$client.query("SELECT current_setting('synchronous_commit') AS s").get() as { s: string }).s).toBe("on");
  } finally {
    db.$client.close();
  }
});

/** Reads a child's stdout a line at a time. */
function linesOf(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async () => {
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
    }
    const at = buffered.indexOf("\n");
    const line = at < 0 ? buffered : buffered.slice(0, at);
    buffered = at < 0 ? "" : buffered.slice(at + 1);
    return line.trim();
  };
}
