import type { AppContext } from "../context.ts";
import { submitJob } from "../../jobs/submit.ts";
import { findOwnUpload, keepUploadForJob, type UploadOwner } from "../../uploads/store.ts";
import { presentJob } from "../../jobs/present.ts";
import { checkSourceUrl, type SourceType } from "../../jobs/source-url.ts";
import { readJsonObject } from "../body.ts";
import { ApiError, type ErrorCode } from "../../errors.ts";
import { guard } from "../guard.ts";
import { JobCreateSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";

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
export async function createJob(ctx: AppContext, request: Request, headers: Record<string, string | number>, requestId: string) {
  const principal = guard(ctx, request, headers);
  const key = idempotencyKey(request);
  const { job, replayed } = submitJobBody(ctx, principal, await readJsonObject(request), { idempotencyKey: key, requestId });
  if (replayed) headers["idempotent-replayed"] = "true";
  return presentJob(job, ctx.present);
}
