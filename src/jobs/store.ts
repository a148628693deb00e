import { and, desc, eq, inArray, lt, lte, sql } from "drizzle-orm";
import { skipLocked, type Db } from "../db/client.ts";
import { jobs, type JobRow } from "../db/schema.ts";
import { camelColumns, preparedOnce } from "../db/prepared.ts";
import type { Scope } from "../accounts/scope.ts";

/**
 * One small function per SQL statement on the jobs table. Every state change is guarded by the
 * state it expects (and by the lease owner where one applies), so a stale worker, the watchdog and
 * a restarted process can never move a job twice or out of a terminal state. The lease verbs (claim,
 * extend, release; markComplete/markFailed finish) mean what README's architecture says.
 */

export type JobStatus = JobRow["status"];
export type NewJob = Omit<JobRow, "seq" | "startedAt" | "completedAt" | "output" | "errorCode" | "errorMessage" | "leaseOwner" | "leaseExpiresAt" | "attempts" | "progress" | "shareTokenHash" | "version">;

export function insertJob(db: Db, job: NewJob): JobRow {
  return db.insert(jobs).values({ ...job, attempts: 0 }).returning().get();
}

// A job of the other world answers like an unknown id, so a sandbox key cannot read live jobs.
const jobInScope = preparedOnce((db) => db.$client.query(`SELECT ${camelColumns(jobs)} FROM jobs WHERE id = ? AND org_id = ? AND env = ?`));

export function getJob(db: Db, scope: Scope, id: string): JobRow | undefined {
  return (jobInScope(db).get(id, scope.orgId, scope.env) as JobRow | null) ?? undefined;
}

const jobVersionInScope = preparedOnce((db) => db.$client.query(`SELECT version FROM jobs WHERE id = ? AND org_id = ? AND env = ?`));

/** The row version of a job in scope (raised by the database on every update of the row), without reading the row. */
export function getJobVersion(db: Db, scope: Scope, id: string): number | undefined {
  const row = jobVersionInScope(db).get(id, scope.orgId, scope.env) as { version: number | string } | null;
  // PostgreSQL's BIGINT arrives as text.
  return row ? Number(row.version) : undefined;
}

/**
 * A key's revoked_at (see RevocationReader in src/accounts/keys.ts) and the version of a job in scope,
 * in one statement: GET /v1/jobs/{id} needs both on every request, and each statement is a read
 * transaction of its own (on SQLite a WAL read lock, on PostgreSQL a round trip). No row when the
 * key is gone; a null version when the job is not in scope.
 */
const keyRevocationAndJobVersion = preparedOnce((db) =>
  db.$client.query(`SELECT revoked_at, (SELECT version FROM jobs WHERE id = ? AND org_id = ? AND env = ?) FROM api_keys WHERE id = ?`),
);

export function getKeyRevocationAndJobVersion(db: Db, keyId: string, scope: Scope, id: string): { revokedAt: number | null; version: number | undefined } | undefined {
  const row = keyRevocationAndJobVersion(db).values(id, scope.orgId, scope.env, keyId)[0] as [number | string | null, number | string | null] | undefined;
  if (!row) return undefined;
  // PostgreSQL's BIGINT arrives as text.
  return { revokedAt: row[0] === null ? null : Number(row[0]), version: row[1] === null ? undefined : Number(row[1]) };
}

export function getJobById(db: Db, id: string): JobRow | undefined {
  return db.select().from(jobs).where(eq(jobs.id, id)).get();
}

export function getJobByShareHash(db: Db, hash: string): JobRow | undefined {
  return db.select().from(jobs).where(eq(jobs.shareTokenHash, hash)).get();
}

const inScope = (scope: Scope) => and(eq(jobs.orgId, scope.orgId), eq(jobs.env, scope.env));

/** Newest first; `afterSeq` is the cursor job's seq (exclusive). Fetches one extra row to tell has_more. */
export function listJobs(db: Db, scope: Scope, limit: number, afterSeq?: number): { rows: JobRow[]; hasMore: boolean } {
  const where = afterSeq === undefined ? inScope(scope) : and(inScope(scope), lt(jobs.seq, afterSeq));
  const rows = db.select().from(jobs).where(where).orderBy(desc(jobs.seq)).limit(limit + 1).all();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

export function latestJob(db: Db, scope: Scope): JobRow | undefined {
  return db.select().from(jobs).where(inScope(scope)).orderBy(desc(jobs.seq)).limit(1).get();
}

/**
 * queued -> processing for the next due job, taking a lease, in one statement. Returns the claimed row
 * or undefined. On PostgreSQL the inner SELECT skips a row another node is claiming at this moment,
 * so concurrent workers each get a different job instead of racing for the first.
 */
export function claimNextJob(db: Db, env: "live" | "test", owner: string, now: number, leaseMs: number, perOrgLimit?: number): JobRow | undefined {
  const row = (env === "live" && perOrgLimit !== undefined ? fairClaimStatement(db).get(now, owner, now + leaseMs, perOrgLimit) : claimStatement(db).get(now, owner, now + leaseMs, env)) as JobRow | null;
  return row ?? undefined;
}

/**
 * The live claim, still one guarded statement: among queued live jobs of organisations holding fewer
 * than ?4 live jobs in processing under this worker (?2: the bound is per node, so a cluster's
 * capacity for one organisation grows with its nodes), the job of the organisation whose latest live
 * job started longest ago (never: first) goes next, oldest first within it. So claims go round-robin
 * across organisations, cluster-wide, and one organisation's backlog or slow sources cannot hold
 * every worker of a node.
 */
const fairClaimStatement = preparedOnce((db) =>
  db.$client.query(
    `UPDATE jobs SET status = 'processing', started_at = coalesce(started_at, ?1), lease_owner = ?2, lease_expires_at = ?3, attempts = attempts + 1
     WHERE seq = (SELECT q.seq FROM jobs q
                  WHERE q.status = 'queued' AND q.env = 'live' AND q.run_after <= ?1
                    AND (SELECT count(*) FROM jobs p WHERE p.org_id = q.org_id AND p.env = 'live' AND p.status = 'processing' AND p.lease_owner = ?2) < ?4
                  ORDER BY coalesce((SELECT s.started_at FROM jobs s WHERE s.org_id = q.org_id AND s.env = 'live' AND s.started_at IS NOT NULL ORDER BY s.started_at DESC LIMIT 1), 0), q.run_after, q.seq
                  LIMIT 1${skipLocked(db)})
       AND status = 'queued'
     RETURNING ${camelColumns(jobs)}`,
  ),
);

const claimStatement = preparedOnce((db) =>
  db.$client.query(
    `UPDATE jobs SET status = 'processing', started_at = coalesce(started_at, ?1), lease_owner = ?2, lease_expires_at = ?3, attempts = attempts + 1
     WHERE seq = (SELECT seq FROM jobs WHERE status = 'queued' AND env = ?4 AND run_after <= ?1 ORDER BY run_after, seq LIMIT 1${skipLocked(db)})
       AND status = 'queued'
     RETURNING ${camelColumns(jobs)}`,
  ),
);

/** Sandbox jobs wait in processing until their deterministic finish time (run_after). */
export function setRunAfter(db: Db, id: string, owner: string, runAfter: number): boolean {
  const res = db
    .update(jobs)
    .set({ runAfter, leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(jobs.id, id), eq(jobs.status, "processing"), eq(jobs.leaseOwner, owner)))
    .returning({ id: jobs.id })
    .all();
  return res.length > 0;
}

/**
 * Leases up to `limit` processing jobs with no lease whose run_after has come (sandbox finishes), in
 * one statement: with several workers each due job is finished by one of them, not tried by all (on
 * PostgreSQL, rows another node is claiming are skipped). A lease that lapses requeues the job.
 */
export function claimDueFinishes(db: Db, owner: string, now: number, leaseMs: number, limit = 50): JobRow[] {
  return claimFinishes(db).all(owner, now + leaseMs, now, limit) as JobRow[];
}

const claimFinishes = preparedOnce((db) =>
  db.$client.query(
    `UPDATE jobs SET lease_owner = ?1, lease_expires_at = ?2
     WHERE seq IN (SELECT seq FROM jobs WHERE status = 'processing' AND env = 'test' AND lease_owner IS NULL AND run_after <= ?3
                   ORDER BY run_after LIMIT ?4${skipLocked(db)})
       AND status = 'processing' AND lease_owner IS NULL
     RETURNING ${camelColumns(jobs)}`,
  ),
);

export function extendJobLease(db: Db, id: string, owner: string, until: number, progress?: string): boolean {
  const res = db
    .update(jobs)
    .set(progress === undefined ? { leaseExpiresAt: until } : { leaseExpiresAt: until, progress })
    .where(and(eq(jobs.id, id), eq(jobs.status, "processing"), eq(jobs.leaseOwner, owner)))
    .returning({ id: jobs.id })
    .all();
  return res.length > 0;
}

/** Leased processing jobs whose lease lapsed (their worker died): back to queued to resume. */
export function requeueExpiredLeases(db: Db, now: number): string[] {
  return db
    .update(jobs)
    .set({ status: "queued", leaseOwner: null, leaseExpiresAt: null, runAfter: now, progress: null })
    .where(and(eq(jobs.status, "processing"), sql`${jobs.leaseOwner} IS NOT NULL`, lt(jobs.leaseExpiresAt, now)))
    .returning({ id: jobs.id })
    .all()
    .map((r) => r.id);
}

/** Releases this process's leases (graceful shutdown) so the next start resumes at once. */
export function releaseJobLeases(db: Db, owner: string, now: number): number {
  return db
    .update(jobs)
    .set({ status: "queued", leaseOwner: null, leaseExpiresAt: null, runAfter: now, progress: null })
    .where(and(eq(jobs.status, "processing"), eq(jobs.leaseOwner, owner)))
    .returning({ id: jobs.id })
    .all().length;
}

/** Non-terminal jobs created before `createdBefore` (the watchdog's budget has run out). */
export function overdueJobs(db: Db, createdBefore: number): JobRow[] {
  return db
    .select()
    .from(jobs)
    .where(and(inArray(jobs.status, ["queued", "processing"]), lt(jobs.createdAt, createdBefore)))
    .all();
}

/**
 * Earliest time at which the scheduler has something to do, or undefined. `liveBlocked`: the last
 * tick could claim no more live jobs (every worker busy, or the waiting organisations at their
 * bound), so queued live jobs are not due until a job ends and wakes the scheduler.
 */
export function nextWakeAt(db: Db, liveBlocked = false): number | undefined {
  const queued = liveBlocked ? sql`(${jobs.status} = 'queued' AND ${jobs.env} = 'test')` : sql`${jobs.status} = 'queued'`;
  const row = db
    .select({ t: sql<number | null>`min(${jobs.runAfter})` })
    .from(jobs)
    .where(sql`${queued} OR (${jobs.status} = 'processing' AND ${jobs.leaseOwner} IS NULL)`)
    .get();
  return row?.t ?? undefined;
}

/**
 * What a terminal transition expects: the statuses it may leave and, for a worker, that it still holds
 * the lease (the watchdog, and the scheduler failing a step that threw, pass no owner).
 */
export type Guard = { from: JobStatus[]; owner?: string | null };

function guardWhere(id: string, guard: Guard) {
  const conds = [eq(jobs.id, id), inArray(jobs.status, guard.from)];
  if (guard.owner) conds.push(eq(jobs.leaseOwner, guard.owner));
  return and(...conds);
}

export function markComplete(db: Db, id: string, output: string, shareTokenHash: string, now: number, guard: Guard): JobRow | undefined {
  return db
    .update(jobs)
    .set({ status: "complete", output, completedAt: now, shareTokenHash, leaseOwner: null, leaseExpiresAt: null, progress: null })
    .where(guardWhere(id, guard))
    .returning()
    .get();
}

export function markFailed(db: Db, id: string, code: string, message: string, now: number, guard: Guard): JobRow | undefined {
  return db
    .update(jobs)
    .set({ status: "failed", errorCode: code, errorMessage: message, completedAt: now, leaseOwner: null, leaseExpiresAt: null, progress: null })
    .where(guardWhere(id, guard))
    .returning()
    .get();
}

/** Rewrites a complete job's stored output (a review or a re-render changed one clip). */
export function replaceOutput(db: Db, id: string, output: string): JobRow | undefined {
  return db.update(jobs).set({ output }).where(and(eq(jobs.id, id), eq(jobs.status, "complete"))).returning().get();
}
