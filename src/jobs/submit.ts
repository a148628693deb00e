import { and, eq } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import { idempotencyKeys, type JobRow } from "../db/schema.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import { JobCreateSchema, type JobCreate } from "./schema.ts";
import { canonicalJson, newId, sha256Hex } from "../ids.ts";
import { sandboxDurationSeconds, SANDBOX_QUEUED_SHARE } from "../sandbox/outcome.ts";
import type { Scope } from "../accounts/scope.ts";
import type { DiskReserve } from "../storage/disk-space.ts";
import { findOwnUpload, keepUploadForJob } from "../uploads/store.ts";
import { parseOrThrow } from "../validate.ts";
import { checkSourceUrl, type SourceType } from "./source-url.ts";
import { getJobById, insertJob } from "./store.ts";

/*
 * Every job enters here. The API (POST /v1/jobs) and the dashboard's upload page send a body someone
 * typed: submitJobBody validates it, checks its source and the disk reserve, and wakes the scheduler.
 * Feeds and the watch folder build their body themselves from an episode or a copied file and call
 * submitJob with effects of their own (recording the episode or file in the same transaction).
 */

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Work that must commit with a new live job (the billing hold); throwing an ApiError refuses the
 * submission and nothing is written.
 */
export type SubmitEffect = (job: JobRow) => void;

export interface SubmitResult {
  job: JobRow;
  replayed: boolean;
}

/** The jobs table keeps one source column: a URL, or for an upload its id. */
export function storedSource(source: JobCreate["source"]): { type: string; url: string } {
  return "upload_id" in source ? { type: source.type, url: source.upload_id } : source;
}

/**
 * Creates a queued job, honouring the Idempotency-Key. One IMMEDIATE transaction: the key lookup,
 * the job insert and the key record commit together, and the (org, env, key) primary key makes a
 * second job for the same key impossible even if two requests raced.
 */
export function submitJob(
  db: Db,
  clock: Clock,
  who: Scope,
  body: JobCreate,
  opts: { idempotencyKey?: string; requestId: string; timeScale: number; effects?: SubmitEffect[] },
): SubmitResult {
  const requestHash = sha256Hex(canonicalJson(body));
  return tx(db, () => {
    const now = clock.now();
    if (opts.idempotencyKey !== undefined) {
      const where = and(
        eq(idempotencyKeys.orgId, who.orgId),
        eq(idempotencyKeys.env, who.env),
        eq(idempotencyKeys.key, opts.idempotencyKey),
      );
      const prior = db.select().from(idempotencyKeys).where(where).get();
      if (prior && prior.createdAt > now - IDEMPOTENCY_WINDOW_MS) {
        if (prior.requestHash !== requestHash) {
          throw new ApiError(
            "idempotency_key_reused_with_different_body",
            "This Idempotency-Key was used in the last 24 hours with a different request body.",
          );
        }
        return { job: getJobById(db, prior.jobId)!, replayed: true };
      }
      if (prior) db.delete(idempotencyKeys).where(where).run();
    }
    const options = body.options ?? {};
    const source = storedSource(body.source);
    const startDelayMs =
      who.env === "test" ? Math.round(sandboxDurationSeconds(source, options) * SANDBOX_QUEUED_SHARE * 1000 * opts.timeScale) : 0;
    const job = insertJob(db, {
      id: newId("job"),
      orgId: who.orgId,
      env: who.env,
      status: "queued",
      sourceType: source.type,
      sourceUrl: source.url,
      options: JSON.stringify(options),
      createdAt: now,
      runAfter: now + startDelayMs,
      requestId: opts.requestId,
    });
    for (const effect of opts.effects ?? []) effect(job);
    if (opts.idempotencyKey !== undefined) {
      db.insert(idempotencyKeys)
        .values({ orgId: who.orgId, env: who.env, key: opts.idempotencyKey, requestHash, jobId: job.id, createdAt: now })
        .run();
    }
    return { job, replayed: false };
  });
}

/** What submitting a caller's body needs of the appliance (the API's AppContext has it all). */
export interface SubmitDeps {
  db: Db;
  clock: Clock;
  config: { allowHttp: boolean; timeScale: number };
  /** Effects committed with every new live job (billing holds). */
  submitEffects: SubmitEffect[];
  disk: Pick<DiskReserve, "require">;
  wakeScheduler(): void;
}

function codeFor(param: string): ErrorCode {
  if (param === "source.type") return "invalid_source_type";
  if (param === "source.url") return "invalid_source_url";
  if (param === "source.upload_id") return "invalid_upload";
  return "invalid_body";
}

/** An unknown, foreign-organisation, other-environment and expired upload all read the same. */
function checkUploadSource(deps: SubmitDeps, owner: Scope, uploadId: string): void {
  const upload = findOwnUpload(deps.db, deps.clock, owner, uploadId);
  if (!upload) throw new ApiError("invalid_upload", `No upload ${uploadId} for this key: it does not exist, belongs to another organisation or environment, or has expired.`, "source.upload_id");
  if (upload.status !== "complete") throw new ApiError("invalid_upload", `Upload ${uploadId} has not been fully received yet; finish it before submitting the job.`, "source.upload_id");
}

/** Validates a submission body (the API's or the dashboard's) and creates the job. */
export function submitJobBody(deps: SubmitDeps, who: Scope, raw: unknown, opts: { idempotencyKey?: string; requestId: string }): SubmitResult {
  const body = parseOrThrow(JobCreateSchema, raw, codeFor);
  const effects = who.env === "live" ? [...deps.submitEffects] : [];
  if ("upload_id" in body.source) {
    const uploadId = body.source.upload_id;
    checkUploadSource(deps, who, uploadId);
    effects.push(() => keepUploadForJob(deps.db, deps.clock, uploadId));
  } else {
    const urlProblem = checkSourceUrl(body.source.type as SourceType, body.source.url, { allowHttp: deps.config.allowHttp });
    if (urlProblem) throw new ApiError("invalid_source_url", urlProblem, "source.url");
  }
  deps.disk.require();
  const submitted = submitJob(deps.db, deps.clock, who, body, { ...opts, timeScale: deps.config.timeScale, effects });
  if (!submitted.replayed) deps.wakeScheduler();
  return submitted;
}
