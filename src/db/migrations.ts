/**
 * Schema migrations, embedded as SQL so the compiled binary carries them. Append only: a migration
 * that has shipped is never edited. `PRAGMA user_version` records how many have run.
 * `src/db/schema.ts` mirrors the resulting tables for drizzle; test/unit/db/schema.test.ts checks
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
  /* 3: billing — wallet lots, holds, charges, ledger, top-ups,
     receipts, Stripe event log, dashboard sign-in. Money is integer cents throughout. */ `
  CREATE TABLE billing_profiles (
    org_id TEXT PRIMARY KEY REFERENCES orgs(id),
    billing_email TEXT
  );
  CREATE TABLE topups (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    provider TEXT NOT NULL CHECK (provider IN ('stripe','offline','grant')),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    status TEXT NOT NULL CHECK (status IN ('pending','paid','rejected')),
    provider_ref TEXT UNIQUE,
    note TEXT,
    created_at INTEGER NOT NULL,
    settled_at INTEGER
  );
  CREATE INDEX topups_org ON topups(org_id, created_at);
  CREATE TABLE credit_lots (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    topup_id TEXT NOT NULL UNIQUE REFERENCES topups(id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    remaining_cents INTEGER NOT NULL CHECK (remaining_cents >= 0 AND remaining_cents <= amount_cents),
    purchased_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX credit_lots_org ON credit_lots(org_id, expires_at);
  CREATE TABLE billing_holds (
    job_id TEXT PRIMARY KEY REFERENCES jobs(id),
    org_id TEXT NOT NULL REFERENCES orgs(id),
    kind TEXT NOT NULL CHECK (kind IN ('free','paid')),
    amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
    status TEXT NOT NULL CHECK (status IN ('active','captured','released')),
    created_at INTEGER NOT NULL,
    settled_at INTEGER
  );
  CREATE INDEX billing_holds_active ON billing_holds(org_id, status);
  CREATE TABLE job_charges (
    job_id TEXT PRIMARY KEY REFERENCES jobs(id),
    org_id TEXT NOT NULL REFERENCES orgs(id),
    free INTEGER NOT NULL CHECK (free IN (0,1)),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    charged_cents INTEGER NOT NULL CHECK (charged_cents >= 0),
    uncollected_cents INTEGER NOT NULL DEFAULT 0 CHECK (uncollected_cents >= 0),
    created_at INTEGER NOT NULL
  );
  CREATE INDEX job_charges_org ON job_charges(org_id, free);
  CREATE TABLE ledger_entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    kind TEXT NOT NULL CHECK (kind IN ('credit','debit')),
    amount_cents INTEGER NOT NULL CHECK (amount_cents <> 0),
    lot_id TEXT NOT NULL REFERENCES credit_lots(id),
    job_id TEXT REFERENCES jobs(id),
    topup_id TEXT REFERENCES topups(id),
    created_at INTEGER NOT NULL,
    CHECK ((kind = 'credit') = (amount_cents > 0)),
    UNIQUE (job_id, lot_id)
  );
  CREATE INDEX ledger_entries_org ON ledger_entries(org_id, seq);
  CREATE TABLE receipts (
    id TEXT PRIMARY KEY,
    number INTEGER NOT NULL UNIQUE,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    topup_id TEXT NOT NULL UNIQUE REFERENCES topups(id),
    amount_cents INTEGER NOT NULL,
    issued_at INTEGER NOT NULL,
    text TEXT NOT NULL,
    email_to TEXT,
    emailed_at INTEGER,
    email_error TEXT
  );
  CREATE TABLE stripe_events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    received_at INTEGER NOT NULL
  );
  CREATE TABLE dashboard_login_tokens (
    token_hash TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );
  CREATE TABLE dashboard_sessions (
    id_hash TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  /* 4: test and live are separate worlds. Webhooks and events get the environment jobs already had.
     A webhook registered before this joins the live world when its organisation has ever had a live
     key, else the sandbox world (docs/api.md, "Environments"); either way it receives a subset of
     what it received before, never more. An event belongs to the world of its job. */ `
  ALTER TABLE webhooks ADD COLUMN env TEXT NOT NULL DEFAULT 'live' CHECK (env IN ('live','test'));
  UPDATE webhooks SET env = 'test'
    WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = webhooks.org_id AND k.env = 'live');
  DROP INDEX webhooks_org;
  CREATE INDEX webhooks_org_env ON webhooks(org_id, env);
  ALTER TABLE events ADD COLUMN env TEXT NOT NULL DEFAULT 'live' CHECK (env IN ('live','test'));
  UPDATE events SET env = coalesce((SELECT j.env FROM jobs j WHERE j.id = events.job_id), 'live');
  DROP INDEX jobs_org_seq;
  CREATE INDEX jobs_org_env_seq ON jobs(org_id, env, seq);
  `,
  /* 5: uploads — media sent to POST /v1/uploads (tus or a raw body), scoped to organisation and environment */ `
  CREATE TABLE uploads (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    env TEXT NOT NULL CHECK (env IN ('live','test')),
    status TEXT NOT NULL CHECK (status IN ('receiving','complete')),
    size INTEGER,
    filename TEXT,
    created_at INTEGER NOT NULL,
    completed_at INTEGER,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX uploads_expiry ON uploads(expires_at);
  `,
  /* 6: podcast feeds polled into jobs. A feed belongs to one world like a webhook. feed_items is the
     durable dedupe record: one row per episode per feed (its GUID, else its enclosure URL), written in
     the same transaction as the episode's job, so no restart or second poller makes a job twice. */ `
  CREATE TABLE feeds (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    env TEXT NOT NULL CHECK (env IN ('live','test')),
    url TEXT NOT NULL,
    since INTEGER,
    options TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER,
    next_poll_at INTEGER NOT NULL,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    etag TEXT,
    last_modified TEXT,
    last_polled_at INTEGER,
    last_status TEXT NOT NULL CHECK (last_status IN ('pending','ok','not_modified','error')),
    last_error TEXT,
    items_seen INTEGER NOT NULL DEFAULT 0,
    jobs_created INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX feeds_org_env ON feeds(org_id, env, created_at);
  CREATE INDEX feeds_due ON feeds(next_poll_at) WHERE deleted_at IS NULL;
  CREATE UNIQUE INDEX feeds_url_per_world ON feeds(org_id, env, url) WHERE deleted_at IS NULL;
  CREATE TABLE feed_items (
    feed_id TEXT NOT NULL REFERENCES feeds(id),
    item_key TEXT NOT NULL,
    enclosure_url TEXT NOT NULL,
    published_at INTEGER,
    job_id TEXT REFERENCES jobs(id),
    skipped_reason TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (feed_id, item_key),
    CHECK ((job_id IS NULL) <> (skipped_reason IS NULL))
  );
  `,
  /* 7: clip re-renders. One row per request, processed by the render worker under a lease (renders
     take tens of seconds, so never inside the HTTP request). An Idempotency-Key is unique per
     organisation and world; params is the canonical JSON of the snapped request. */ `
  CREATE TABLE clip_renders (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES jobs(id),
    org_id TEXT NOT NULL REFERENCES orgs(id),
    env TEXT NOT NULL CHECK (env IN ('live','test')),
    clip_id TEXT NOT NULL,
    params TEXT NOT NULL,
    idempotency_key TEXT,
    request_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued','rendering','complete','failed')),
    lease_owner TEXT,
    lease_expires_at INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    created_at INTEGER NOT NULL,
    completed_at INTEGER
  );
  CREATE INDEX clip_renders_due ON clip_renders(status, created_at);
  CREATE INDEX clip_renders_clip ON clip_renders(job_id, clip_id, created_at);
  CREATE UNIQUE INDEX clip_renders_idempotency ON clip_renders(org_id, env, idempotency_key) WHERE idempotency_key IS NOT NULL;
  `,
  /* 8: watch folders (`clipyard watch DIR`). watch_files is the durable dedupe record: one row per
     version of a file (folder, name, size, mtime), written in the same transaction as its job, so a
     restarted or second watcher never makes a job twice; output_written_at says the job's results
     reached DIR/clipyard/<name>/. */ `
  CREATE TABLE watch_files (
    folder TEXT NOT NULL,
    name TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    job_id TEXT REFERENCES jobs(id),
    skipped_reason TEXT,
    output_written_at INTEGER,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (folder, name, size, mtime_ms),
    CHECK ((job_id IS NULL) <> (skipped_reason IS NULL))
  );
  CREATE INDEX watch_files_pending_output ON watch_files(folder) WHERE job_id IS NOT NULL AND output_written_at IS NULL;
  `,
  /* 9: rate-limit windows shared by every API node of a cluster (PostgreSQL); one row per accepted
     request inside the last window. A single SQLite appliance keeps its windows in memory. */ `
  CREATE TABLE rate_hits (
    bucket TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX rate_hits_bucket_at ON rate_hits(bucket, at);
  `,
  /* 10: fair scheduling across organisations. Claims go to the organisation served least recently
     (the latest started_at of its live jobs, of its re-renders), and an organisation's running live
     jobs are bounded: both read per organisation at every claim, hence the indexes. */ `
  ALTER TABLE clip_renders ADD COLUMN started_at INTEGER;
  CREATE INDEX clip_renders_org_started ON clip_renders(org_id, env, started_at);
  CREATE INDEX jobs_org_env_started ON jobs(org_id, env, started_at);
  CREATE INDEX jobs_org_env_status ON jobs(org_id, env, status);
  `,
  /* 11: a show's vocabulary per organisation and world (GET/PUT /v1/vocabulary): names and terms every
     live job's recogniser is given, merged with the job's own. entries is a JSON array of strings. */ `
  CREATE TABLE org_vocabulary (
    org_id TEXT NOT NULL REFERENCES orgs(id),
    env TEXT NOT NULL CHECK (env IN ('live','test')),
    entries TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, env)
  );
  `,
  /* 12: a show's brand kit per organisation and world (GET/PUT /v1/brand). settings is the JSON the
     API stores: what was sent, with the stored logo's hash and size; the logo file itself is in the
     appliance's storage under brand/<sha256>.png. */ `
  CREATE TABLE org_brand (
    org_id TEXT NOT NULL REFERENCES orgs(id),
    env TEXT NOT NULL CHECK (env IN ('live','test')),
    settings TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, env)
  );
  `,
  /* 13: a row version on jobs, raised by the database itself on every update of the row, whichever
     process or cluster node writes it: GET /v1/jobs/{id} reads the version, not the ~10 KB row, to
     tell whether the body it built before is still the job's. (PostgreSQL gets the same trigger as a
     BEFORE UPDATE function: src/db/postgres/dialect.ts.) */ `
  ALTER TABLE jobs ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
  CREATE TRIGGER jobs_version AFTER UPDATE ON jobs FOR EACH ROW WHEN NEW.version = OLD.version BEGIN UPDATE jobs SET version = OLD.version + 1 WHERE seq = NEW.seq; END;
  `,
];
