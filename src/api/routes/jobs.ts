import { z } from "zod";
import type { AppContext } from "../context.ts";
import { submitJobBody } from "../../jobs/submit.ts";
import { presentJob, presentJobJson, rememberedJobJson } from "../../jobs/present.ts";
import { getJob, getJobVersion, listJobs } from "../../jobs/store.ts";
import { readTx } from "../../db/client.ts";
import { readJsonObject } from "../body.ts";
import { idempotencyKey } from "../idempotency-key.ts";
import { ApiError } from "../../errors.ts";
import { guard } from "../guard.ts";
import type { Principal } from "../auth.ts";
import { requestIdOf } from "../request-id.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
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
  // Single statements: no transaction needed (on PostgreSQL that saves a BEGIN and a COMMIT per request).
  // The row version first: reading and decoding the whole ~10 KB row cost more than the rest of the
  // request, and only a changed job needs it.
  const version = getJobVersion(ctx.db, principal, id);
  if (version === undefined) throw new ApiError("not_found", `No job ${id}.`, "id");
  // Already serialised (and remembered while the row is unchanged); the same type as Response.json's.
  headers["content-type"] = "application/json;charset=utf-8";
  const remembered = rememberedJobJson(id, version, ctx.present);
  if (remembered !== undefined) return remembered;
  const row = getJob(ctx.db, principal, id);
  if (!row) throw new ApiError("not_found", `No job ${id}.`, "id");
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
