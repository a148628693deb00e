import type { AppContext } from "../context.ts";
import { presentUpload } from "../../uploads/present.ts";
import { UPLOADS_PATH } from "../../uploads/service.ts";
import { ApiError, type ErrorCode } from "../../errors.ts";
import { guard } from "../guard.ts";
import { RawUploadQuerySchema } from "../../uploads/schema.ts";
import { parseOrThrow } from "../../validate.ts";
import { reply, type App, type HeaderBag, type Reply } from "../routing.ts";

/** Uploads (extension): tus and raw bodies. */
export function register(app: App, ctx: AppContext): void {
  app
    .post("/v1/uploads", ({ request, set }) => createUploadRoute(ctx, request, reply(set)), { parse: "none" })
    .options("/v1/uploads", ({ request, set }) => tusOptionsRoute(ctx, request, reply(set)))
    .get("/v1/uploads/:id", ({ request, set, params }) => getUploadRoute(ctx, request, reply(set).headers, params.id))
    .head("/v1/uploads/:id", ({ request, set, params }) => tusUploadRoute(ctx, request, reply(set), params.id))
    .patch("/v1/uploads/:id", ({ request, set, params }) => tusUploadRoute(ctx, request, reply(set), params.id), { parse: "none" })
    .delete("/v1/uploads/:id", ({ request, set, params }) => tusUploadRoute(ctx, request, reply(set), params.id), { parse: "none" });
}

/** tus requests carry Tus-Resumable (the spec requires it on every request but OPTIONS). */
const isTus = (request: Request) => request.headers.has("tus-resumable");

/**
 * Copies a tus Response's status and headers into the Elysia reply. @tus/server adds CORS headers
 * that open the API to every origin; the rest of the API sends none, so neither do uploads.
 */
function relay(response: Response, set: Reply): void {
  set.status = response.status;
  response.headers.forEach((value, name) => {
    if (!name.startsWith("access-control-")) set.headers[name] = value;
  });
}

/**
 * tus answers protocol errors with a status and a line of text; clients branch on the status, so it
 * is kept, and the text becomes the API's error envelope like every other failure.
 */
const TUS_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
  400: "invalid_body",
  403: "invalid_body",
  404: "not_found",
  409: "upload_offset_conflict",
  410: "not_found",
  413: "body_too_large",
  415: "invalid_body",
};

async function tusOutcome(response: Response, set: Reply): Promise<string | null> {
  if (response.status < 400) {
    relay(response, set);
    return response.text();
  }
  const code = TUS_ERROR_CODES[response.status] ?? "internal_error";
  const message = (await response.text()).trim() || `tus answered ${response.status}`;
  throw new ApiError(code, message, null, { "tus-resumable": response.headers.get("tus-resumable") ?? "1.0.0" });
}

function query(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}

/**
 * POST /v1/uploads (extension): a tus creation request (Tus-Resumable, Upload-Length or
 * Upload-Defer-Length, Upload-Metadata) answers 201 with the upload's URL in Location and the Upload
 * as JSON; any other POST is the file itself as the body (`curl --data-binary @ep.mp3`), answered
 * 201 with the complete Upload.
 */
async function createUploadRoute(ctx: AppContext, request: Request, set: Reply) {
  const owner = guard(ctx, request, set.headers);
  if (isTus(request)) {
    const response = await ctx.uploads.handleTus(request, owner);
    const id = response.status === 201 ? response.headers.get("location")?.split("/").pop() : undefined;
    const row = id ? ctx.uploads.find(owner, id) : undefined;
    const text = await tusOutcome(response, set);
    if (!row) return text;
    set.headers["upload-expires"] = new Date(row.expiresAt).toUTCString();
    set.headers["content-type"] = "application/json";
    return presentUpload(row, 0);
  }
  const { filename } = parseOrThrow(RawUploadQuerySchema, query(request), () => "invalid_parameter");
  const declared = request.headers.get("content-length");
  const row = await ctx.uploads.receiveRaw(request.body, declared === null ? null : Number(declared), owner, filename ?? null);
  set.status = 201;
  set.headers.location = `${ctx.present.publicUrl}${UPLOADS_PATH}/${row.id}`;
  return presentUpload(row, row.size ?? 0);
}

/**
 * HEAD, PATCH, DELETE on an upload's URL: tus, once the upload is known to be the caller's. A
 * chunked upload sends one PATCH per chunk, so chunks count against the read budget (600 a minute),
 * not the write budget meant for job submissions.
 */
async function tusUploadRoute(ctx: AppContext, request: Request, set: Reply, id: string) {
  const owner = guard(ctx, request, set.headers, request.method === "DELETE" ? "write" : "read");
  requireExactUploadUrl(request, id);
  if (!ctx.uploads.find(owner, id)) throw new ApiError("not_found", `No upload ${id}.`, "id");
  const text = await tusOutcome(await ctx.uploads.handleTus(request, owner, id), set);
  return request.method === "HEAD" ? null : text;
}

const UPLOAD_ID = /^upl_[0-9A-Za-z]+$/;

/**
 * An upload's URL is exactly /v1/uploads/<id>. The router and tus each find the id their own way
 * (the router ignores a query string, tus took the last `/` segment of the whole URL), so anything
 * else — a query string, an encoded slash, dot segments, a trailing segment or slash — could name
 * one upload to the access check and another to tus. Such a URL names no upload.
 */
function requireExactUploadUrl(request: Request, id: string): void {
  const url = request.url;
  const target = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (UPLOAD_ID.test(id) && target === `${UPLOADS_PATH}/${id}`) return;
  throw new ApiError("not_found", `No upload at ${target.slice(0, 200)}: an upload's URL is exactly ${UPLOADS_PATH}/<id>, with no query string, encoded slash, dot segment or trailing segment.`, "id");
}

/** OPTIONS /v1/uploads: tus discovery (Tus-Version, Tus-Extension, Tus-Max-Size), open like any OPTIONS. */
async function tusOptionsRoute(ctx: AppContext, request: Request, set: Reply) {
  relay(await ctx.uploads.describe(request), set);
  return null;
}

/** GET /v1/uploads/{id}: the Upload, with how many bytes have arrived. */
function getUploadRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string) {
  const owner = guard(ctx, request, headers);
  // The router answers a HEAD it could not give the tus route (a trailing slash) from this GET route.
  if (request.method === "HEAD") requireExactUploadUrl(request, id);
  const row = ctx.uploads.find(owner, id);
  if (!row) throw new ApiError("not_found", `No upload ${id}.`, "id");
  return presentUpload(row, ctx.uploads.receivedBytes(row.id));
}
