import type { AppContext } from "../context.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
import { presentClip, shareBaseUrl } from "../../jobs/present.ts";
import { readJsonObject } from "../body.ts";
import { guard } from "../guard.ts";
import { ClipRenderCreateSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";
import { idempotencyKey } from "../idempotency-key.ts";

/** A clip's re-renders (extension). */
export function register(app: App, ctx: AppContext): void {
  app.post("/v1/jobs/:id/clips/:clip_id/renders", ({ request, set, params }) => {
    set.status = 202;
    return createClipRenderRoute(ctx, request, reply(set).headers, params.id, params.clip_id);
  }, { parse: "none" });
}


/**
 * POST /v1/jobs/{id}/clips/{clip_id}/renders (extension) — 202 with the clip, its `render` saying
 * where the new render stands. Another organisation's or world's job is not_found.
 */
async function createClipRenderRoute(ctx: AppContext, request: Request, headers: HeaderBag, jobId: string, clipId: string) {
  const principal = guard(ctx, request, headers);
  const key = idempotencyKey(request);
  const body = parseOrThrow(ClipRenderCreateSchema, await readJsonObject(request), () => "invalid_body");
  ctx.disk.require();
  await ctx.renders.prepare(principal, jobId);
  const { job, clip, replayed } = ctx.renders.request(principal, jobId, clipId, body, key);
  if (replayed) headers["idempotent-replayed"] = "true";
  return presentClip(clip, shareBaseUrl(ctx.present, job.id), job);
}
