import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { Billing } from "../../src/billing/service.ts";
import { loadBillingConfig, type BillingConfig } from "../../src/billing/config.ts";
import type { Mailer } from "../../src/billing/mailer.ts";
import type { StripeGateway } from "../../src/billing/stripe.ts";
import { ManualClock } from "../../src/clock.ts";
import { openDb, type Db, type DbLocation } from "../../src/db/client.ts";
import { testDbLocation } from "../helpers/db.ts";
import type { JobRow } from "../../src/db/schema.ts";
import type { StoredOutput } from "../../src/pipeline/output.ts";
import { submitJob, type SubmitEffect } from "../../src/jobs/submit.ts";
import { JobTransitions } from "../../src/jobs/transitions.ts";

/** A completed job's output with no media: enough for the transitions layer, which only stores it. */
export const EMPTY_OUTPUT: StoredOutput = { clips: [], trailer: null, show_notes: "# Notes", transcript: [] };

export const SOURCES = {
  video_url: "https://media.example.com/episode.mp4",
  youtube_url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
} as const;

export interface World {
  dir: string;
  /** Where the database is (SQLite in dir, or the test PostgreSQL): workers open their own connections to it. */
  location: DbLocation;
  db: Db;
  clock: ManualClock;
  transitions: JobTransitions;
  billing: Billing;
  submitEffects: SubmitEffect[];
  orgId: string;
  submit(type?: keyof typeof SOURCES, env?: "live" | "test", orgId?: string): JobRow;
  complete(job: JobRow): JobRow | undefined;
  fail(job: JobRow): JobRow | undefined;
  close(): void;
}

/** A real database (the test back end) with the billing effects installed exactly as src/appliance.ts installs them. */
export function world(opts: { config?: Partial<BillingConfig>; mailer?: Mailer; stripe?: StripeGateway } = {}): World {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-billing-"));
  const location = testDbLocation(dir);
  const db = openDb(location);
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 12));
  const transitions = new JobTransitions(db, clock, "test-share-secret");
  const config = { ...loadBillingConfig({}), ...opts.config };
  const billing = new Billing(db, clock, config, { mailer: opts.mailer, stripe: opts.stripe });
  const submitEffects: SubmitEffect[] = [];
  billing.install(transitions, submitEffects);
  const orgId = ensureOrg(db, "acme", clock).id;
  let n = 0;
  return {
    dir,
    location,
    db,
    clock,
    transitions,
    billing,
    submitEffects,
    orgId,
    submit(type = "video_url", env = "live", org = orgId) {
      const body = { source: { type, url: SOURCES[type] } } as Parameters<typeof submitJob>[3];
      return submitJob(db, clock, { orgId: org, env }, body, {
        requestId: `req_${++n}`,
        timeScale: 1,
        effects: env === "live" ? submitEffects : [],
      }).job;
    },
    complete: (job) => transitions.complete(job.id, EMPTY_OUTPUT, { from: ["queued", "processing"] }),
    fail: (job) => transitions.fail(job.id, "analysis_failed", "test failure", { from: ["queued", "processing"] }),
    close() {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const dollars = (usd: number): number => Math.round(usd * 100);
