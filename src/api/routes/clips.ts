import type { AppContext } from "../context.ts";
import { presentClip, shareBaseUrl } from "../../jobs/present.ts";
import { readJsonObject } from "../body.ts";
import { guard } from "../guard.ts";
import { ClipCreateSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";
import { idempotencyKey } from "./jobs.ts";

/**
 * POST /v1/jobs/{id}/clips (extension) — 202 with the new clip, its `render` queued (live) or
 * complete (sandbox); 200 with the existing clip when the producer already added this one.
 * Another organisation's or world's job is not_found.
 */
export async function createEditorClipRoute(ctx: AppContext, request: Request, set: { status?: number | string; headers: Record<string, string | number> }, jobId: string) {
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
export async function deleteClipRoute(ctx: AppContext, request: Request, headers: Record<string, string | number>, jobId: string, clipId: string) {
  const principal = guard(ctx, request, headers);
  const { id } = await ctx.editorClips.remove(principal, jobId, clipId);
  return { id, object: "clip" as const, deleted: true };
}
