import type { AppContext } from "../context.ts";
import { presentJobJson } from "../../jobs/present.ts";
import { getJob } from "../../jobs/store.ts";
import { ApiError } from "../../errors.ts";
import { guard } from "../guard.ts";

/** GET /v1/jobs/{id} — spec §4; ids of other organisations or of the other world are not_found, never forbidden. */
export function getJobRoute(ctx: AppContext, request: Request, headers: Record<string, string | number>, id: string) {
  const principal = guard(ctx, request, headers);
  // One statement: no transaction needed (on PostgreSQL that saves a BEGIN and a COMMIT per request).
  const row = getJob(ctx.db, principal, id);
  if (!row) throw new ApiError("not_found", `No job ${id}.`, "id");
  // Already serialised (and remembered while the row is unchanged); the same type as Response.json's.
  headers["content-type"] = "application/json;charset=utf-8";
  return presentJobJson(row, ctx.present);
}
