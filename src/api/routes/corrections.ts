import type { AppContext } from "../context.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
import { readJsonObject } from "../body.ts";
import { guard } from "../guard.ts";
import { TranscriptCorrectionSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";
import { idempotencyKey } from "../idempotency-key.ts";

/** A job's transcript corrections (extension). */
export function register(app: App, ctx: AppContext): void {
  app.post("/v1/jobs/:id/transcript/corrections", ({ request, set, params }) => {
    set.status = 202;
    return correctTranscriptRoute(ctx, request, reply(set).headers, params.id);
  }, { parse: "none" });
}


/**
 * POST /v1/jobs/{id}/transcript/corrections (extension) — 202 with what changed and which renders
 * were queued. Another organisation's or world's job is not_found.
 */
async function correctTranscriptRoute(ctx: AppContext, request: Request, headers: HeaderBag, jobId: string) {
  const principal = guard(ctx, request, headers);
  const key = idempotencyKey(request);
  const body = parseOrThrow(TranscriptCorrectionSchema, await readJsonObject(request), () => "invalid_body");
  // Both write new files (renders, exports): refused under the disk reserve like a re-render.
  ctx.disk.require();
  await ctx.corrections.prepare(principal, jobId);
  const { summary, replayed } = await ctx.corrections.apply(principal, jobId, body, key);
  if (replayed) headers["idempotent-replayed"] = "true";
  return summary;
}
