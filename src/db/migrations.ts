/**
 * Schema migrations, embedded as SQL so the compiled binary carries them. Append only: a migration
 * that has shipped is never edited. `PRAGMA user_version` records how many have run.
 * `src/db/schema.ts` mirrors the resulting tables for drizzle; test/unit/db-schema.test.ts checks
 * that the two agree column by column.
 */
export const migrations: string[] = [
  /* 1: organisations, keys, jobs, idempotency */ `
  CREATE TABLE orgs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    env TEXT NOT NULL CHECK (env IN ('live','test')),
    secret_hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_org ON api_keys(org_id);
  CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    env TEXT NOT NULL CHECK (env IN ('live','test')),
    status TEXT NOT NULL CHECK (status IN ('queued','processing','complete','failed')),
    source_type TEXT NOT NULL,
    source_url TEXT NOT NULL,
    options TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    completed_at INTEGER,
    output TEXT,
    error_code TEXT,
    error_message TEXT,
    run_after INTEGER NOT NULL,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    progress TEXT,
    share_token_hash TEXT UNIQUE,
    request_id TEXT NOT NULL,
    CHECK ((status = 'complete') = (output IS NOT NULL)),
    CHECK ((status = 'failed') = (error_code IS NOT NULL))
  );
  CREATE INDEX jobs_org_seq ON jobs(org_id, seq);
  CREATE INDEX jobs_due ON jobs(status, run_after);
  CREATE TABLE idempotency_keys (
    org_id TEXT NOT NULL,
    env TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    job_id TEXT NOT NULL REFERENCES jobs(id),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, env, key)
  );
  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
];
