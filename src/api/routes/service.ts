import type { AppContext } from "../context.ts";
import { openApiDocument } from "../openapi.ts";
import type { App } from "../routing.ts";

/** The service's own endpoints: a liveness probe and the OpenAPI document, both without a key. */
export function register(app: App, _ctx: AppContext): void {
  app.get("/healthz", () => ({ status: "ok" })).get("/v1/openapi.json", () => openApiDocument());
}
