import type { AppContext } from "../context.ts";
import { presentClip, shareBaseUrl } from "../../jobs/present.ts";
import { readJsonObject } from "../body.ts";
import { guard } from "../guard.ts";
import { ClipRenderCreateSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";
import { idempotencyKey } from "./jobs.ts";

/**
 * POST /v1/jobs/{id}/clips/{clip_id}/renders (extension) — 202 with the clip, its `render` saying
 * where the new render stands. Another organisation's or world's job is not_found.
 */
export async function createClipRenderRoute(ctx: AppContext, request: Request, headers: Record<string, string | number>, jobId: string, clipId: string) {
  const principal = guard(ctx, request, headers);
  const key = idempotencyKey(request);
  const body = parseOrThrow(ClipRenderCreateSchema, await readJsonObject(request), () => "invalid_body");
  ctx.disk.require();
  await ctx.renders.prepare(principal, jobId);
  const { job, clip, replayed } = ctx.renders.request(principal, jobId, clipId, body, key);
  if (replayed) headers["idempotent-replayed"] = "true";
  return presentClip(clip, shareBaseUrl(ctx.present, job.id), job);
}
