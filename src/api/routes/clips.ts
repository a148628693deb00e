import type { AppContext } from "../context.ts";
import { reply, type App, type HeaderBag, type Reply } from "../routing.ts";
import { presentClip, shareBaseUrl } from "../../jobs/present.ts";
import { readJsonObject } from "../body.ts";
import { guard } from "../guard.ts";
import { ClipCreateSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";
import { idempotencyKey } from "../idempotency-key.ts";

/** The clips a producer adds to or removes from a job (extension). */
export function register(app: App, ctx: AppContext): void {
  app
    .post("/v1/jobs/:id/clips", ({ request, set, params }) => createEditorClipRoute(ctx, request, reply(set), params.id), { parse: "none" })
    .delete("/v1/jobs/:id/clips/:clip_id", ({ request, set, params }) => deleteClipRoute(ctx, request, reply(set).headers, params.id, params.clip_id), { parse: "none" });
}


/**
 * POST /v1/jobs/{id}/clips (extension) — 202 with the new clip, its `render` queued (live) or
 * complete (sandbox); 200 with the existing clip when the producer already added this one.
 * Another organisation's or world's job is not_found.
 */
async function createEditorClipRoute(ctx: AppContext, request: Request, set: Reply, jobId: string) {
  const principal = guard(ctx, request, set.headers);
  const key = idempotencyKey(request);
  const body = parseOrThrow(ClipCreateSchema, await readJsonObject(request), () => "invalid_body");
  // Both write new files (renders, exports): refused under the disk reserve like a re-render.
  ctx.disk.require();
  await ctx.editorClips.prepare(principal, jobId);
  const { job, clip, created, replayed } = ctx.editorClips.create(principal, jobId, body, key);
  if (replayed) set.headers["idempotent-replayed"] = "true";
  set.status = created || replayed ? 202 : 200;
  return presentClip(clip, shareBaseUrl(ctx.present, job.id), job);
}

/** DELETE /v1/jobs/{id}/clips/{clip_id} (extension) — removes the clip and its files. */
async function deleteClipRoute(ctx: AppContext, request: Request, headers: HeaderBag, jobId: string, clipId: string) {
  const principal = guard(ctx, request, headers);
  const { id } = await ctx.editorClips.remove(principal, jobId, clipId);
  return { id, object: "clip" as const, deleted: true };
}
