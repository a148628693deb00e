import { Elysia } from "elysia";
import type { AppContext } from "./context.ts";
import { log } from "../log.ts";
import { reviewFromSharePage, shareFile, sharePage } from "../web/share.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import { errorBody } from "./error-body.ts";
import { ApiError } from "../errors.ts";
import { checkHeadSize, letOversizedHeadsReachTheApp } from "./head-limit.ts";
import { checkDeclaredBodySize, PARSER_BODY_BYTES } from "./body-limit.ts";
import { openApiDocument } from "./openapi.ts";
import { requestIdOf } from "./request-id.ts";
import { createFeedRoute, deleteFeedRoute, listFeedsRoute } from "./routes/feeds.ts";
import { getVocabularyRoute, putVocabularyRoute } from "./routes/vocabulary.ts";
import { createClipRenderRoute } from "./routes/clips.renders.ts";
import { createEditorClipRoute, deleteClipRoute } from "./routes/clips.editor.ts";
import { correctTranscriptRoute } from "./routes/transcript.corrections.ts";
import { createJob } from "./routes/jobs.create.ts";
import { getJobRoute } from "./routes/jobs.get.ts";
import { listJobsRoute } from "./routes/jobs.list.ts";
import { createUploadRoute, getUploadRoute, tusOptionsRoute, tusUploadRoute } from "./routes/uploads.ts";
import {
  createWebhookRoute,
  deleteWebhookRoute,
  listDeliveriesRoute,
  listWebhooksRoute,
  replayDeliveryRoute,
  testWebhookRoute,
} from "./routes/webhooks.ts";
import { registerBillingRoutes } from "./routes/billing.ts";
import { registerDashboardRoutes } from "../web/dashboard/routes.ts";
import { registerFeedDashboard } from "../web/dashboard/feeds.ts";
import { registerVocabularyDashboard } from "../web/dashboard/vocabulary.ts";
import { registerWebhookDashboard } from "../web/dashboard/webhooks.ts";
import { registerUploadDashboard } from "../web/dashboard/upload.ts";
import { registerEditorDashboard } from "../web/dashboard/editor.ts";

type Routes = Array<{ method: string; pattern: RegExp }>;

/** Tells "no such path" (not_found) from "path exists, wrong method" (method_not_allowed). */
function routeMiss(routes: Routes, request: Request): ApiError {
  const path = new URL(request.url).pathname;
  const methods = routes.filter((r) => r.pattern.test(path)).map((r) => r.method);
  if (methods.length > 0) {
    return new ApiError("method_not_allowed", `${request.method} is not supported on ${path}; use ${[...new Set(methods)].join(", ")}.`, null, {
      allow: [...new Set(methods)].join(", "),
    });
  }
  return new ApiError("not_found", `No route ${request.method} ${path}.`);
}


/**
 * The HTTP application. Routes stay thin: each calls one function in src/api/routes/. Every response
 * gets X-Request-Id; every failure, including unknown routes and framework errors, is rendered once,
 * here, from the error table.
 */
export function buildApi(ctx: AppContext) {
  letOversizedHeadsReachTheApp();
  // Uploads stream their body to disk, so bodies up to the media limit get through; every JSON route
  // still stops reading at 1 MiB (body.ts). The app enforces this, so that a 413 carries the envelope.
  const bodyLimit = Math.max(ctx.config.maxMediaBytes, MAX_BODY_BYTES) + 64 * 1024;
  const app = new Elysia({ serve: { maxRequestBodySize: PARSER_BODY_BYTES } })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestIdOf(request);
      checkHeadSize(request);
      checkDeclaredBodySize(request, bodyLimit);
    })
    .onError(({ code, error, request, set }) => {
      let apiError: ApiError;
      if (error instanceof ApiError) apiError = error;
      else if (code === "NOT_FOUND") apiError = routeMiss(routeTable, request);
      else if (code === "PARSE") apiError = new ApiError("invalid_json", "The request body could not be parsed.");
      else {
        log.error("unhandled error", { code: String(code), error: error instanceof Error ? error.stack : String(error) });
        apiError = new ApiError("internal_error", "An unexpected error occurred; the request id identifies it in the logs.");
      }
      set.status = apiError.status;
      Object.assign(set.headers, apiError.headers);
      return errorBody(apiError, requestIdOf(request));
    })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/v1/openapi.json", () => openApiDocument())
    .post("/v1/jobs", ({ request, set }) => {
      set.status = 202;
      return createJob(ctx, request, set.headers as Record<string, string>, requestIdOf(request));
    }, { parse: "none" })
    .get("/v1/jobs", ({ request, set }) => listJobsRoute(ctx, request, set.headers as Record<string, string>))
    .get("/v1/jobs/:id", ({ request, set, params }) => getJobRoute(ctx, request, set.headers as Record<string, string>, params.id))
    .post("/v1/jobs/:id/clips/:clip_id/renders", ({ request, set, params }) => {
      set.status = 202;
      return createClipRenderRoute(ctx, request, set.headers as Record<string, string>, params.id, params.clip_id);
    }, { parse: "none" })
    .post("/v1/jobs/:id/transcript/corrections", ({ request, set, params }) => {
      set.status = 202;
      return correctTranscriptRoute(ctx, request, set.headers as Record<string, string>, params.id);
    }, { parse: "none" })
    .post("/v1/jobs/:id/clips", ({ request, set, params }) => createEditorClipRoute(ctx, request, set as never, params.id), { parse: "none" })
    .delete("/v1/jobs/:id/clips/:clip_id", ({ request, set, params }) => deleteClipRoute(ctx, request, set.headers as Record<string, string>, params.id, params.clip_id), { parse: "none" })
    .post("/v1/webhooks", ({ request, set }) => {
      set.status = 201;
      return createWebhookRoute(ctx, request, set.headers as Record<string, string>);
    }, { parse: "none" })
    .get("/v1/webhooks", ({ request, set }) => listWebhooksRoute(ctx, request, set.headers as Record<string, string>))
    .delete("/v1/webhooks/:id", ({ request, set, params }) => deleteWebhookRoute(ctx, request, set.headers as Record<string, string>, params.id), { parse: "none" })
    .post("/v1/webhooks/:id/test", ({ request, set, params }) => {
      set.status = 202;
      return testWebhookRoute(ctx, request, set.headers as Record<string, string>, params.id, requestIdOf(request));
    }, { parse: "none" })
    .get("/v1/webhooks/:id/deliveries", ({ request, set, params }) => listDeliveriesRoute(ctx, request, set.headers as Record<string, string>, params.id))
    .post("/v1/webhooks/deliveries/:id/replay", ({ request, set, params }) => {
      set.status = 202;
      return replayDeliveryRoute(ctx, request, set.headers as Record<string, string>, params.id);
    }, { parse: "none" })
    .post("/v1/uploads", ({ request, set }) => createUploadRoute(ctx, request, set as never), { parse: "none" })
    .options("/v1/uploads", ({ request, set }) => tusOptionsRoute(ctx, request, set as never))
    .get("/v1/uploads/:id", ({ request, set, params }) => getUploadRoute(ctx, request, set.headers as Record<string, string>, params.id))
    .head("/v1/uploads/:id", ({ request, set, params }) => tusUploadRoute(ctx, request, set as never, params.id))
    .patch("/v1/uploads/:id", ({ request, set, params }) => tusUploadRoute(ctx, request, set as never, params.id), { parse: "none" })
    .delete("/v1/uploads/:id", ({ request, set, params }) => tusUploadRoute(ctx, request, set as never, params.id), { parse: "none" })
    .post("/v1/feeds", ({ request, set }) => {
      set.status = 201;
      return createFeedRoute(ctx, request, set.headers as Record<string, string>);
    }, { parse: "none" })
    .get("/v1/feeds", ({ request, set }) => listFeedsRoute(ctx, request, set.headers as Record<string, string>))
    .delete("/v1/feeds/:id", ({ request, set, params }) => deleteFeedRoute(ctx, request, set.headers as Record<string, string>, params.id), { parse: "none" })
    .get("/v1/vocabulary", ({ request, set }) => getVocabularyRoute(ctx, request, set.headers as Record<string, string>))
    .put("/v1/vocabulary", ({ request, set }) => putVocabularyRoute(ctx, request, set.headers as Record<string, string>), { parse: "none" })
    .get("/share/:token", ({ params }) => sharePage(ctx, params.token))
    .post("/share/:token/clips/:rank/review", ({ params, request }) => reviewFromSharePage(ctx, params.token, params.rank, request), { parse: "none" })
    .get("/share/:token/files/:name", ({ params, request }) => shareFile(ctx, params.token, params.name, request));
  registerBillingRoutes(app as unknown as Elysia, ctx);
  registerDashboardRoutes(app as unknown as Elysia, ctx);
  registerWebhookDashboard(app as unknown as Elysia, ctx);
  registerUploadDashboard(app as unknown as Elysia, ctx);
  registerEditorDashboard(app as unknown as Elysia, ctx);
  registerFeedDashboard(app as unknown as Elysia, ctx);
  registerVocabularyDashboard(app as unknown as Elysia, ctx);

  const routeTable: Routes = app.routes.map((r) => ({
    method: r.method,
    pattern: new RegExp(`^${r.path.replace(/:[^/]+/g, "[^/]+")}/?$`),
  }));
  return app;
}

export type Api = ReturnType<typeof buildApi>;
