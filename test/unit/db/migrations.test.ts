import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDbFile } from "../../../src/db/client.ts";
import { migrations } from "../../../src/db/migrations.ts";

/** Migration 4 on a database written before test and live were separate worlds. */
test("existing webhooks join live when their organisation has a live key, else sandbox; events take their job's world", () => {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-mig4-"));
  const path = join(dir, "db.sqlite");
  const old = new Database(path, { create: true });
  for (const sql of migrations.slice(0, 3)) old.exec(sql);
  old.exec("PRAGMA user_version = 3");
  old.exec(`
    INSERT INTO orgs VALUES ('org_prod', 'prod', 0), ('org_dev', 'dev', 0);
    INSERT INTO api_keys VALUES ('key_1', 'org_prod', 'test', 'h1', 'svc_test_…', 0, NULL), ('key_2', 'org_prod', 'live', 'h2', 'svc_live_…', 0, 5),
                                ('key_3', 'org_dev', 'test', 'h3', 'svc_test_…', 0, NULL);
    INSERT INTO webhooks (id, org_id, url, events, secret_enc, status, created_at) VALUES
      ('we_prod', 'org_prod', 'https://p.example/h', '["job.failed"]', 'x', 'active', 0),
      ('we_dev', 'org_dev', 'https://d.example/h', '["job.failed"]', 'x', 'active', 0);
    INSERT INTO jobs (id, org_id, env, status, source_type, source_url, options, created_at, run_after, request_id, error_code, error_message)
      VALUES ('job_t', 'org_prod', 'test', 'failed', 'video_url', 'u', '{}', 0, 0, 'req_1', 'c', 'm'),
             ('job_l', 'org_prod', 'live', 'failed', 'video_url', 'u', '{}', 0, 0, 'req_2', 'c', 'm');
    INSERT INTO events VALUES ('evt_t', 'org_prod', 'job.failed', 'job_t', 'req_1', 0, '{}'), ('evt_l', 'org_prod', 'job.failed', 'job_l', 'req_2', 0, '{}');
  `);
  old.close();

  const db = openDbFile(path);
  const env = (table: string) => Object.fromEntries((db.$client.query(`SELECT id, env FROM ${table} ORDER BY id`).all() as { id: string; env: string }[]).map((r) => [r.id, r.env]));
  // A revoked live key still marks an organisation that went live.
  expect(env("webhooks")).toEqual({ we_dev: "test", we_prod: "live" });
  expect(env("events")).toEqual({ evt_l: "live", evt_t: "test" });
  expect(() => db.$client.exec("UPDATE webhooks SET env = 'prod'")).toThrow();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});
