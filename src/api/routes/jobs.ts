import { z } from "zod";
import type { AppContext } from "../context.ts";
import { submitJobBody } from "../../jobs/submit.ts";
import { currentJobBody, presentJob, presentJobBody, rememberedJobBody, type JobBody } from "../../jobs/present.ts";
import { getJob, getJobVersion, getKeyRevocationAndJobVersion, listJobs } from "../../jobs/store.ts";
import { readTx } from "../../db/client.ts";
import { commitEpoch } from "../../db/commit-epoch.ts";
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
    // Written so that Elysia calls it directly: it takes a handler whose text returns straight from a
    // call (`=> f(…)`, `return f(…)`) for one that may return a promise, and awaits it on every request
    // (a promise, a microtask, and Bun waiting on the promise instead of taking the Response at once).
    .get("/v1/jobs/:id", ({ request, set, params }) => {
      const headers = reply(set).headers;
      const body = getJobRoute(ctx, request, headers, params.id);
      // The body's UTF-8 bytes, encoded once per version of the job, with the headers set so far
      // (request id, rate limit). Elysia passes a Response through untouched only when it has no
      // headers of its own left to add, so they move onto the Response and set's are emptied.
      headers["content-type"] = body.blob.type;
      const response = new Response(body.blob, { headers: headers as Record<string, string> });
      set.headers = {};
      return response;
    });
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
function getJobRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string): JobBody {
  // Taken before anything is read, so everything this request reads is at least this recent.
  const epoch = commitEpoch(ctx.db);
  // The row version, not the row: reading and decoding the whole ~10 KB row cost more than the rest
  // of the request, and only a changed job needs it. A remembered key whose revocation must be read
  // again has it read in the same statement (one read instead of two).
  let version: number | undefined;
  let versionRead = false;
  const principal = guard(ctx, request, headers, undefined, (key) => {
    const row = getKeyRevocationAndJobVersion(ctx.db, key.id, key, id);
    versionRead = true;
    version = row?.version;
    return row?.revokedAt;
  });
  if (!versionRead) {
    // Nothing committed since the job was last read: no read at all (SQLite; see commitEpoch).
    const current = currentJobBody(id, principal, epoch, ctx.present);
    if (current !== undefined) return current;
    // Single statements: no transaction needed (on PostgreSQL that saves a BEGIN and a COMMIT per request).
    version = getJobVersion(ctx.db, principal, id);
  }
  if (version === undefined) throw new ApiError("not_found", `No job ${id}.`, "id");
  // Already serialised, and remembered while the row is unchanged.
  const remembered = rememberedJobBody(id, version, ctx.present, epoch);
  if (remembered !== undefined) return remembered;
  const row = getJob(ctx.db, principal, id);
  if (!row) throw new ApiError("not_found", `No job ${id}.`, "id");
  return presentJobBody(row, ctx.present, epoch);
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
