import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, type Db } from "../../../src/db/client.ts";
import { rowVersionTrigger } from "../../../src/db/postgres/dialect.ts";
import { presentJobBody, rememberedJobBody } from "../../../src/jobs/present.ts";
import { claimNextJob, extendJobLease, getJob, getJobVersion, getKeyRevocationAndJobVersion, insertJob, markComplete, replaceOutput } from "../../../src/jobs/store.ts";
import { createKey, revokeKeyById } from "../../../src/accounts/keys.ts";
import { ManualClock } from "../../../src/clock.ts";
import { freshSchemaUrl, stopOwnPostgres } from "../../helpers/postgres.ts";

// GET /v1/jobs/{id} answers from the body it built before while jobs.version is unchanged, so the
// version must rise on every update of the row, by any statement, on both back ends.
afterAll(() => stopOwnPostgres());

const dataDir = () => mkdtempSync(join(tmpdir(), "clipyard-jobversion-"));
const backEnds: Array<[string, () => Db]> = [
  ["SQLite", () => openDb({ dataDir: dataDir() })],
  ["PostgreSQL", () => openDb({ dataDir: dataDir(), databaseUrl: freshSchemaUrl() })],
];
const scope = { orgId: "org_v", env: "test" as const };
const ctx = { publicUrl: "http://h", shareSecret: "s" };

function newJob(db: Db, id: string) {
  return insertJob(db, {
    id,
    orgId: scope.orgId,
    env: scope.env,
    status: "queued",
    sourceType: "video_url",
    sourceUrl: "https://x.example/a.mp4",
    options: "{}",
    createdAt: 0,
    runAfter: 0,
    requestId: "req_v",
  });
}

describe.each(backEnds)("jobs.version on %s", (_, open) => {
  test("rises on every update of the row, whichever statement writes it, and only on that row", () => {
    const db = open();
    try {
      db.$client.query("INSERT INTO orgs (id, name, created_at) VALUES (?, ?, 0)").run(scope.orgId, `o_${Math.random()}`);
      newJob(db, "job_v1");
      newJob(db, "job_v2");
      const v = () => getJobVersion(db, scope, "job_v1")!;
      expect(v()).toBe(0);
      expect(Number(getJob(db, scope, "job_v1")!.version)).toBe(0);
      const seen = [v()];
      expect(claimNextJob(db, "test", "node_a", 1, 60_000)?.id).toBe("job_v1");
      seen.push(v());
      extendJobLease(db, "job_v1", "node_a", 90_000, JSON.stringify({ stage: "transcribe", percent: 10 }));
      seen.push(v());
      markComplete(db, "job_v1", JSON.stringify({ clips: [], transcript: [] }), "h", 2, { owner: "node_a", from: ["processing"] });
      seen.push(v());
      replaceOutput(db, "job_v1", JSON.stringify({ clips: [], transcript: [{ text: "x" }] }));
      seen.push(v());
      // A raw statement too, and one that sets a column to the value it had.
      db.$client.query("UPDATE jobs SET error_message = error_message WHERE id = ?").run("job_v1");
      seen.push(v());
      for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
      expect(getJobVersion(db, scope, "job_v2")).toBe(0);
      // The version read is scoped like the row read: another organisation's job is not found.
      expect(getJobVersion(db, { ...scope, orgId: "org_other" }, "job_v1")).toBeUndefined();
      expect(getJobVersion(db, scope, "job_missing")).toBeUndefined();
    } finally {
      db.$client.close();
    }
  });

  test("a body remembered at one version is not answered at the next", () => {
    const db = open();
    try {
      db.$client.query("INSERT INTO orgs (id, name, created_at) VALUES (?, ?, 0)").run(scope.orgId, `o_${Math.random()}`);
      const id = `job_r${Math.random().toString(36).slice(2)}`;
      newJob(db, id);
      expect(rememberedJobBody(id, 0, ctx)?.json).toBeUndefined();
      const body = presentJobBody(getJob(db, scope, id)!, ctx).json;
      expect(rememberedJobBody(id, getJobVersion(db, scope, id)!, ctx)?.json).toBe(body);
      expect(rememberedJobBody(id, 0, { ...ctx, publicUrl: "http://other" })?.json).toBeUndefined();
      db.$client.query("UPDATE jobs SET status = 'failed', error_code = 'x', error_message = 'y' WHERE id = ?").run(id);
      expect(rememberedJobBody(id, getJobVersion(db, scope, id)!, ctx)?.json).toBeUndefined();
      expect(JSON.parse(presentJobBody(getJob(db, scope, id)!, ctx).json).status).toBe("failed");
    } finally {
      db.$client.close();
    }
  });

  test("a key's revocation and a job's version read in one statement: each as read alone, scoped like the version", () => {
    const db = open();
    try {
      db.$client.query("INSERT INTO orgs (id, name, created_at) VALUES (?, ?, 0)").run(scope.orgId, `o_${Math.random()}`);
      const clock = new ManualClock(5_000);
      const { record } = createKey(db, scope.orgId, "test", clock);
      newJob(db, "job_k1");
      db.$client.query("UPDATE jobs SET progress = 'x' WHERE id = ?").run("job_k1");
      expect(getKeyRevocationAndJobVersion(db, record.id, scope, "job_k1")).toEqual({ revokedAt: null, version: getJobVersion(db, scope, "job_k1")! });
      expect(getJobVersion(db, scope, "job_k1")).toBe(1);
      // The key is found whatever the job: an unknown job or one of another scope has no version.
      expect(getKeyRevocationAndJobVersion(db, record.id, scope, "job_missing")).toEqual({ revokedAt: null, version: undefined });
      expect(getKeyRevocationAndJobVersion(db, record.id, { ...scope, env: "live" }, "job_k1")).toEqual({ revokedAt: null, version: undefined });
      expect(revokeKeyById(db, scope.orgId, record.id, clock)).toBe(true);
      expect(getKeyRevocationAndJobVersion(db, record.id, scope, "job_k1")).toEqual({ revokedAt: 5_000, version: 1 });
      // No such key: nothing, not even the job's version.
      expect(getKeyRevocationAndJobVersion(db, "key_missing", scope, "job_k1")).toBeUndefined();
    } finally {
      db.$client.close();
    }
  });
});

test("the SQLite row-version trigger becomes PostgreSQL's BEFORE UPDATE function; other lines are left alone", () => {
  const pg = rowVersionTrigger("  CREATE TRIGGER t_v AFTER UPDATE ON t FOR EACH ROW WHEN NEW.v = OLD.v BEGIN UPDATE t SET v = OLD.v + 1 WHERE k = NEW.k; END;")!;
  expect(pg).toContain("CREATE FUNCTION t_v() RETURNS trigger");
  expect(pg).toContain("IF NEW.v = OLD.v THEN NEW.v := OLD.v + 1; END IF;");
  expect(pg).toContain("CREATE TRIGGER t_v BEFORE UPDATE ON t FOR EACH ROW EXECUTE FUNCTION t_v();");
  expect(rowVersionTrigger("  CREATE TRIGGER t_v AFTER UPDATE ON t FOR EACH ROW BEGIN DELETE FROM t; END;")).toBeUndefined();
  expect(rowVersionTrigger("  ALTER TABLE jobs ADD COLUMN version INTEGER NOT NULL DEFAULT 0;")).toBeUndefined();
});
