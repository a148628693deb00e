import { z } from "zod";
import type { AppContext } from "../context.ts";
import { presentJob } from "../../jobs/present.ts";
import { readTx } from "../../db/client.ts";
import { getJob, listJobs } from "../../jobs/store.ts";
import { ApiError } from "../../errors.ts";
import { guard } from "../guard.ts";
import type { Principal } from "../auth.ts";
import { parseOrThrow } from "../../validate.ts";

export const ListQuerySchema = z
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
export function listJobsRoute(ctx: AppContext, request: Request, headers: Record<string, string | number>) {
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
