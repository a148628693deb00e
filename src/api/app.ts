import { Elysia } from "elysia";
import type { AppContext } from "./context.ts";
import { log } from "../log.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import { errorBody } from "./error-body.ts";
import { ApiError } from "../errors.ts";
import { checkHeadSize, letOversizedHeadsReachTheApp } from "./head-limit.ts";
import { checkDeclaredBodySize, PARSER_BODY_BYTES } from "./body-limit.ts";
import { requestIdOf } from "./request-id.ts";
import type { App, Register } from "./routing.ts";
import { register as service } from "./routes/service.ts";
import { register as jobs } from "./routes/jobs.ts";
import { register as renders } from "./routes/renders.ts";
import { register as corrections } from "./routes/corrections.ts";
import { register as clips } from "./routes/clips.ts";
import { register as webhooks } from "./routes/webhooks.ts";
import { register as uploads } from "./routes/uploads.ts";
import { register as feeds } from "./routes/feeds.ts";
import { register as vocabulary } from "./routes/vocabulary.ts";
import { register as brand } from "./routes/brand.ts";
import { register as billing } from "./routes/billing.ts";
import { registerSharePage } from "../web/share.ts";
import { registerDashboardRoutes } from "../web/dashboard/routes.ts";
import { registerWebhookDashboard } from "../web/dashboard/webhooks.ts";
import { registerUploadDashboard } from "../web/dashboard/upload.ts";
import { registerFeedDashboard } from "../web/dashboard/feeds.ts";
import { registerVocabularyDashboard } from "../web/dashboard/vocabulary.ts";
import { registerEditorDashboard } from "../web/dashboard/editor.ts";

/**
 * Every route of the appliance, one entry per resource file (src/api/routes/ for the API, src/web/
 * for the share page and the dashboard). The order is registration order, which the Allow header of
 * a 405 follows.
 */
const RESOURCES: Register[] = [
  service,
  jobs,
  renders,
  corrections,
  clips,
  webhooks,
  uploads,
  feeds,
  vocabulary,
  brand,
  registerSharePage,
  billing,
  registerDashboardRoutes,
  registerWebhookDashboard,
  registerUploadDashboard,
  registerEditorDashboard,
  registerFeedDashboard,
  registerVocabularyDashboard,
];

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
 * The HTTP application: the hooks every request goes through, then RESOURCES. Every response
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
    });
  for (const register of RESOURCES) register(app as unknown as App, ctx);

  const routeTable: Routes = app.routes.map((r) => ({
    method: r.method,
    pattern: new RegExp(`^${r.path.replace(/:[^/]+/g, "[^/]+")}/?$`),
  }));
  return app;
}

export type Api = ReturnType<typeof buildApi>;
