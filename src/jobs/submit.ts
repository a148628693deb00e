import { and, eq } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import { idempotencyKeys, type JobRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { JobCreate } from "./schema.ts";
import { canonicalJson, newId, sha256Hex } from "../ids.ts";
import { sandboxDurationSeconds, SANDBOX_QUEUED_SHARE } from "../sandbox/outcome.ts";
import type { Scope } from "../accounts/scope.ts";
import { getJobById, insertJob } from "./store.ts";

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
