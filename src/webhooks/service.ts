import type { Scope } from "../accounts/scope.ts";
import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import { newId, randomBase62 } from "../ids.ts";
import { presentJob, type PresentContext } from "../jobs/present.ts";
import { latestJob } from "../jobs/store.ts";
import type { NetworkPolicy } from "../net/ip-policy.ts";
import { checkUrl, OutboundRefused } from "../net/safe-fetch.ts";
import type { SecretBox } from "../secrets.ts";
import { eventPayload, queueDelivery } from "./events.ts";
import { abandonPending, getDelivery, getEvent, getWebhook, insertEvent, insertWebhook, markWebhookDeleted } from "./store.ts";

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  box: SecretBox;
  policy: NetworkPolicy;
  present: PresentContext;
  wake(): void;
}

/** Registration: the secret is whsec_ + 192 random bits, returned once and kept sealed. */
export function registerWebhook(deps: WebhookDeps, scope: Scope, url: string, events: string[]) {
  try {
    checkUrl(url, deps.policy);
  } catch (err) {
    if (err instanceof OutboundRefused) throw new ApiError("invalid_webhook_url", `url: ${err.message}`, "url");
    throw err;
  }
  const secret = `whsec_${randomBase62(192)}`;
  const row = {
    id: newId("we"),
    orgId: scope.orgId,
    env: scope.env,
    url,
    events: JSON.stringify([...new Set(events)]),
    secretEnc: deps.box.seal(secret),
    status: "active" as const,
    consecutiveFailures: 0,
    createdAt: deps.clock.now(),
    disabledAt: null,
    deletedAt: null,
  };
  insertWebhook(deps.db, row);
  return { row, secret };
}

export function deleteWebhook(deps: WebhookDeps, scope: Scope, id: string) {
  return tx(deps.db, () => {
    const hook = getWebhook(deps.db, scope, id);
    if (!hook || !markWebhookDeleted(deps.db, id, deps.clock.now())) throw new ApiError("not_found", `No webhook ${id}.`, "id");
    abandonPending(deps.db, id, deps.clock.now(), "webhook deleted");
    return hook;
  });
}

/** A synthetic job.completed from the most recent job of the webhook's world, signed and sent like any other. */
export function sendTestEvent(deps: WebhookDeps, scope: Scope, webhookId: string, requestId: string) {
  const delivery = tx(deps.db, () => {
    const hook = getWebhook(deps.db, scope, webhookId);
    if (!hook) throw new ApiError("not_found", `No webhook ${webhookId}.`, "id");
    if (hook.status !== "active") throw new ApiError("webhook_disabled", "This webhook was deactivated; register it again.", "id");
    const job = latestJob(deps.db, scope);
    if (!job) throw new ApiError("no_job_for_test_event", `Submit a job with a ${scope.env === "live" ? "live" : "sandbox"} key first: the test event is built from the most recent job of the webhook's environment.`);
    const now = deps.clock.now();
    const id = newId("evt");
    insertEvent(deps.db, { id, orgId: scope.orgId, env: scope.env, type: "job.completed", jobId: job.id, requestId, createdAt: now, payload: eventPayload(id, "job.completed", now, requestId, presentJob(job, deps.present)) });
    return queueDelivery(deps.db, { orgId: scope.orgId, webhookId, eventId: id, kind: "test", now });
  });
  deps.wake();
  return delivery;
}

/** Re-sends a past delivery's event (same event id, same request_id, same bytes) as a new delivery. */
export function replayDelivery(deps: WebhookDeps, scope: Scope, deliveryId: string) {
  const delivery = tx(deps.db, () => {
    const past = getDelivery(deps.db, scope, deliveryId);
    const hook = past && getWebhook(deps.db, scope, past.webhookId);
    if (!past || !hook) throw new ApiError("not_found", `No delivery ${deliveryId}.`, "id");
    if (hook.status !== "active") throw new ApiError("webhook_disabled", "This webhook was deactivated; register it again.", "id");
    return queueDelivery(deps.db, { orgId: scope.orgId, webhookId: hook.id, eventId: past.eventId, kind: "replay", now: deps.clock.now() });
  });
  deps.wake();
  return delivery;
}

export const eventOf = (deps: WebhookDeps, eventId: string) => getEvent(deps.db, eventId)!;
