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
  /* 2: webhooks — endpoints, the event outbox, deliveries and their attempts */ `
  CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_enc TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active','disabled')),
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    disabled_at INTEGER,
    deleted_at INTEGER
  );
  CREATE INDEX webhooks_org ON webhooks(org_id);
  CREATE TABLE events (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    type TEXT NOT NULL,
    job_id TEXT,
    request_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    payload TEXT NOT NULL
  );
  CREATE TABLE deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    webhook_id TEXT NOT NULL REFERENCES webhooks(id),
    event_id TEXT NOT NULL REFERENCES events(id),
    kind TEXT NOT NULL CHECK (kind IN ('event','test','replay')),
    status TEXT NOT NULL CHECK (status IN ('pending','succeeded','failed')),
    attempt_count INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    created_at INTEGER NOT NULL,
    completed_at INTEGER,
    last_error TEXT
  );
  CREATE INDEX deliveries_due ON deliveries(status, next_attempt_at);
  CREATE INDEX deliveries_webhook ON deliveries(webhook_id, seq);
  CREATE TABLE delivery_attempts (
    delivery_id TEXT NOT NULL REFERENCES deliveries(id),
    number INTEGER NOT NULL,
    at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    http_status INTEGER,
    error TEXT,
    PRIMARY KEY (delivery_id, number)
  );
  `,
];
