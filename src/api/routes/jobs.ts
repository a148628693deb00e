import { z } from "zod";
import type { AppContext } from "../context.ts";
import { submitJob } from "../../jobs/submit.ts";
import { findOwnUpload, keepUploadForJob, type UploadOwner } from "../../uploads/store.ts";
import { presentJob, presentJobJson } from "../../jobs/present.ts";
import { checkSourceUrl, type SourceType } from "../../jobs/source-url.ts";
import { getJob, listJobs } from "../../jobs/store.ts";
import { readTx } from "../../db/client.ts";
import { readJsonObject } from "../body.ts";
import { ApiError, type ErrorCode } from "../../errors.ts";
import { guard } from "../guard.ts";
import type { Principal } from "../auth.ts";
import { requestIdOf } from "../request-id.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
import { JobCreateSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";

/** Jobs (spec §4): submit, list, fetch one. */
export function register(app: App, ctx: AppContext): void {
  app
    .post("/v1/jobs", ({ request, set }) => {
      set.status = 202;
      return createJob(ctx, request, reply(set).headers, requestIdOf(request));
    }, { parse: "none" })
    .get("/v1/jobs", ({ request, set }) => listJobsRoute(ctx, request, reply(set).headers))
    .get("/v1/jobs/:id", ({ request, set, params }) => getJobRoute(ctx, request, reply(set).headers, params.id));
}

function codeFor(param: string): ErrorCode {
  if (param === "source.type") return "invalid_source_type";
  if (param === "source.url") return "invalid_source_url";
  if (param === "source.upload_id") return "invalid_upload";
  if (param.startsWith("options.")) return "invalid_option";
  return "invalid_body";
}

export function idempotencyKey(request: Request): string | undefined {
  const key = request.headers.get("idempotency-key");
  if (key === null) return undefined;
  if (key.length < 8 || key.length > 255) {
    throw new ApiError("invalid_idempotency_key", "Idempotency-Key must be 8-255 characters.", "Idempotency-Key");
  }
  return key;
}

/** An unknown, foreign-organisation, other-environment and expired upload all read the same. */
function checkUploadSource(ctx: AppContext, owner: UploadOwner, uploadId: string): void {
  const upload = findOwnUpload(ctx.db, ctx.clock, owner, uploadId);
  if (!upload) throw new ApiError("invalid_upload", `No upload ${uploadId} for this key: it does not exist, belongs to another organisation or environment, or has expired.`, "source.upload_id");
  if (upload.status !== "complete") throw new ApiError("invalid_upload", `Upload ${uploadId} has not been fully received yet; finish it before submitting the job.`, "source.upload_id");
}

/** Validates a submission body (the API's or the dashboard's) and creates the job. */
export function submitJobBody(ctx: AppContext, principal: UploadOwner, raw: unknown, opts: { idempotencyKey?: string; requestId: string }) {
  const body = parseOrThrow(JobCreateSchema, raw, codeFor);
  const effects = principal.env === "live" ? [...ctx.submitEffects] : [];
  if ("upload_id" in body.source) {
    const uploadId = body.source.upload_id;
    checkUploadSource(ctx, principal, uploadId);
    effects.push(() => keepUploadForJob(ctx.db, ctx.clock, uploadId));
  } else {
    const urlProblem = checkSourceUrl(body.source.type as SourceType, body.source.url, { allowHttp: ctx.config.allowHttp });
    if (urlProblem) throw new ApiError("invalid_source_url", urlProblem, "source.url");
  }
  ctx.disk.require();
  const submitted = submitJob(ctx.db, ctx.clock, principal, body, { ...opts, timeScale: ctx.config.timeScale, effects });
  if (!submitted.replayed) ctx.wakeScheduler();
  return submitted;
}

/** POST /v1/jobs — spec §4; `source.type` "upload" is an extension. */
async function createJob(ctx: AppContext, request: Request, headers: HeaderBag, requestId: string) {
  const principal = guard(ctx, request, headers);
  const key = idempotencyKey(request);
  const { job, replayed } = submitJobBody(ctx, principal, await readJsonObject(request), { idempotencyKey: key, requestId });
  if (replayed) headers["idempotent-replayed"] = "true";
  return presentJob(job, ctx.present);
}

/** GET /v1/jobs/{id} — spec §4; ids of other organisations or of the other world are not_found, never forbidden. */
function getJobRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string) {
  const principal = guard(ctx, request, headers);
  // One statement: no transaction needed (on PostgreSQL that saves a BEGIN and a COMMIT per request).
  const row = getJob(ctx.db, principal, id);
  if (!row) throw new ApiError("not_found", `No job ${id}.`, "id");
  // Already serialised (and remembered while the row is unchanged); the same type as Response.json's.
  headers["content-type"] = "application/json;charset=utf-8";
  return presentJobJson(row, ctx.present);
}

const ListQuerySchema = z
  .object({
    limit: z
      .string()
      .regex(/^\d+$/, "must be an integer from 1 to 100")
      .transform(Number)
      .pipe(z.number().int().min(1).max(100))
      .optional()
      .describe("1-100, default 20"),
    starting_after: z.string().optional().describe("id of the last job of the previous page"),
  })
  .strict();

/** GET /v1/jobs — newest first, cursor pagination (spec §4, §8). */
function listJobsRoute(ctx: AppContext, request: Request, headers: HeaderBag) {
  // Outside the read snapshot: on PostgreSQL the rate window is a write (DbSlidingWindowLimiter).
  const principal = guard(ctx, request, headers);
  // The cursor lookup and the page come from one snapshot.
  return readTx(ctx.db, () => listPage(ctx, principal, request));
}

function listPage(ctx: AppContext, principal: Principal, request: Request) {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  const q = parseOrThrow(ListQuerySchema, query, () => "invalid_parameter");
  let afterSeq: number | undefined;
  if (q.starting_after !== undefined) {
    const cursor = getJob(ctx.db, principal, q.starting_after);
    if (!cursor) throw new ApiError("invalid_parameter", `starting_after: no job ${q.starting_after}.`, "starting_after");
    afterSeq = cursor.seq;
  }
  const { rows, hasMore } = listJobs(ctx.db, principal, q.limit ?? 20, afterSeq);
  return { object: "list" as const, has_more: hasMore, data: rows.map((r) => presentJob(r, ctx.present)) };
}
