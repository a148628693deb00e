import type { AppContext } from "../context.ts";
import { requestIdOf } from "../request-id.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
import { presentDelivery, presentWebhook } from "../../webhooks/present.ts";
import { deleteWebhook, eventOf, registerWebhook, replayDelivery, sendTestEvent } from "../../webhooks/service.ts";
import { attemptsOf, getDelivery, getWebhook, listDeliveries, listWebhooks } from "../../webhooks/store.ts";
import { readJsonObject } from "../body.ts";
import { ApiError, type ErrorCode } from "../../errors.ts";
import { guard } from "../guard.ts";
import { PageQuerySchema, WebhookCreateSchema } from "../schemas/webhook.ts";
import { parseOrThrow } from "../../validate.ts";

/** Webhooks and their deliveries (spec §6). */
export function register(app: App, ctx: AppContext): void {
  app
    .post("/v1/webhooks", ({ request, set }) => {
      set.status = 201;
      return createWebhookRoute(ctx, request, reply(set).headers);
    }, { parse: "none" })
    .get("/v1/webhooks", ({ request, set }) => listWebhooksRoute(ctx, request, reply(set).headers))
    .delete("/v1/webhooks/:id", ({ request, set, params }) => deleteWebhookRoute(ctx, request, reply(set).headers, params.id), { parse: "none" })
    .post("/v1/webhooks/:id/test", ({ request, set, params }) => {
      set.status = 202;
      return testWebhookRoute(ctx, request, reply(set).headers, params.id, requestIdOf(request));
    }, { parse: "none" })
    .get("/v1/webhooks/:id/deliveries", ({ request, set, params }) => listDeliveriesRoute(ctx, request, reply(set).headers, params.id))
    .post("/v1/webhooks/deliveries/:id/replay", ({ request, set, params }) => {
      set.status = 202;
      return replayDeliveryRoute(ctx, request, reply(set).headers, params.id);
    }, { parse: "none" });
}


function codeFor(param: string): ErrorCode {
  if (param === "events" || param.startsWith("events.")) return "invalid_events";
  if (param === "url") return "invalid_webhook_url";
  return "invalid_body";
}

/** POST /v1/webhooks — the only response that ever shows the secret. */
async function createWebhookRoute(ctx: AppContext, request: Request, headers: HeaderBag) {
  const p = guard(ctx, request, headers);
  const body = parseOrThrow(WebhookCreateSchema, await readJsonObject(request), codeFor);
  const { row, secret } = registerWebhook(ctx.webhooks, p, body.url, body.events);
  return presentWebhook(row, secret);
}

/** GET /v1/webhooks — a list envelope; never includes secrets. */
function listWebhooksRoute(ctx: AppContext, request: Request, headers: HeaderBag) {
  const p = guard(ctx, request, headers);
  return { object: "list" as const, has_more: false, data: listWebhooks(ctx.db, p).map((w) => presentWebhook(w)) };
}

/** DELETE /v1/webhooks/{id} — 200 with a deletion marker; pending deliveries are abandoned. */
function deleteWebhookRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string) {
  const p = guard(ctx, request, headers);
  const hook = deleteWebhook(ctx.webhooks, p, id);
  return { id: hook.id, object: "webhook" as const, deleted: true };
}

function deliveryView(ctx: AppContext, d: ReturnType<typeof getDelivery> & {}) {
  return presentDelivery(d, eventOf(ctx.webhooks, d.eventId), attemptsOf(ctx.db, d.id));
}

/** POST /v1/webhooks/{id}/test — 202 with the queued delivery. */
function testWebhookRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string, requestId: string) {
  const p = guard(ctx, request, headers);
  return deliveryView(ctx, sendTestEvent(ctx.webhooks, p, id, requestId));
}

/** GET /v1/webhooks/{id}/deliveries — newest first, cursor pagination like jobs. */
function listDeliveriesRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string) {
  const p = guard(ctx, request, headers);
  const hook = getWebhook(ctx.db, p, id);
  if (!hook) throw new ApiError("not_found", `No webhook ${id}.`, "id");
  const q = parseOrThrow(PageQuerySchema, Object.fromEntries(new URL(request.url).searchParams), () => "invalid_parameter");
  let afterSeq: number | undefined;
  if (q.starting_after !== undefined) {
    const cursor = getDelivery(ctx.db, p, q.starting_after);
    if (!cursor || cursor.webhookId !== id) throw new ApiError("invalid_parameter", `starting_after: no delivery ${q.starting_after}.`, "starting_after");
    afterSeq = cursor.seq;
  }
  const { rows, hasMore } = listDeliveries(ctx.db, p, id, q.limit ?? 20, afterSeq);
  return { object: "list" as const, has_more: hasMore, data: rows.map((d) => deliveryView(ctx, d)) };
}

/** POST /v1/webhooks/deliveries/{id}/replay — 202 with the new delivery (same event, same request_id). */
function replayDeliveryRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string) {
  const p = guard(ctx, request, headers);
  return deliveryView(ctx, replayDelivery(ctx.webhooks, p, id));
}
